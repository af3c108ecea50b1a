package retry

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestPollDelay(t *testing.T) {
	s := time.Second
	zero := func() float64 { return 0 }
	half := func() float64 { return 0.5 }
	almostOne := func() float64 { return math.Nextafter(1, 0) }
	tests := []struct {
		name     string
		n        int
		min, max time.Duration
		rnd      func() float64
		want     time.Duration
	}{
		{"first poll at min, no room to jitter", 1, 2 * s, 10 * s, zero, 2 * s},
		{"second doubles, jitter floor is min", 2, 2 * s, 10 * s, zero, 2 * s},
		{"second doubles, jitter top", 2, 2 * s, 10 * s, almostOne, 4*s - 1},
		{"third, halfway", 3, 2 * s, 10 * s, half, 6 * s},
		{"capped at max", 10, 2 * s, 10 * s, zero, 5 * s},
		{"capped at max, top", 10, 2 * s, 10 * s, almostOne, 10*s - 1},
		{"doubling would pass max", 3, 3 * s, 10 * s, zero, 5 * s},
		{"min equals max: no jitter", 5, 4 * s, 4 * s, almostOne, 4 * s},
		{"huge max never overflows", 200, s, math.MaxInt64, zero, math.MaxInt64 / 2},
		{"n below one acts as the first", 0, 2 * s, 10 * s, almostOne, 2 * s},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, PollDelay(tt.n, tt.min, tt.max, tt.rnd))
		})
	}
	d := PollDelay(3, s, 8*s, nil)
	assert.True(t, d >= 2*s && d <= 4*s, "default jitter source: %v", d)
}

func FuzzPollDelay(f *testing.F) {
	f.Add(3, int64(time.Second), int64(10*time.Second), 0.5)
	f.Fuzz(func(t *testing.T, n int, minNs, maxNs int64, r float64) {
		minD, maxD := time.Duration(minNs), time.Duration(maxNs)
		if minD <= 0 || maxD < minD || n > 1000 || !(r >= 0 && r < 1) {
			return
		}
		d := PollDelay(n, minD, maxD, func() float64 { return r })
		if d < minD || d > maxD {
			t.Fatalf("PollDelay(%d, %v, %v) = %v, outside [min, max]", n, minD, maxD, d)
		}
	})
}

// TestDelayBoundaries pins the boundaries mutation testing found untested:
// a ceiling that equals maxDelay only when doubled exactly, an odd maxDelay
// at the halving point, and a maxDelay that would overflow if doubled.
func TestDelayBoundaries(t *testing.T) {
	one := func() float64 { return 1 }
	zero := func() float64 { return 0 }
	assert.Equal(t, time.Duration(6), Backoff(2, 3, 7, one), "3<<1 fits under 7")
	assert.Equal(t, time.Duration(6), PollDelay(2, 3, 7, one), "3 doubled is 6, not the odd max 7")
	assert.Equal(t, time.Second, PollDelay(2, time.Second, math.MaxInt64, zero), "one doubling under a huge max")
}
