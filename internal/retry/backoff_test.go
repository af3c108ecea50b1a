package retry

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fixed(f float64) func() float64 { return func() float64 { return f } }

func TestBackoff(t *testing.T) {
	const (
		base = 100 * time.Millisecond
		maxD = 10 * time.Second
	)
	belowOne := math.Nextafter(1, 0)

	tests := []struct {
		name     string
		retry    int
		base     time.Duration
		maxDelay time.Duration
		rnd      float64
		want     time.Duration
	}{
		{name: "first retry, half", retry: 1, base: base, maxDelay: maxD, rnd: 0.5, want: 50 * time.Millisecond},
		{name: "second retry doubles", retry: 2, base: base, maxDelay: maxD, rnd: 0.5, want: 100 * time.Millisecond},
		{name: "third retry quadruples", retry: 3, base: base, maxDelay: maxD, rnd: 0.5, want: 200 * time.Millisecond},
		{name: "zero jitter", retry: 3, base: base, maxDelay: maxD, rnd: 0, want: 0},
		{name: "capped at max", retry: 10, base: base, maxDelay: maxD, rnd: 0.5, want: 5 * time.Second},
		{name: "exactly reaching max", retry: 2, base: 5 * time.Second, maxDelay: maxD, rnd: 0.5, want: 5 * time.Second},
		{name: "retry 63 no overflow", retry: 63, base: base, maxDelay: maxD, rnd: 0.5, want: 5 * time.Second},
		{name: "retry 64 no overflow", retry: 64, base: base, maxDelay: maxD, rnd: 0.5, want: 5 * time.Second},
		{name: "huge retry no overflow", retry: math.MaxInt, base: base, maxDelay: maxD, rnd: 0.5, want: 5 * time.Second},
		{name: "huge base and max", retry: 40, base: maxDuration / 2, maxDelay: maxDuration, rnd: 0, want: 0},
		{name: "base above max", retry: 1, base: time.Minute, maxDelay: maxD, rnd: 0.5, want: 5 * time.Second},
		{name: "retry 0 treated as 1", retry: 0, base: base, maxDelay: maxD, rnd: 0.5, want: 50 * time.Millisecond},
		{name: "negative retry treated as 1", retry: -7, base: base, maxDelay: maxD, rnd: 0.5, want: 50 * time.Millisecond},
		{name: "zero base", retry: 3, base: 0, maxDelay: maxD, rnd: 0.5, want: 0},
		{name: "negative base", retry: 3, base: -base, maxDelay: maxD, rnd: 0.5, want: 0},
		{name: "zero max", retry: 3, base: base, maxDelay: 0, rnd: 0.5, want: 0},
		{name: "rnd above range clamps to ceiling", retry: 1, base: base, maxDelay: maxD, rnd: 1.5, want: base},
		{name: "rnd negative clamps to zero", retry: 1, base: base, maxDelay: maxD, rnd: -0.5, want: 0},
		{name: "rnd NaN gives zero", retry: 1, base: base, maxDelay: maxD, rnd: math.NaN(), want: 0},
		{name: "rnd just below one", retry: 1, base: 8, maxDelay: maxD, rnd: belowOne, want: 7},
		// float64(maxDuration) rounds up to 2^63, which no Duration holds: an
		// rnd of exactly 1 must return the ceiling, not convert that product.
		{name: "rnd one at the largest ceiling", retry: 1, base: maxDuration, maxDelay: maxDuration, rnd: 1, want: maxDuration},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Backoff(tt.retry, tt.base, tt.maxDelay, fixed(tt.rnd)))
		})
	}
}

// The product f*float64(ceiling) can round above ceiling near MaxInt64; the
// result must still be within range.
func TestBackoffNeverExceedsCeiling(t *testing.T) {
	belowOne := math.Nextafter(1, 0)
	for _, ceiling := range []time.Duration{1, 3, 1<<53 + 1, maxDuration - 1, maxDuration} {
		got := Backoff(1, ceiling, ceiling, fixed(belowOne))
		assert.LessOrEqual(t, got, ceiling, "ceiling %d", ceiling)
		assert.GreaterOrEqual(t, got, time.Duration(0), "ceiling %d", ceiling)
	}
}

func TestBackoffDefaultSourceIsUniform(t *testing.T) {
	const (
		n       = 10000
		ceiling = 800 * time.Millisecond
	)
	var sum time.Duration
	seen := map[time.Duration]bool{}
	for range n {
		d := Backoff(4, 100*time.Millisecond, time.Minute, nil)
		require.GreaterOrEqual(t, d, time.Duration(0))
		require.LessOrEqual(t, d, ceiling)
		sum += d
		seen[d] = true
	}
	assert.Greater(t, len(seen), n/2, "delays should be jittered")
	// The mean of n uniform samples has a standard error of ~0.3% of the
	// ceiling here, so 5% cannot fail by chance but catches a biased source.
	assert.InDelta(t, float64(ceiling/2), float64(sum/n), float64(ceiling)*0.05)
}
