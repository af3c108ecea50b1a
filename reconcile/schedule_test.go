package reconcile

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func defaultPolicy() policy { return defaultOptions().policy }

// checksFrom walks p from a check at first of an order created at
// created, in state st throughout, and returns the times of every later
// check until the order is done or until is reached.
func checksFrom(p policy, created, first time.Time, st State, until time.Time) []time.Time {
	var out []time.Time
	at, _ := p.nextCheck(created, first, st)
	for !at.After(until) {
		out = append(out, at)
		next, ok := p.nextCheck(created, at, st)
		if !ok {
			break
		}
		at = next
	}
	return out
}

func TestNextCheckFollowsTheSchedule(t *testing.T) {
	p := defaultPolicy()
	for _, tc := range []struct {
		name string
		age  time.Duration
		st   State
		want time.Duration // from now; -1 for never again
	}{
		{"first minute: every 10s", 0, Pending, 10 * time.Second},
		{"at 50s", 50 * time.Second, Pending, 10 * time.Second},
		{"at 1 min: every 30s", time.Minute, Pending, 30 * time.Second},
		{"pending just before the payer window's end: checked at its end", 14*time.Minute + 50*time.Second, Pending, 10 * time.Second},
		{"expired at the window's end: every 15 min", 15 * time.Minute, Expired, 15 * time.Minute},
		{"failed at 2 min: as past the payer window", 2 * time.Minute, Failed, 15 * time.Minute},
		{"at 1h: hourly", time.Hour, Failed, time.Hour},
		{"at 6h: every 3h", 6 * time.Hour, Expired, 3 * time.Hour},
		{"at 24h: every 8h", 24 * time.Hour, Expired, 8 * time.Hour},
		{"at 70h: a last check at the late window's end", 70 * time.Hour, Expired, 2 * time.Hour},
		{"at the late window's end: done", 72 * time.Hour, Expired, -1},
		{"paid: done", time.Minute, Paid, -1},
		{"late paid: done", 30 * time.Hour, LatePaid, -1},
		{"mismatch: done", time.Minute, Mismatch, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := t0.Add(tc.age)
			next, ok := p.nextCheck(t0, now, tc.st)
			if tc.want < 0 {
				assert.False(t, ok)
				assert.True(t, next.IsZero())
				return
			}
			require.True(t, ok)
			assert.Equal(t, tc.want, next.Sub(now))
		})
	}
}

// TestDefaultScheduleCounts holds the figures the documentation's table
// gives: 54 checks for an order never paid, none more than 30s apart in the
// payer's window, and the last one at the end of the late window.
func TestDefaultScheduleCounts(t *testing.T) {
	p := defaultPolicy()
	pending := append([]time.Time{p.firstCheck(t0)}, checksFrom(p, t0, p.firstCheck(t0), Pending, t0.Add(15*time.Minute))...)
	require.Len(t, pending, 34)
	assert.Equal(t, t0.Add(15*time.Minute), pending[len(pending)-1], "the payer window's end is checked")
	for i := 1; i < len(pending); i++ {
		assert.LessOrEqual(t, pending[i].Sub(pending[i-1]), 30*time.Second)
	}
	// Reported Expired at the window's end, then checked sparsely.
	late := checksFrom(p, t0, t0.Add(15*time.Minute), Expired, t0.Add(100*time.Hour))
	assert.Len(t, late, 20, "after the payer's window")
	assert.Equal(t, t0.Add(72*time.Hour), late[len(late)-1])
	assert.Equal(t, 54, len(pending)+len(late))
}

func TestScheduleValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Schedule
		msg  string
	}{
		{"empty", nil, "empty"},
		{"zero interval", Schedule{{Until: time.Hour}}, "Every must be positive"},
		{"out of order", Schedule{{time.Hour, time.Minute}, {time.Minute, time.Second}}, "must exceed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.ErrorContains(t, tc.s.validate(), tc.msg)
		})
	}
	assert.NoError(t, DefaultSchedule().validate())
	// Beyond the last band, its interval goes on.
	assert.Equal(t, time.Minute, Schedule{{time.Hour, time.Minute}}.every(5*time.Hour))
}
