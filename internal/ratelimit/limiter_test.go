package ratelimit

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	pubclock "github.com/upicollect/upicollect-go/clock"
	"github.com/upicollect/upicollect-go/internal/clock"
)

func TestNewLimiterUnlimited(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, perSecond := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1)} {
		l := New(perSecond, 10, clock.NewFake(time.Time{}))
		assert.Nil(t, l, "perSecond %v", perSecond)
		assert.NoError(t, l.Wait(cancelled), "nil limiter never blocks")
	}
}

func TestNewLimiterDefaultsToRealClock(t *testing.T) {
	l := New(1, 1, nil)
	require.NotNil(t, l)
	assert.Equal(t, clock.Real, l.clock)
	assert.NoError(t, l.Wait(context.Background()), "first token is free: no wall time")
}

func TestLimiterSequential(t *testing.T) {
	tests := []struct {
		name      string
		perSecond float64
		burst     int
		// idle is advanced before each wait, simulating time between calls.
		idle       time.Duration
		waits      int
		wantSleeps []time.Duration
	}{
		{name: "burst is free", perSecond: 10, burst: 3, waits: 3, wantSleeps: nil},
		{
			name: "then spaced at the rate", perSecond: 10, burst: 2, waits: 5,
			wantSleeps: []time.Duration{100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond},
		},
		{
			name: "burst below one acts as one", perSecond: 2, burst: 0, waits: 3,
			wantSleeps: []time.Duration{500 * time.Millisecond, 500 * time.Millisecond},
		},
		{name: "idle time refills", perSecond: 10, burst: 1, idle: 100 * time.Millisecond, waits: 4, wantSleeps: nil},
		{
			name: "partial refill shortens the wait", perSecond: 10, burst: 1, idle: 40 * time.Millisecond, waits: 3,
			wantSleeps: []time.Duration{60 * time.Millisecond, 60 * time.Millisecond},
		},
		{
			// Rounding does not accumulate: the second wait makes up the
			// nanosecond the first one rounded away.
			name: "fractional rate", perSecond: 3, burst: 1, waits: 3,
			wantSleeps: []time.Duration{333333333, 333333333},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := clock.NewFake(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
			l := New(tt.perSecond, tt.burst, clock)
			require.NotNil(t, l)
			for i := range tt.waits {
				if i > 0 {
					clock.Advance(tt.idle)
				}
				require.NoError(t, l.Wait(context.Background()), "wait %d", i)
			}
			assert.Equal(t, tt.wantSleeps, clock.Sleeps())
		})
	}
}

