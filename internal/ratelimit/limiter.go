// Package ratelimit paces the requests of one client: a token bucket whose
// waits take time from an injectable clock.
package ratelimit

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/upicollect/upicollect-go/internal/clock"
)

// Limiter is a token-bucket rate limiter shared by all calls of one client:
// perSecond tokens are added per second, up to burst. It is safe for
// concurrent use and takes time and sleeps from its Clock, so tests using a
// clock.Fake take no wall time. A nil *Limiter is unlimited.
//
// Like golang.org/x/time/rate, Wait reserves a token before sleeping, so
// concurrent waiters are spaced 1/perSecond apart rather than waking together.
// Waiters are not served in strict FIFO order: whoever reserves first goes first.
type Limiter struct {
	clock clock.Clock
	rate  float64 // tokens per second, > 0 and finite
	burst float64

	mu sync.Mutex
	// tokens goes negative while waiters hold reservations: -tokens is how many
	// tokens are owed, so the newest reservation acts at last + (-tokens)/rate.
	tokens float64
	last   time.Time // when tokens was last brought up to date
}

// New returns a Limiter that starts full, holding burst tokens.
// perSecond <= 0 (or NaN or +Inf) means unlimited and returns nil. burst < 1
// is treated as 1, because a bucket that can never hold a token would block
// every call forever. A nil clock means clock.Real.
func New(perSecond float64, burst int, clk clock.Clock) *Limiter {
	if !(perSecond > 0) || math.IsInf(perSecond, 1) {
		return nil
	}
	if clk == nil {
		clk = clock.Real
	}
	burst = max(burst, 1)
	return &Limiter{
		clock:  clk,
		rate:   perSecond,
		burst:  float64(burst),
		tokens: float64(burst),
		last:   clk.Now(),
	}
}

// Wait blocks until a token is available or ctx ends, in which case it returns
// ctx.Err(). A nil Limiter returns nil at once. A ctx already done returns its
// error without taking a token.
//
// If ctx ends while waiting, the reserved token is given back when no later
// waiter has been scheduled behind it; otherwise it stays spent, because
// returning it would let a new caller in alongside those already scheduled and
// exceed the rate (the same rule as golang.org/x/time/rate).
func (l *Limiter) Wait(ctx context.Context) error {
	if l == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	act, wait := l.reserve()
	if wait <= 0 {
		return nil
	}
	if err := l.clock.Sleep(ctx, wait); err != nil {
		l.cancel(act)
		return err
	}
	return nil
}

// reserve takes a token, possibly going into debt, and returns when the
// caller may act and how long to wait until then.
func (l *Limiter) reserve() (act time.Time, wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	l.advance(now)
	l.tokens--
	if l.tokens < 0 {
		wait = l.durationFor(-l.tokens)
	}
	return now.Add(wait), wait
}

// cancel gives back the token of a reservation for act, to the extent no later
// reservation depends on it.
func (l *Limiter) cancel(act time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	if !now.Before(act) {
		return // its slot has come; the token counts as used
	}
	l.advance(now)
	// -tokens is owed up to the newest reservation; those due after act are
	// owed beyond act's own position and keep their slots.
	later := -l.tokens - act.Sub(now).Seconds()*l.rate
	if restore := min(1-later, 1); restore > 0 {
		l.tokens = min(l.tokens+restore, l.burst)
	}
}

// advance adds the tokens earned since last; the caller holds mu.
func (l *Limiter) advance(now time.Time) {
	// A clock that stepped back earns nothing for the step; accrual restarts
	// from the earlier time, as in golang.org/x/time/rate.
	if now.After(l.last) {
		l.tokens = min(l.tokens+now.Sub(l.last).Seconds()*l.rate, l.burst)
	}
	l.last = now
}

// durationFor returns how long it takes to earn n tokens, clamped so tiny
// rates cannot overflow time.Duration.
func (l *Limiter) durationFor(n float64) time.Duration {
	ns := math.Round(n / l.rate * 1e9)
	if ns >= float64(maxDuration) {
		return maxDuration
	}
	return time.Duration(ns)
}

// maxDuration is the longest time.Duration.
const maxDuration = time.Duration(math.MaxInt64)
