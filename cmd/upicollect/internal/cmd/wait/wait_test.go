package wait

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
)

func TestSpinnerFrame(t *testing.T) {
	got := spinnerFrame(0, "ORD1", 65*time.Second, "PENDING", false)
	assert.Equal(t, "\r\x1b[2K⠋ waiting for ORD1  1:05  PENDING", got)
	assert.NotContains(t, got, "\x1b[3", "NO_COLOR: no colour codes")
	got = spinnerFrame(11, "ORD1", 0, "PENDING", true)
	assert.Equal(t, "\r\x1b[2K⠙ waiting for ORD1  0:00  \x1b[33mPENDING\x1b[0m", got)
	assert.Contains(t, spinnerFrame(0, "O", 0, "", true), "checking")
	assert.Contains(t, spinnerFrame(0, "O", 0, "ODD", true), "  ODD", "unknown states uncoloured")
}

func TestFormatElapsed(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0:00", 999 * time.Millisecond: "0:00", 61 * time.Second: "1:01",
		time.Hour + 2*time.Minute + 3*time.Second: "1:02:03", -time.Second: "0:00",
		59*time.Minute + 59*time.Second: "59:59", time.Hour: "1:00:00",
	} {
		assert.Equal(t, want, formatElapsed(d), d)
	}
}

// TestSpinnerStops draws at least one frame, takes status updates and
// clears its line on stop.
func TestSpinnerStops(t *testing.T) {
	var buf iostreams.SyncBuffer
	sp := startSpinner(&buf, "ORD9", false)
	sp.setStatus("PENDING")
	done := make(chan struct{})
	go func() { sp.stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("spinner did not stop")
	}
	out := buf.String()
	assert.Contains(t, out, "waiting for ORD9")
	assert.True(t, strings.HasSuffix(out, clearLine), "line cleared: %q", out)
}

// TestMaxWaitFor: --timeout is the SDK's bound too, beyond its 15-minute
// default, and 0 is as good as no bound.
func TestMaxWaitFor(t *testing.T) {
	assert.Equal(t, time.Hour, maxWaitFor(time.Hour))
	assert.Equal(t, time.Second, maxWaitFor(time.Second))
	assert.Equal(t, untilInterrupted, maxWaitFor(0))
	assert.Greater(t, maxWaitFor(0), 50*365*24*time.Hour)
	assert.True(t, time.Now().Add(maxWaitFor(0)).After(time.Now()), "no overflow")
}
