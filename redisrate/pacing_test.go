package redisrate_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/clock"
	"github.com/upicollect/upicollect-go/redisrate"
	"github.com/upicollect/upicollect-go/redisrate/redistest"
)

// The tests in this file run the limiter on a clock.Manual. Redis keeps the
// limit on its own clock, which moves by milliseconds while a test runs;
// the callers' slots and sleeps are on the manual clock, which moves only
// when the test advances it. Each test picks intervals far longer than
// Redis's clock moves, and counts sleepers and Redis's script calls: no
// assertion reads the wall clock.

// onManualClock returns the limiter New makes, on a manual clock that
// reads start.
func onManualClock(rdb *redis.Client, key string, perSecond float64, burst int, start time.Time) (upicollect.RateLimiter, *clock.Manual) {
	m := clock.NewManual(start)
	l := redisrate.New(rdb, key, perSecond, burst)
	redisrate.UseClock(l, m)
	return l, m
}

// countReservations counts the reservations Redis runs from now on. It
// first has Redis load the script (a reservation on another key), so that
// the first reservation counted is one call, not a refused EVALSHA and an
// EVAL.
func countReservations(ctx context.Context, t testing.TB, rdb *redis.Client) func() int {
	require.NoError(t, redisrate.New(rdb, t.Name()+"-load", 1, 1).Wait(ctx))
	before := scriptCalls(t, rdb)
	return func() int { return scriptCalls(t, rdb) - before }
}

// TestSlotsComeOneIntervalApart: callers queued behind a reservation share
// the next one, which asks Redis for a slot for each of them; the slots it
// brings back are one interval apart, so each advance of one interval
// wakes exactly one caller. (Redis's clock may move up to one interval,
// 200ms, between the two reservations: the first slot is then still
// ahead.)
func TestSlotsComeOneIntervalApart(t *testing.T) {
	const callers = 5
	const interval = 200 * time.Millisecond // 5/s: five slots within reach
	p, rdb := proxied(t, redistest.Start(t), 0)
	l, m := onManualClock(rdb, "spaced", 5, 1, time.Now())
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	reservations := countReservations(ctx, t, rdb)

	p.Pause()
	returned := make(chan error, callers)
	wait := func() { returned <- l.Wait(ctx) }
	go wait()
	select {
	case <-p.Held():
	case <-ctx.Done():
		t.Fatal("no reservation reached the stalled Redis")
	}
	for i := 1; i < callers; i++ {
		go wait()
	}
	require.Eventually(t, func() bool { return redisrate.Waiting(l) == callers }, waitBound, time.Millisecond,
		"every caller queued")
	p.Resume()

	// The first reservation asked for the first caller's slot only: the
	// burst's, free now. The second asked for the four others' slots.
	require.NoError(t, <-returned, "the burst's slot")
	require.NoError(t, m.WaitForSleepers(ctx, callers-1), "the others sleep until their slots")
	assert.Equal(t, 2, reservations(), "one reservation for the four queued callers")
	assert.Zero(t, redisrate.Waiting(l), "every caller holds a slot")
	assert.Zero(t, redisrate.Reserved(l), "no slot was reserved beyond the callers")
	for sleeping := callers - 2; sleeping >= 0; sleeping-- {
		m.Advance(interval)
		assert.Equal(t, sleeping, m.Sleepers(), "one interval wakes one caller")
		require.NoError(t, <-returned)
	}
	assert.Equal(t, 2, reservations(), "no reservation since")
}

// TestNoSlotWithinReach: when Redis has no slot within the reach of a
// reservation (a second), it says when the next one comes; the caller
// sleeps until that moment is within reach and asks again then, not
// before. A caller whose deadline comes before that moment leaves at once.
// (The test's context outlasts the slots, 10s and 19s ahead on the
// manual clock, which starts at the wall clock's time.)
func TestNoSlotWithinReach(t *testing.T) {
	rdb := startRedis(t)
	l, m := onManualClock(rdb, "unreached", 0.1, 1, time.Now()) // a slot every 10s
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	reservations := countReservations(ctx, t, rdb)
	require.NoError(t, l.Wait(ctx), "the burst's slot")

	// The next slot is 10s away (less the milliseconds Redis's clock
	// moved): the caller sleeps until 1s before it, about 9s.
	returned := make(chan error, 1)
	go func() { returned <- l.Wait(ctx) }()
	require.NoError(t, m.WaitForSleepers(ctx, 1))
	assert.Equal(t, 2, reservations(), "the burst's and the caller's")
	assert.Equal(t, 1, redisrate.Waiting(l), "the caller waits without a slot")

	t.Run("a deadline before the next slot", func(t *testing.T) {
		dctx, dcancel := context.WithDeadline(ctx, m.Now().Add(5*time.Second))
		defer dcancel()
		require.ErrorIs(t, l.Wait(dctx), clock.ErrPastDeadline)
		assert.Equal(t, 2, reservations(), "no round trip for it")
		assert.Equal(t, 1, redisrate.Waiting(l), "it waits no more")
	})

	m.Advance(8 * time.Second)
	assert.Equal(t, 1, m.Sleepers(), "asleep 8s later: the slot is not within reach yet")
	m.Advance(time.Second)
	assert.Zero(t, m.Sleepers(), "9s later the slot is within reach")
	// Redis's clock moved by milliseconds only: the slot is still about
	// 10s away on it, so the caller is told so again and sleeps again.
	require.NoError(t, m.WaitForSleepers(ctx, 1))
	assert.Equal(t, 3, reservations(), "asked again once")

	cancel()
	require.ErrorIs(t, <-returned, context.Canceled)
	assert.Zero(t, redisrate.Waiting(l))
}

// TestASlotDueNowIsTaken: a slot whose moment has come is used at once,
// whatever the caller's deadline; only a wait for a later slot is checked
// against it.
func TestASlotDueNowIsTaken(t *testing.T) {
	rdb := startRedis(t)
	// The manual clock reads an hour ahead of the wall clock, so that a
	// deadline 30s away on the wall clock is before every slot's moment.
	l, _ := onManualClock(rdb, "due-now", 1000, 1, time.Now().Add(time.Hour))
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	require.NoError(t, l.Wait(ctx), "the burst's slot, due at the reservation's arrival")
}
