package redisrate

import (
	"math"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLimitOf: a float rate becomes redis_rate's integer rate per period
// exactly, to six decimal places, with the shortest power-of-ten period.
func TestLimitOf(t *testing.T) {
	for _, tt := range []struct {
		perSecond float64
		want      redis_rate.Limit
	}{
		{50, redis_rate.Limit{Rate: 50, Period: time.Second, Burst: 3}},
		{1, redis_rate.Limit{Rate: 1, Period: time.Second, Burst: 3}},
		{0.5, redis_rate.Limit{Rate: 5, Period: 10 * time.Second, Burst: 3}},
		{33.3, redis_rate.Limit{Rate: 333, Period: 10 * time.Second, Burst: 3}},
		{0.001, redis_rate.Limit{Rate: 1, Period: 1000 * time.Second, Burst: 3}},
		{2.125, redis_rate.Limit{Rate: 2125, Period: 1000 * time.Second, Burst: 3}},
		{0.000001, redis_rate.Limit{Rate: 1, Period: 1_000_000 * time.Second, Burst: 3}},
		{1e6, redis_rate.Limit{Rate: 1_000_000, Period: time.Second, Burst: 3}},
		{math.MaxInt32, redis_rate.Limit{Rate: math.MaxInt32, Period: time.Second, Burst: 3}},     // the largest allowed
		{12.3456789, redis_rate.Limit{Rate: 12345679, Period: 1_000_000 * time.Second, Burst: 3}}, // six places
	} {
		got, err := limitOf(tt.perSecond, 3)
		require.NoError(t, err, "%v", tt.perSecond)
		assert.Equal(t, tt.want, got, "%v", tt.perSecond)
		// The emission interval redis_rate computes is the one asked for.
		interval := got.Period.Seconds() / float64(got.Rate)
		assert.InEpsilon(t, 1/tt.perSecond, interval, 1e-6, "%v", tt.perSecond)
	}
}

func TestLimitOfRefuses(t *testing.T) {
	for _, tt := range []struct {
		perSecond float64
		burst     int
		want      string
	}{
		{0, 1, "perSecond must be positive"},
		{-1, 1, "perSecond must be positive"},
		{math.NaN(), 1, "perSecond must be positive"},
		{math.Inf(1), 1, "perSecond must be positive"},
		{1e-7, 1, "below one request"},
		{1e10, 1, "too large"},
		{math.MaxInt32 + 1, 1, "too large"},
		{1, 0, "burst must be at least 1"},
	} {
		_, err := limitOf(tt.perSecond, tt.burst)
		require.ErrorIs(t, err, ErrInvalidLimit)
		assert.Contains(t, err.Error(), tt.want)
	}
}

// TestTakeSkipsStaleSlots: a slot given back is taken in time order, and
// one whose moment passed by more than the grace is dropped, not used late
// beside the slots after it.
func TestTakeSkipsStaleSlots(t *testing.T) {
	now := time.Now()
	l := &Limiter{interval: 5 * time.Millisecond}
	l.slots = []time.Time{now.Add(-time.Second), now.Add(-minGrace - time.Millisecond), now.Add(-minGrace), now.Add(time.Second)}
	at, ok := l.takeLocked(now)
	require.True(t, ok)
	assert.Equal(t, now.Add(-minGrace), at, "the first slot within the grace")
	at, ok = l.takeLocked(now)
	require.True(t, ok)
	assert.Equal(t, now.Add(time.Second), at)
	_, ok = l.takeLocked(now)
	assert.False(t, ok)

	// A slow limit's grace is its interval.
	l = &Limiter{interval: time.Minute, slots: []time.Time{now.Add(-30 * time.Second)}}
	_, ok = l.takeLocked(now)
	assert.True(t, ok)
	l.giveBack(now.Add(2 * time.Second))
	l.giveBack(now.Add(time.Second))
	assert.Equal(t, []time.Time{now.Add(time.Second), now.Add(2 * time.Second)}, l.slots, "given back in order")
}
