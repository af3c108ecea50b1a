package ratelimit

import (
	"context"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/internal/clock"
)

// frozenClock records sleeps without moving time, so concurrent waiters all
// reserve at the same instant and their spacing is exactly observable.
type frozenClock struct {
	now    time.Time
	mu     sync.Mutex
	sleeps []time.Duration
}

func (c *frozenClock) Now() time.Time { return c.now }

func (c *frozenClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	return ctx.Err()
}

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
			wantSleeps: []time.Duration{333333333, 333333334},
		},
		{
			name: "tiny rate clamps instead of overflowing", perSecond: 1e-300, burst: 1, waits: 2,
			wantSleeps: []time.Duration{maxDuration},
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

func TestLimiterConcurrentWaitersAreSpaced(t *testing.T) {
	const n = 20
	clock := &frozenClock{now: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := New(10, 2, clock)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, l.Wait(context.Background()))
		}()
	}
	wg.Wait()

	// Two burst tokens are free; the rest reserve consecutive 100ms slots.
	var want []time.Duration
	for i := 1; i <= n-2; i++ {
		want = append(want, time.Duration(i)*100*time.Millisecond)
	}
	got := clock.sleeps
	slices.Sort(got)
	assert.Equal(t, want, got)
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

func TestLimiterDeadlineGivesBackToken(t *testing.T) {
	// Start at wall time so the 1h deadline cannot pass for real during the
	// test; fake time reaches it instantly.
	start := time.Now()
	clock := clock.NewFake(start)
	l := New(1.0/7200, 1, clock) // one token per 2h
	require.NoError(t, l.Wait(context.Background()))

	ctx, cancel := context.WithDeadline(context.Background(), start.Add(time.Hour))
	defer cancel()
	err := l.Wait(ctx)
	assert.Equal(t, context.DeadlineExceeded, err)
	assert.True(t, clock.Now().Equal(start.Add(time.Hour)), "fake clock stops at the deadline")

	// Given back: the next token is due at start+2h, one hour from now.
	// Had it been kept, the next waiter would wait 3h.
	require.NoError(t, l.Wait(context.Background()))
	assert.Equal(t, []time.Duration{2 * time.Hour, time.Hour}, clock.Sleeps())
}

func TestLimiterCancel(t *testing.T) {
	// Burst 1 at 1 token/s, all reserved at t0: A acts at t0 (no wait),
	// B at t0+1s, C at t0+2s. Cancelling in the given order, then reserving
	// once more, shows which tokens came back.
	tests := []struct {
		name     string
		cancel   []string
		elapsed  time.Duration // clock advance before cancelling
		wantNext time.Duration // wait of a fresh reservation after the cancels
	}{
		{name: "none", wantNext: 3 * time.Second},
		{name: "latest gives back", cancel: []string{"C"}, wantNext: 2 * time.Second},
		{name: "latest then previous give back", cancel: []string{"C", "B"}, wantNext: time.Second},
		{name: "earlier with later scheduled keeps it", cancel: []string{"B"}, wantNext: 3 * time.Second},
		{name: "earlier first, then latest", cancel: []string{"B", "C"}, wantNext: 2 * time.Second},
		{name: "slot already reached", cancel: []string{"B"}, elapsed: time.Second, wantNext: 2 * time.Second},
		{name: "latest midway gives back", cancel: []string{"C"}, elapsed: 1500 * time.Millisecond, wantNext: 500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := clock.NewFake(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
			l := New(1, 1, clock)
			acts := map[string]time.Time{}
			for _, name := range []string{"A", "B", "C"} {
				acts[name], _ = l.reserve()
			}
			clock.Advance(tt.elapsed)
			for _, name := range tt.cancel {
				l.cancel(acts[name])
			}
			_, wait := l.reserve()
			assert.Equal(t, tt.wantNext, wait)
		})
	}
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
