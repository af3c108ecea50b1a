package upicollect

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/upicollect/upicollect-go/internal/retry"
	"github.com/upicollect/upicollect-go/internal/wire"
)

// TestRetryVerdict tables what judge and the retry decision make of every
// failed attempt for every safety, on a first attempt and on a later one.
func TestRetryVerdict(t *testing.T) {
	t.Parallel()
	p := RetryPolicy{MaxAttempts: 3, BaseDelay: 200 * time.Millisecond, MaxDelay: 5 * time.Second, MaxRetryAfter: 30 * time.Second}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	half := func() float64 { return 0.5 }

	type want struct {
		retry, ambiguous bool
		cost             int
		reason           string
	}
	var (
		no        = want{reason: "not retryable"}
		noAmb     = want{ambiguous: true, reason: "not retryable"}
		sent      = attempt{neverSent: true, err: errors.New("dial tcp: refused")}
		reset     = attempt{err: errors.New("connection reset")}
		timeout   = attempt{timedOut: true, err: errors.New("deadline")}
		rate      = refusal(429, "")
		server    = func(code int) attempt { return refusal(code, "") }
		unread200 = unreadable(200)
		unread303 = unreadable(303)
		unread300 = unreadable(300)
		unread404 = unreadable(404)
		dup       = refusal(409, "")
		invalid   = refusal(400, "")
		unauth    = refusal(401, "")
		notFound  = refusal(404, "")
	)
	type verdictCase struct {
		name string
		s    safety
		o    attempt
		n    int
		want want
	}
	tests := []verdictCase{
		{"status never sent", readOnly, sent, 1, want{true, false, retry.RetryCost, "not sent: refused"}},
		{"keyed never sent", keyedCreate, sent, 1, want{true, false, retry.RetryCost, "not sent: refused"}},
		{"unkeyed never sent", unkeyedCreate, sent, 1, want{true, false, retry.RetryCost, "not sent: refused"}},

		{"status reset", readOnly, reset, 1, want{true, false, retry.RetryCost, "transport: connection reset"}},
		{"keyed reset", keyedCreate, reset, 1, want{true, true, retry.RetryCost, "transport: connection reset"}},
		{"unkeyed reset", unkeyedCreate, reset, 1, want{false, true, retry.RetryCost, "transport: connection reset"}},

		{"status timeout", readOnly, timeout, 1, want{true, false, retry.TimeoutCost, "attempt timed out"}},
		{"keyed timeout", keyedCreate, timeout, 1, want{true, true, retry.TimeoutCost, "attempt timed out"}},
		{"unkeyed timeout", unkeyedCreate, timeout, 1, want{false, true, retry.TimeoutCost, "attempt timed out"}},

		{"status 429", readOnly, rate, 1, want{true, false, retry.RetryCost, "rate limited (429)"}},
		// Ambiguous: a proxy may have forwarded the create before it answered 429.
		{"keyed 429", keyedCreate, rate, 1, want{true, true, retry.RetryCost, "rate limited (429)"}},
		{"unkeyed 429: reached the service", unkeyedCreate, rate, 1, want{false, true, retry.RetryCost, "rate limited (429)"}},

		{"status unreadable 200", readOnly, unread200, 1, no},
		{"keyed unreadable 200", keyedCreate, unread200, 1, noAmb},
		{"unkeyed unreadable 200", unkeyedCreate, unread200, 1, noAmb},
		{"keyed 303", keyedCreate, unread303, 1, noAmb},
		{"unkeyed 300", unkeyedCreate, unread300, 1, noAmb},
		{"status 303", readOnly, unread303, 1, no},
		{"status non-envelope 404 (wrong base URL)", readOnly, unread404, 1, no},

		{"keyed 409 first", keyedCreate, dup, 1, no},
		{"keyed 409 later", keyedCreate, dup, 2, noAmb},
		{"unkeyed 409 later", unkeyedCreate, dup, 2, noAmb},
		{"status 409 later", readOnly, dup, 2, no},
		{"keyed 400", keyedCreate, invalid, 1, no},
		{"status 400", readOnly, invalid, 2, no},
		{"keyed 401", keyedCreate, unauth, 2, no},
		{"status 404 envelope", readOnly, notFound, 1, no},
	}
	for _, code := range []int{500, 502, 503, 504} {
		r := fmt.Sprintf("server error (%d)", code)
		tests = append(tests,
			verdictCase{fmt.Sprintf("status %d", code), readOnly, server(code), 1, want{true, false, retry.RetryCost, r}},
			verdictCase{fmt.Sprintf("keyed %d", code), keyedCreate, server(code), 1, want{true, true, retry.RetryCost, r}},
			verdictCase{fmt.Sprintf("unkeyed %d", code), unkeyedCreate, server(code), 1, want{false, true, retry.RetryCost, r}},
		)
	}
	// 501 and 505 are not transient.
	tests = append(tests, verdictCase{"status 501", readOnly, server(501), 1, no})

	for _, tt := range tests {
		ans := judge(tt.s, successOnly, &tt.o, tt.n, false)
		v := retryVerdict(p, &ans, tt.n, now, half)
		assert.Equal(t, tt.want.retry, v.retry, "%s: retry", tt.name)
		assert.Equal(t, tt.want.ambiguous, ans.outcomeUnknown, "%s: ambiguous", tt.name)
		assert.Equal(t, tt.want.reason, v.reason, "%s: reason", tt.name)
		assert.False(t, v.limit, "%s: limit", tt.name)
		if v.retry {
			assert.Equal(t, tt.want.cost, v.cost, "%s: cost", tt.name)
			// Full jitter with 0.5: half of 200ms doubled per attempt.
			assert.Equal(t, time.Duration(tt.n)*100*time.Millisecond, v.delay, "%s: delay", tt.name)
		} else {
			assert.Zero(t, v.delay, "%s: delay", tt.name)
		}

		// An earlier ambiguous attempt makes every create's end ambiguous,
		// never the status check's.
		ans = judge(tt.s, successOnly, &tt.o, tt.n, true)
		assert.Equal(t, tt.s != readOnly, ans.outcomeUnknown, "%s after an ambiguous attempt", tt.name)
	}
}

