package upicollect

import (
	"fmt"
	"strings"
	"time"

	"github.com/upicollect/upicollect-go/internal/retry"
)

// RetryPolicy says how often and how patiently a call is retried. Which
// failures are retried depends on the operation; see the package doc.
type RetryPolicy struct {
	MaxAttempts   int           // attempts in all; 1 disables retries; default 3
	BaseDelay     time.Duration // first backoff step; default 200ms
	MaxDelay      time.Duration // backoff cap; default 5s
	MaxRetryAfter time.Duration // longest Retry-After honoured; default 30s
}

// Retry policy defaults.
const (
	DefaultMaxAttempts   = 3
	DefaultBaseDelay     = 200 * time.Millisecond
	DefaultMaxDelay      = 5 * time.Second
	DefaultMaxRetryAfter = 30 * time.Second
)

// maxAttemptsLimit keeps a typo from turning one call into a flood.
const maxAttemptsLimit = 20

// DefaultRetryPolicy returns the policy a client uses when none is given.
func DefaultRetryPolicy() RetryPolicy { return RetryPolicy{}.withDefaults() }

func (p RetryPolicy) validate() error {
	switch {
	case p.MaxAttempts < 0 || p.MaxAttempts > maxAttemptsLimit:
		return fmt.Errorf("upicollect: RetryPolicy.MaxAttempts must be 0 (default) to %d, got %d", maxAttemptsLimit, p.MaxAttempts)
	case p.BaseDelay < 0, p.MaxDelay < 0, p.MaxRetryAfter < 0:
		return fmt.Errorf("upicollect: RetryPolicy: negative delay")
	case p.MaxDelay > 0 && p.BaseDelay > p.MaxDelay:
		return fmt.Errorf("upicollect: RetryPolicy: BaseDelay %v exceeds MaxDelay %v", p.BaseDelay, p.MaxDelay)
	}
	return nil
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts == 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.BaseDelay == 0 {
		p.BaseDelay = DefaultBaseDelay
	}
	if p.MaxDelay == 0 {
		p.MaxDelay = DefaultMaxDelay
		if p.BaseDelay > p.MaxDelay {
			p.MaxDelay = p.BaseDelay
		}
	}
	if p.MaxRetryAfter == 0 {
		p.MaxRetryAfter = DefaultMaxRetryAfter
	}
	return p
}

// verdict is the retry decision for one failed attempt.
type verdict struct {
	retry bool
	cost  int           // budget tokens a retry spends
	delay time.Duration // before the next attempt
	// reason says why the call is retried or, when it is not, why it stops.
	reason string
	// limit: the call stopped although the failure was retryable.
	limit bool
}

// retryVerdict is the retry decision, a pure function of the policy, what
// the failed attempt means (judge's answer), its number n, the time now
// (for a Retry-After date) and the jitter source. It reads nothing of the
// response: judge did.
func retryVerdict(p RetryPolicy, ans *answer, n int, now time.Time, jitter func() float64) verdict {
	if !ans.retryable {
		return verdict{reason: ans.reason}
	}
	if n >= p.MaxAttempts {
		return verdict{reason: ReasonAttemptsExhausted, limit: true}
	}
	v := verdict{retry: true, cost: ans.cost, reason: ans.reason, delay: retry.Backoff(n, p.BaseDelay, p.MaxDelay, jitter)}
	if ra, ok := retry.ParseRetryAfter(ans.retryAfter, now); ok {
		if ra > p.MaxRetryAfter {
			return verdict{limit: true, reason: fmt.Sprintf("Retry-After %v exceeds %v", ra, p.MaxRetryAfter)}
		}
		v.delay = max(v.delay, ra)
	}
	return v
}

// shortErr is the last part of a transport error ("connection refused"),
// for a log record or a retry reason; the whole error is in the call's.
func shortErr(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	return s
}
