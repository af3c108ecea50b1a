package status

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdtest"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
)

// TestNewCmdStatus: the flags and the argument land in the command's own
// options, which runF receives in place of the run.
func TestNewCmdStatus(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want StatusOptions
	}{
		{"order", []string{"ORD-1"}, StatusOptions{OrderID: "ORD-1", Concurrency: upicollect.DefaultConcurrency}},
		{"json", []string{"ORD-1", "--json"}, StatusOptions{OrderID: "ORD-1", JSON: true, Concurrency: upicollect.DefaultConcurrency}},
		{"from file", []string{"--from-file", "-", "--concurrency", "3"}, StatusOptions{FromFile: "-", Concurrency: 3}},
		{"connection", []string{"ORD-1", "--base-url", "http://127.0.0.1:1", "--mid", "m", "--dry-run"}, StatusOptions{
			OrderID: "ORD-1", Concurrency: upicollect.DefaultConcurrency,
			Conn: cmdutil.ConnFlags{BaseURL: "http://127.0.0.1:1", CredFlags: cmdutil.CredFlags{MID: "m"}, DryRun: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, _ := cmdtest.Factory(nil)
			var got *StatusOptions
			cmd := NewCmdStatus(f, func(o *StatusOptions) error { got = o; return nil })
			_, err := cmdtest.Execute(t, cmd, tt.args...)
			require.NoError(t, err)
			require.NotNil(t, got, "runF ran")
			assert.Equal(t, tt.want.OrderID, got.OrderID)
			assert.Equal(t, tt.want.JSON, got.JSON)
			assert.Equal(t, tt.want.FromFile, got.FromFile)
			assert.Equal(t, tt.want.Concurrency, got.Concurrency)
			assert.Equal(t, tt.want.Conn, got.Conn)
			assert.NotNil(t, got.Client, "the client is built when the run asks for it")
			assert.Same(t, f.IOStreams, got.IO)
		})
	}
}

// TestJSONFlagIsTheCommandsOwn: two commands built from one Factory keep
// their --json apart.
func TestJSONFlagIsTheCommandsOwn(t *testing.T) {
	f, _, _ := cmdtest.Factory(nil)
	var first, second *StatusOptions
	a := NewCmdStatus(f, func(o *StatusOptions) error { first = o; return nil })
	b := NewCmdStatus(f, func(o *StatusOptions) error { second = o; return nil })
	a.SetArgs([]string{"ORD-1", "--json"})
	b.SetArgs([]string{"ORD-2"})
	require.NoError(t, a.ExecuteContext(context.Background()))
	require.NoError(t, b.ExecuteContext(context.Background()))
	assert.True(t, first.JSON)
	assert.False(t, second.JSON, "one command's --json does not set another's")
}
