package cmdtest

import (
	"context"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExecuteGivesALiveBoundedContext: the command runs with a context
// that is live and has a deadline.
func TestExecuteGivesALiveBoundedContext(t *testing.T) {
	var seen context.Context
	cmd := &cobra.Command{Use: "probe", RunE: func(cmd *cobra.Command, args []string) error {
		seen = cmd.Context()
		assert.Equal(t, []string{"a", "b"}, args)
		return cmd.Context().Err()
	}}
	ctx, err := Execute(t, cmd, "a", "b")
	require.NoError(t, err, "the command's context is live")
	require.NotNil(t, seen)
	assert.Equal(t, ctx, seen, "Execute returns the context the command ran with")
	_, ok := ctx.Deadline()
	assert.True(t, ok, "the run is bounded")
	assert.True(t, cmd.SilenceUsage && cmd.SilenceErrors, "cobra prints nothing of its own")
}