func TestLimiterRefillCapsAtBurst(t *testing.T) {
	clock := clock.NewFake(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	l := New(10, 3, clock)
	for range 3 {
		require.NoError(t, l.Wait(context.Background()))
	}
	clock.Advance(time.Hour) // earns far more than burst
	for range 4 {
		require.NoError(t, l.Wait(context.Background()))
	}
	assert.Equal(t, []time.Duration{100 * time.Millisecond}, clock.Sleeps(), "only burst tokens were banked")
}

func TestLimiterClockSteppingBackMintsNothing(t *testing.T) {
	clock := clock.NewFake(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	l := New(10, 1, clock)
	require.NoError(t, l.Wait(context.Background()))
	clock.Advance(-time.Hour)
	require.NoError(t, l.Wait(context.Background()))
	assert.Equal(t, []time.Duration{100 * time.Millisecond}, clock.Sleeps())
}

func TestLimiterWaitWithDoneContextTakesNoToken(t *testing.T) {
	clock := clock.NewFake(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	l := New(1, 1, clock)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.Equal(t, context.Canceled, l.Wait(ctx))
	require.NoError(t, l.Wait(context.Background()))
	assert.Empty(t, clock.Sleeps(), "the burst token was still there")
}

func BenchmarkLimiterWait(b *testing.B) {
	// A rate and burst high enough that Wait never sleeps: this measures the
	// reservation overhead every call of the client pays.
	ctx := context.Background()
	b.Run("serial", func(b *testing.B) {
		l := New(1e12, math.MaxInt32, clock.Real)
		for range b.N {
			if err := l.Wait(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		l := New(1e12, math.MaxInt32, clock.Real)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := l.Wait(ctx); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("fake clock, always waiting", func(b *testing.B) {
		// Every call reserves a future slot and sleeps on the fake clock.
		l := New(1e6, 1, discardClock{clock.NewFake(time.Time{})})
		for range b.N {
			if err := l.Wait(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// discardClock is a clock.Fake whose sleeps advance time but are not recorded,
// so long benchmarks do not grow memory.
type discardClock struct{ *clock.Fake }

func (c discardClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.Advance(d)
	return nil
}

// testBound bounds every wait in these tests, so that a regression fails
// instead of hanging.
const testBound = 10 * time.Second

func TestLimiterDeadlineBeforeTurnTakesNoToken(t *testing.T) {
	start := time.Now() // wall-clock start: the ctx deadline is real time
	clk := clock.NewFake(start)
	l := New(1.0/7200, 1, clk) // one token per 2h
	require.NoError(t, l.Wait(context.Background()))

	ctx, cancel := context.WithDeadline(context.Background(), start.Add(time.Hour))
	defer cancel()
	err := l.Wait(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, pubclock.ErrPastDeadline, err, "the one deadline error")
	assert.Empty(t, clk.Sleeps(), "no sleep: the turn is after the deadline")

	// Nothing was reserved: the next caller waits the 2h of its own turn,
	// not 4h behind an abandoned reservation.
	require.NoError(t, l.Wait(context.Background()))
	assert.Equal(t, []time.Duration{2 * time.Hour}, clk.Sleeps())
}

// storm queues n waiters behind a spent bucket of rate 10/s, burst 1,
// cancels them all and returns how much clock time one more Wait then
// needs: the cost that abandoned waits leave behind.
func storm(t *testing.T, n int) time.Duration {
	t.Helper()
	bound, cancelBound := context.WithTimeout(context.Background(), testBound)
	defer cancelBound()
	clk := clock.NewManual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	l := New(10, 1, clk)
	require.NoError(t, l.Wait(bound), "the burst token")

	ctx, cancel := context.WithCancel(bound)
	errs := make(chan error, n)
	for range n {
		go func() { errs <- l.Wait(ctx) }()
	}
	// The head sleeps on the clock; the others queue behind it.
	require.NoError(t, clk.WaitForSleepers(bound, 1))
	cancel()
	for range n {
		select {
		case err := <-errs:
			require.ErrorIs(t, err, context.Canceled)
		case <-bound.Done():
			t.Fatal("a cancelled waiter did not return")
		}
	}

	start := clk.Now()
	done := make(chan error, 1)
	go func() { done <- l.Wait(bound) }()
	for {
		// Advance only while the caller sleeps, in 10ms steps.
		if err, finished := sleepOrDone(t, bound, clk, done); finished {
			require.NoError(t, err)
			return clk.Now().Sub(start)
		}
		clk.Advance(10 * time.Millisecond)
		require.Less(t, clk.Now().Sub(start), time.Hour, "the next call is stuck behind abandoned waits")
	}
}

// sleepOrDone blocks until a waiter sleeps on clk (finished false) or one
// returns on done (finished true, with its error), bounded by bound.
func sleepOrDone(t *testing.T, bound context.Context, clk *clock.Manual, done <-chan error) (err error, finished bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(bound)
	defer cancel()
	sleeping := make(chan struct{})
	go func() {
		if clk.WaitForSleepers(ctx, 1) == nil {
			close(sleeping)
		}
	}()
	select {
	case err := <-done:
		return err, true
	case <-sleeping:
		return nil, false
	case <-bound.Done():
		t.Fatal("neither sleeping nor done")
		return nil, false
	}
}

func TestLimiterCancellationStorm(t *testing.T) {
	for _, n := range []int{200, 2000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			// One token interval (100ms) at most: abandoned waits left nothing behind.
			assert.LessOrEqual(t, storm(t, n), 100*time.Millisecond)
		})
	}
}

func TestLimiterConcurrentRate(t *testing.T) {
	// 50 concurrent waiters at 10/s with burst 5: 45 must wait, one token
	// interval each, so the clock moves exactly 4.5s.
	bound, cancel := context.WithTimeout(context.Background(), testBound)
	defer cancel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clock.NewManual(start)
	l := New(10, 5, clk)
	const n = 50
	done := make(chan error, n)
	for range n {
		go func() { done <- l.Wait(bound) }()
	}
	for served := 0; served < n; {
		if err, finished := sleepOrDone(t, bound, clk, done); finished {
			require.NoError(t, err)
			served++
			continue
		}
		clk.Advance(100 * time.Millisecond)
	}
	assert.Equal(t, 4500*time.Millisecond, clk.Now().Sub(start))
}
