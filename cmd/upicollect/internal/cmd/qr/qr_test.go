package qr

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
)

// TestReadStdinInterrupted: Ctrl-C ends a read of a terminal that never
// sends anything.
func TestReadStdinInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r, w := io.Pipe()
	defer w.Close()
	cancel()
	_, err := readStdin(ctx, r, 10)
	assert.ErrorIs(t, err, context.Canceled)
	code, kind := cmdutil.Classify(ctx, err)
	assert.Equal(t, cmdutil.ExitInterrupted, code)
	assert.Equal(t, cmdutil.KindInterrupted, kind)
}
