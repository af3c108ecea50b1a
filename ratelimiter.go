package upicollect

import (
	"context"
	"errors"

	"github.com/upicollect/upicollect-go/internal/ratelimit"
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

// WithRateLimiter makes every attempt of every call wait on l before it is
// sent, in place of WithRateLimit's in-process limiter: for a limit shared
// by many processes (see redisrate), or a limiter of your own. NewClient
// refuses WithRateLimit and WithRateLimiter together.
func WithRateLimiter(l RateLimiter) Option {
	return func(s *settings) error {
		if l == nil {
			return errors.New("upicollect: WithRateLimiter: nil limiter")
		}
		s.limiter = l
		return nil
	}
}

// newRateLimiter is the client's limiter: WithRateLimiter's, else
// WithRateLimit's token bucket, else none (nil, so that a call without a
// limiter does not even make an interface call).
func newRateLimiter(s *settings) (RateLimiter, error) {
	switch l := ratelimit.New(s.ratePerSec, s.rateBurst, s.clock); {
	case s.limiter != nil && l != nil:
		return nil, errors.New("upicollect: WithRateLimit and WithRateLimiter: pass one (WithRateLimiter replaces the in-process limiter)")
	case s.limiter != nil:
		return s.limiter, nil
	case l != nil:
		return l, nil
	}
	return nil, nil
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
