package reconcile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
)

// TestChildEnv: a delivery command gets none of this process's secrets.
func TestChildEnv(t *testing.T) {
	got := childEnv([]string{"PATH=/bin", cmdutil.EnvSecretKey + "=sk", envWebhookSecret + "=whsec", envDSN + "=postgres://u:p@h/db",
		"UPICOLLECT_ORDER_ID=stale", "HOME=/root"})
	assert.Equal(t, []string{"PATH=/bin", "HOME=/root"}, got)
}

func TestBoundedBuffer(t *testing.T) {
	b := &boundedBuffer{max: 4}
	n, err := b.Write([]byte("abc"))
	assert.Equal(t, 3, n)
	require.NoError(t, err)
	n, _ = b.Write([]byte("def\n"))
	assert.Equal(t, 4, n, "a short write would fail the command's pipe")
	assert.Equal(t, `"abcd" (3 more bytes)`, b.String())
	assert.Empty(t, (&boundedBuffer{max: 4}).String())
}
