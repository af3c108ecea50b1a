// Package ratelimit paces the requests of one client: a token bucket whose
// waits take time from an injectable clock.
package ratelimit

import (
	"context"
	"math"

	"golang.org/x/sync/semaphore"
	"golang.org/x/time/rate"

	"github.com/upicollect/upicollect-go/clock"
)

// Limiter is a token-bucket rate limiter shared by all calls of one client:
// perSecond tokens are added per second, up to burst. A nil *Limiter is
// unlimited. It is safe for concurrent use and takes time and sleeps from its
// clock, so tests take no wall time.
//
// Waiters queue in FIFO order and only the head of the queue holds a
// reservation. A plain token bucket (golang.org/x/time/rate alone, or this
// package before) lets every waiter reserve a future token at once; a waiter
// that then gives up cannot return its token when later ones are booked
// behind it, so a storm of cancelled calls pushes every later call minutes
// into the future. Here a waiter that leaves the queue never held a token,
// and the head cancels its own reservation, which nobody stands behind.
type Limiter struct {
	clock  clock.Clock
	bucket *rate.Limiter
	head   *semaphore.Weighted // weight 1: the holder is the only waiter with a reservation
}

// New returns a Limiter that starts full, holding burst tokens.
// perSecond <= 0 (or NaN or +Inf) means unlimited and returns nil. burst < 1
// is treated as 1, because a bucket that can never hold a token would block
// every call forever. A nil clock means clock.Real{}.
func New(perSecond float64, burst int, clk clock.Clock) *Limiter {
	if !(perSecond > 0) || math.IsInf(perSecond, 1) {
		return nil
	}
	if clk == nil {
		clk = clock.Real{}
	}
	bucket := rate.NewLimiter(rate.Limit(perSecond), max(burst, 1))
	// x/time/rate starts full but counts from its first use; anchor it at the
	// injected clock's now so a fake clock's epoch is not read as idle time.
	bucket.SetBurstAt(clk.Now(), max(burst, 1))
	return &Limiter{clock: clk, bucket: bucket, head: semaphore.NewWeighted(1)}
}

// Wait blocks until the caller may send one request, or until ctx ends, in
// which case it returns ctx.Err() and takes no token. A nil Limiter returns
// nil at once. When ctx's deadline falls before the caller's turn, Wait
// returns clock.ErrPastDeadline (which matches context.DeadlineExceeded) at
// once, also without taking a token.
func (l *Limiter) Wait(ctx context.Context) error {
	if l == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// semaphore.Acquire is FIFO and gives up its place when ctx ends.
	if err := l.head.Acquire(ctx, 1); err != nil {
		return err
	}
	defer l.head.Release(1)

	now := l.clock.Now()
	r := l.bucket.ReserveN(now, 1) // burst >= 1, so always OK
	delay := r.DelayFrom(now)
	if delay <= 0 {
		return nil
	}
	if err := clock.CheckDeadline(ctx, now.Add(delay)); err != nil {
		r.CancelAt(now)
		return err
	}
	if err := l.clock.Sleep(ctx, delay); err != nil {
		// The only outstanding reservation is ours: cancelling restores it.
		r.CancelAt(l.clock.Now())
		return err
	}
	return nil
}
