package reconcile

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestBackoff(t *testing.T) {
	const s = 5 * time.Second
	for _, tc := range []struct {
		failures        int
		interval, limit time.Duration
		want            time.Duration
	}{
		{0, s, time.Minute, s},
		{1, s, time.Minute, s},
		{2, s, time.Minute, 2 * s},
		{3, s, time.Minute, 4 * s},
		{4, s, time.Minute, 8 * s},
		{5, s, time.Minute, time.Minute}, // 80 s capped
		{1000, s, time.Minute, time.Minute},
		{1000, s, DefaultMaxBackoff, DefaultMaxBackoff},
		{3, s, time.Second, s}, // never sooner than the interval
		{2, time.Minute, 90 * time.Second, 90 * time.Second},
	} {
		assert.Equal(t, tc.want, backoff(tc.failures, tc.interval, tc.limit), "%d failures, %v, cap %v", tc.failures, tc.interval, tc.limit)
	}
}

func TestRunWait(t *testing.T) {
	const limit = 5 * time.Second
	for _, tc := range []struct {
		next time.Time
		want time.Duration
	}{
		{time.Time{}, limit},
		{t0, time.Second}, // due now: not back to back
		{t0.Add(-time.Hour), time.Second},
		{t0.Add(time.Second), time.Second},
		{t0.Add(2 * time.Second), 2 * time.Second},
		{t0.Add(limit), limit},
		{t0.Add(time.Hour), limit},
	} {
		assert.Equal(t, tc.want, runWait(t0, tc.next, limit), "next %v", tc.next)
	}
}
