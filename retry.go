package upicollect

import (
	"fmt"
	"net/http"
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
	// ambiguous: this or an earlier attempt of a create may have taken
	// effect, so the call's error is ErrOutcomeUnknown.
	ambiguous bool
	cost      int           // budget tokens a retry spends
	delay     time.Duration // before the next attempt
	// reason says why the call is retried or, when it is not, why it stops.
	reason string
	// limit: the call stopped although the failure was retryable.
	limit bool
}

// decide is the retry decision, a pure function of the call's safety, the
// policy, the failed attempt and its number n, whether an earlier one was
// ambiguous, the time now (for a Retry-After date) and the jitter source.
func decide(s safety, p RetryPolicy, a *attempt, n int, wasAmbiguous bool, now time.Time, jitter func() float64) verdict {
	v := classify(s, a, n)
	v.ambiguous = s != readOnly && (v.ambiguous || wasAmbiguous)
	if !v.retry {
		return v
	}
	if n >= p.MaxAttempts {
		return verdict{ambiguous: v.ambiguous, reason: ReasonAttemptsExhausted, limit: true}
	}
	v.delay = retry.Backoff(n, p.BaseDelay, p.MaxDelay, jitter)
	if a.answered() && (a.code() == http.StatusTooManyRequests || a.code() == http.StatusServiceUnavailable) {
		if ra, ok := retry.ParseRetryAfter(a.resp.Header.Get("Retry-After"), now); ok {
			if ra > p.MaxRetryAfter {
				return verdict{ambiguous: v.ambiguous, limit: true,
					reason: fmt.Sprintf("Retry-After %v exceeds %v", ra, p.MaxRetryAfter)}
			}
			v.delay = max(v.delay, ra)
		}
	}
	return v
}

// classify says whether a failed attempt may be retried for the call's
// safety, whether it may have taken effect, and what a retry costs: a
// transport failure by what is known of it, an answer by codeTable.
func classify(s safety, a *attempt, n int) verdict {
	switch {
	case a.resp == nil && a.neverSent:
		return verdict{retry: true, cost: retry.RetryCost, reason: "not sent: " + shortErr(a.err)}
	case !a.answered():
		v := verdict{retry: s != unkeyedCreate, ambiguous: true, cost: retry.RetryCost, reason: "transport: " + shortErr(a.err)}
		if a.timedOut {
			v.cost, v.reason = retry.TimeoutCost, "attempt timed out"
		}
		return v
	}
	code := a.code()
	m := meaningOf(code)
	switch {
	case m.transient != "":
		return verdict{retry: m.retry[s], ambiguous: m.ambiguous, cost: retry.RetryCost,
			reason: fmt.Sprintf("%s (%d)", m.transient, code)}
	case a.unreadable != "":
		// The service may have acted on a request whose answer we cannot read.
		return verdict{ambiguous: true, reason: "not retryable"}
	case code == http.StatusConflict && n > 1:
		// The order id exists, perhaps from an earlier attempt of this call.
		return verdict{ambiguous: true, reason: "not retryable"}
	}
	return verdict{reason: "not retryable"}
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
