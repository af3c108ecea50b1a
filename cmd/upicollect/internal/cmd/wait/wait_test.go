package wait

import (
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
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

// TestWaitDefaultWindows: with the defaults the unknown-order window ends
// first, by more than the poll that decides it can take (the longest delay
// between polls, then a check with all its attempts), so a mistyped id
// ends with exit 3, never with the timeout's exit 5; the help states both
// windows with the flags' own defaults.
func TestWaitDefaultWindows(t *testing.T) {
	cmd := NewCmdWait(&cmdutil.Factory{IOStreams: iostreams.New(nil, io.Discard, io.Discard, func(string) string { return "" })}, nil)
	timeout, err := cmd.Flags().GetDuration("timeout")
	require.NoError(t, err)
	unknown, err := cmd.Flags().GetDuration("unknown-timeout")
	require.NoError(t, err)
	assert.Equal(t, 15*time.Minute, timeout)
	assert.Equal(t, 10*time.Minute, unknown)
	decidingPoll := upicollect.DefaultPollMax + 3*upicollect.DefaultTimeout // its delay, then three attempts
	assert.Greater(t, timeout-unknown, decidingPoll, "the unknown-order exit is reachable")
	assert.LessOrEqual(t, timeout, upicollect.DefaultMaxWait, "within the SDK's own bound")

	for flag, d := range map[string]time.Duration{"timeout": timeout, "unknown-timeout": unknown} {
		m := regexp.MustCompile(`(?m)^  --` + flag + ` \(default (\w+)\)`).FindStringSubmatch(cmd.Long)
		if assert.Len(t, m, 2, "the help states --%s's default", flag) {
			said, err := time.ParseDuration(m[1])
			require.NoError(t, err)
			assert.Equal(t, d, said, "--%s's default as the help says it", flag)
		}
	}
}

// TestWaitMistypedIDWithDefaultTimeout: a mistyped id, waited for with
// the default --timeout, ends with the unknown-order exit (3) once its
// (shortened) window passes; with a --timeout shorter than that window,
// as the defaults once were, it ends with the timeout's exit 5 instead.
func TestWaitMistypedIDWithDefaultTimeout(t *testing.T) {
	_, env := startSandbox(t)
	tests := []struct {
		name string
		args []string
		code int
		kind string
	}{
		{"default timeout", []string{"o-typo", "--unknown-timeout", "100ms", "--poll-interval", "5ms"}, cmdutil.ExitRefused, cmdutil.KindNotFound},
		{"timeout before the window", []string{"o-typo", "--unknown-timeout", "10m", "--timeout", "100ms", "--poll-interval", "5ms"},
			cmdutil.ExitUnknown, cmdutil.KindTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runWait(t, context.Background(), env, nil, tt.args...)
			assert.Equal(t, tt.code, r.code, "%v", r.err)
			assert.Equal(t, tt.kind, r.kind)
		})
	}
}
