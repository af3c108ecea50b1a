package upicollect

import (
	"fmt"
	"net/http"
	"time"

	"github.com/upicollect/upicollect-go/internal/retry"
)

// outcome is what one failed attempt tells the retry decision.
type outcome struct {
	attempt    int  // 1-based number of the attempt
	neverSent  bool // the request provably never reached the service
	answered   bool // an HTTP answer arrived and its body was read
	timedOut   bool // the per-attempt timeout fired
	code       int  // the failure's effective status code, when answered
	unreadable bool // the answer is not the service's envelope
	errText    string
	retryAfter string // the answer's Retry-After header
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
// policy, the failed attempt, whether an earlier one was ambiguous, the
// time now (for a Retry-After date) and the jitter source.
func decide(s safety, p RetryPolicy, o outcome, wasAmbiguous bool, now time.Time, jitter func() float64) verdict {
	v := classify(s, o)
	v.ambiguous = s != readOnly && (v.ambiguous || wasAmbiguous)
	if !v.retry {
		return v
	}
	if o.attempt >= p.MaxAttempts {
		return verdict{ambiguous: v.ambiguous, reason: ReasonAttemptsExhausted, limit: true}
	}
	v.delay = retry.Backoff(o.attempt, p.BaseDelay, p.MaxDelay, jitter)
	if o.code == http.StatusTooManyRequests || o.code == http.StatusServiceUnavailable {
		if ra, ok := retry.ParseRetryAfter(o.retryAfter, now); ok {
			if ra > p.MaxRetryAfter {
				return verdict{ambiguous: v.ambiguous, limit: true,
					reason: fmt.Sprintf("Retry-After %v exceeds %v", ra, p.MaxRetryAfter)}
			}
			v.delay = max(v.delay, ra)
		}
	}
	return v
}

// classify says whether a failure may be retried for the call's safety,
// whether it may have taken effect, and what a retry costs.
func classify(s safety, o outcome) verdict {
	switch {
	case o.neverSent:
		return verdict{retry: true, cost: retry.RetryCost, reason: "not sent: " + o.errText}
	case !o.answered:
		v := verdict{retry: s != unkeyedCreate, ambiguous: true, cost: retry.RetryCost, reason: "transport: " + o.errText}
		if o.timedOut {
			v.cost, v.reason = retry.TimeoutCost, "attempt timed out"
		}
		return v
	case o.code == http.StatusTooManyRequests:
		// A refusal, but one that reached the service: a create without an
		// order id is not repeated (the proxy may have sent it on).
		return verdict{retry: s != unkeyedCreate, ambiguous: s == unkeyedCreate, cost: retry.RetryCost,
			reason: "rate limited (429)"}
	case o.code == 500 || o.code == 502 || o.code == 503 || o.code == 504:
		return verdict{retry: s != unkeyedCreate, ambiguous: true, cost: retry.RetryCost,
			reason: fmt.Sprintf("server error (%d)", o.code)}
	case o.unreadable:
		// The service may have acted on a request whose answer we cannot read.
		return verdict{ambiguous: true, reason: "not retryable"}
	case o.code == http.StatusConflict && o.attempt > 1:
		// The order id exists, perhaps from an earlier attempt of this call.
		return verdict{ambiguous: true, reason: "not retryable"}
	}
	return verdict{reason: "not retryable"}
}