// TestRetryVerdictLimits: the last attempt, and a Retry-After beyond the cap, end
// retries with a visible reason; a shorter Retry-After lengthens the delay.
func TestRetryVerdictLimits(t *testing.T) {
	t.Parallel()
	p := RetryPolicy{MaxAttempts: 3, BaseDelay: 200 * time.Millisecond, MaxDelay: 5 * time.Second, MaxRetryAfter: 30 * time.Second}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	half := func() float64 { return 0.5 }
	tests := []struct {
		name   string
		s      safety
		o      attempt
		n      int
		was    bool
		retry  bool
		amb    bool
		limit  bool
		delay  time.Duration
		reason string
	}{
		{"last attempt", readOnly, refusal(500, ""), 3, false, false, false, true, 0, ReasonAttemptsExhausted},
		{"last attempt of a keyed create", keyedCreate, refusal(503, ""), 3, false, false, true, true, 0, ReasonAttemptsExhausted},
		{"before the last", readOnly, refusal(500, ""), 2, false, true, false, false, 200 * time.Millisecond, "server error (500)"},
		{"Retry-After longer than backoff", readOnly, refusal(429, "2"), 1, false, true, false, false, 2 * time.Second, "rate limited (429)"},
		{"Retry-After shorter than backoff", readOnly, refusal(503, "0"), 2, false, true, false, false, 200 * time.Millisecond, "server error (503)"},
		{"Retry-After at the cap", readOnly, refusal(429, "30"), 1, false, true, false, false, 30 * time.Second, "rate limited (429)"},
		{"Retry-After beyond the cap", readOnly, refusal(429, "31"), 1, false, false, false, true, 0, "Retry-After 31s exceeds 30s"},
		{"Retry-After beyond the cap, keyed, after ambiguity", keyedCreate, refusal(503, "120"), 2, true, false, true, true, 0, "Retry-After 2m0s exceeds 30s"},
		{"Retry-After as a date", readOnly, refusal(503, now.Add(10*time.Second).Format(http.TimeFormat)), 1, false, true, false, false, 10 * time.Second, "server error (503)"},
		{"Retry-After ignored on a 500", readOnly, refusal(500, "20"), 1, false, true, false, false, 100 * time.Millisecond, "server error (500)"},
		{"Retry-After unreadable", readOnly, refusal(429, "soon"), 1, false, true, false, false, 100 * time.Millisecond, "rate limited (429)"},
	}
	for _, tt := range tests {
		ans := judge(tt.s, successOnly, &tt.o, tt.n, tt.was)
		v := retryVerdict(p, &ans, tt.n, now, half)
		assert.Equal(t, verdict{retry: tt.retry, limit: tt.limit, delay: tt.delay, reason: tt.reason,
			cost: map[bool]int{true: retry.RetryCost}[tt.retry]}, v, tt.name)
		assert.Equal(t, tt.amb, ans.outcomeUnknown, "%s: ambiguous", tt.name)
	}
}

// TestRefill: a first-try success returns SuccessRefill, a retried one the
// cost of its retry.
func TestRefill(t *testing.T) {
	t.Parallel()
	assert.Equal(t, retry.SuccessRefill, refill(1, 0))
	assert.Equal(t, retry.SuccessRefill, refill(1, 7))
	assert.Equal(t, 7, refill(2, 7))
	assert.Equal(t, retry.TimeoutCost, refill(3, retry.TimeoutCost))
}

// refusal is an attempt answered with an envelope refusing the call in an
// HTTP code, with a Retry-After header when retryAfter is set.
func refusal(code int, retryAfter string) attempt {
	h := http.Header{}
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
	}
	return attempt{resp: &Response{HTTPStatus: code, Header: h}, env: &wire.Envelope{}}
}

// unreadable is an attempt answered in code with a body that is not the
// envelope.
func unreadable(code int) attempt {
	return attempt{resp: &Response{HTTPStatus: code, Header: http.Header{}}, unreadable: "not JSON"}
}
