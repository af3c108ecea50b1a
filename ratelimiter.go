package upicollect

import (
	"context"
	"errors"
)

// RateLimiter paces the requests a Client sends: every attempt, retries and
// WaitForPayment's polls included, calls Wait first and is sent only when
// Wait returns nil. WithRateLimit's in-process token bucket is one
// RateLimiter; github.com/upicollect/upicollect-go/redisrate is one shared
// by every process that uses the same Redis key.
//
// Wait must return when ctx ends, with an error matching ctx.Err(). Any
// other error ends the call at once, without sending the attempt: the
// caller's error then matches neither context error, and its text says the
// rate limiter failed.
type RateLimiter interface {
	Wait(ctx context.Context) error
}

// errRateLimiter is what a RateLimiter's own failure (not its context's)
// matches, so that ErrorType can name it.
var errRateLimiter = errors.New("rate limiter failed")

// limiterError wraps a RateLimiter's own failure: its text says the rate
// limiter failed, and the limiter's error stays matchable.
type limiterError struct{ err error }

func (e *limiterError) Error() string   { return "rate limiter failed: " + e.err.Error() }
func (e *limiterError) Unwrap() []error { return []error{errRateLimiter, e.err} }

// limiterFailure returns err, from a RateLimiter's Wait, wrapped as the
// limiter's own failure; nil when err is the end of the context. A deadline
// the limiter foresees (the turn comes after it) counts as the context's.
func limiterFailure(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return &limiterError{err: err}
}
