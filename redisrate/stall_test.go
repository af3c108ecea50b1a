package redisrate_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/redisrate"
	"github.com/upicollect/upicollect-go/redisrate/redistest"
)

// proxied returns a proxy in front of s that adds delay each way, and a
// client that goes through it. The client has no read timeout of its own:
// only a context can end a wait on a Redis that stalls.
func proxied(tb testing.TB, s *redistest.Server, delay time.Duration) (*redistest.Proxy, *redis.Client) {
	tb.Helper()
	p, err := redistest.NewProxy(s.Addr, delay)
	require.NoError(tb, err)
	tb.Cleanup(p.Close)
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr, ReadTimeout: -1})
	tb.Cleanup(func() { _ = rdb.Close() })
	return p, rdb
}

// TestWaitEndsWithItsContextWhileRedisStalls: go-redis ends a command by
// its own ReadTimeout, not by the context's deadline (here it has none); a
// Wait whose context ends while Redis does not answer returns then with
// the context's error, before Redis answers again. Both the caller whose
// reservation is in flight and one queued behind it return.
func TestWaitEndsWithItsContextWhileRedisStalls(t *testing.T) {
	s := redistest.Start(t)
	bound, cancelBound := context.WithTimeout(context.Background(), waitBound)
	defer cancelBound()
	for _, tt := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 500*time.Millisecond)
		}, context.DeadlineExceeded},
		{"cancel", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, context.Canceled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, rdb := proxied(t, s, 0)
			l := redisrate.New(rdb, "stall-"+tt.name, 100, 10)
			p.Pause()
			defer p.Resume()
			ctx, cancel := tt.ctx()
			defer cancel()
			errs := make(chan error, 2)
			go func() { errs <- l.Wait(ctx) }()
			select {
			case <-p.Held():
			case <-bound.Done():
				t.Fatal("no command reached the stalled Redis")
			}
			go func() { errs <- l.Wait(ctx) }() // queued behind the reservation in flight
			if tt.want == context.Canceled {
				cancel()
			}
			for i := 0; i < 2; i++ {
				select {
				case err := <-errs:
					require.ErrorIs(t, err, tt.want)
					assert.NotErrorIs(t, err, redisrate.ErrUnavailable)
				case <-bound.Done():
					t.Fatal("Wait did not end with its context while Redis stalled")
				}
			}
			assert.Zero(t, redisrate.Waiting(l), "both callers left")
			// Only after this does Redis answer again (the deferred Resume).
		})
	}
}

// scriptCalls is how many times Redis ran a script (EVALSHA and EVAL):
// the limiter's reservations, and a script load's refused EVALSHA.
func scriptCalls(t testing.TB, rdb *redis.Client) int {
	return commandCalls(t, rdb, "evalsha") + commandCalls(t, rdb, "eval")
}

// commandCalls is how many times Redis ran cmd so far (INFO commandstats).
func commandCalls(t testing.TB, rdb *redis.Client, cmd string) int {
	t.Helper()
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	require.NoError(t, err)
	var n int
	for _, line := range splitLines(info) {
		var calls int
		if _, err := fmt.Sscanf(line, "cmdstat_"+cmd+":calls=%d", &calls); err == nil {
			n += calls
		}
	}
	return n
}

func splitLines(s string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			lines = append(lines, s[start:i])
			start = i + 1
		}
	}
	return append(lines, s[start:])
}

// TestWaitersShareRoundTrips: callers waiting together are served by few
// reservations, not one round trip each: while one reservation is held by
// a stalled Redis, 63 more callers queue; once it answers, one more
// reservation serves them all. Counted by Redis itself.
func TestWaitersShareRoundTrips(t *testing.T) {
	const callers = 64
	p, rdb := proxied(t, redistest.Start(t), 0)
	l := redisrate.New(rdb, "share", 1000, 100) // room for every caller within a second
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	require.NoError(t, rdb.Ping(ctx).Err())
	before := scriptCalls(t, rdb)

	p.Pause()
	var done atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	start := func() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Wait(ctx); err != nil {
				errs <- err
			}
			done.Add(1)
		}()
	}
	start()
	select {
	case <-p.Held():
	case <-ctx.Done():
		t.Fatal("no reservation reached the stalled Redis")
	}
	for i := 1; i < callers; i++ {
		start()
	}
	require.Eventually(t, func() bool { return redisrate.Waiting(l) == callers }, waitBound, time.Millisecond,
		"every caller queued")
	p.Resume()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	assert.Equal(t, int64(callers), done.Load())
	calls := scriptCalls(t, rdb) - before
	assert.LessOrEqual(t, calls, 4, "reservations for %d callers (a script load may add one)", callers)
}

// TestUnusedSlotGoesToTheNextCaller: a caller that leaves before its
// reserved slot (its context canceled while it sleeps, or its deadline
// before the slot) gives the slot back, and the next caller of the process
// takes it without asking Redis again.
func TestUnusedSlotGoesToTheNextCaller(t *testing.T) {
	rdb := startRedis(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	scripts := func() int { return scriptCalls(t, rdb) }

	t.Run("canceled", func(t *testing.T) {
		l := redisrate.New(rdb, "giveback-cancel", 1.25, 1) // a slot every 800ms
		require.NoError(t, l.Wait(ctx), "the burst's slot")
		before := scripts()
		cctx, ccancel := context.WithCancel(ctx)
		errs := make(chan error, 1)
		go func() { errs <- l.Wait(cctx) }()
		require.Eventually(t, func() bool {
			return scripts() == before+1 && redisrate.Waiting(l) == 0 && redisrate.Reserved(l) == 0
		}, waitBound, time.Millisecond, "the caller holds the next slot and sleeps until it")
		ccancel()
		require.ErrorIs(t, <-errs, context.Canceled)
		assert.Equal(t, 1, redisrate.Reserved(l), "its slot is back")
		require.NoError(t, l.Wait(ctx))
		assert.Equal(t, before+1, scripts(), "one reservation for both callers")
	})
	t.Run("deadline before the slot", func(t *testing.T) {
		l := redisrate.New(rdb, "giveback-deadline", 2, 1)
		require.NoError(t, l.Wait(ctx), "the burst's slot")
		before := scripts()
		dctx, dcancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer dcancel()
		err := l.Wait(dctx)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Contains(t, err.Error(), "after the context's deadline")
		assert.NoError(t, dctx.Err(), "it ended at once, not at the deadline")
		assert.Equal(t, 1, redisrate.Reserved(l), "its slot is back")
		require.NoError(t, l.Wait(ctx))
		assert.Equal(t, before+1, scripts(), "one reservation for both callers")
	})
}
