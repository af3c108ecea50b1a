package reconcile

import (
	"testing"
	"time"

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

// TestStepWait: run waits for the next due order, never less than a floor
// (no two steps back to back), never more than --interval.
func TestStepWait(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		next     time.Time
		interval time.Duration
		want     time.Duration
	}{
		{now, 30 * time.Second, 6 * time.Second},                        // due now: a fifth of the interval
		{now.Add(-time.Hour), 2 * time.Second, minStepGap},              // overdue: the floor
		{now.Add(10 * time.Second), 30 * time.Second, 10 * time.Second}, // until it is due
		{now.Add(time.Hour), 30 * time.Second, 30 * time.Second},        // at most the interval
		{time.Time{}, 30 * time.Second, 30 * time.Second},               // nothing will be due
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, stepWait(now, tt.next, tt.interval), tt.next)
	}
}
