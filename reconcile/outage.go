package reconcile

import (
	"errors"
	"sync"
	"time"

	"github.com/upicollect/upicollect-go"
)

// ErrServiceFailing is Confirm's error while the sweeper holds its checks
// because the service is failing for every order (see Step): Confirm then
// returns the ledger's state as it is, with this error, and makes no check
// of its own beyond the one probe the sweeper is due to make.
var ErrServiceFailing = errors.New("reconcile: the payment service is failing; checks are held until it answers again")

// The outage rule's constants.
const (
	// outageAfter is how many checks in a row, of distinct orders, must
	// fail the way a failing service fails (no answer, a 5xx, garbage, a
	// 429) before the sweeper holds its checks and probes instead.
	outageAfter = 3
	// probeFirst and probeMax bound the wait between two probes of a
	// failing service: it doubles from probeFirst to probeMax. At most one
	// probe every probeMax, each retried by the client at most
	// DefaultMaxAttempts times, keeps an outage's cost under two requests
	// a minute, whatever the number of orders.
	probeFirst = 30 * time.Second
	probeMax   = 2 * time.Minute
	// maxPause caps a Retry-After the sweeper honours for all its checks.
	maxPause = 10 * time.Minute
)

// health is what a sweeper knows of the service across orders: whether it
// is failing for everyone (an outage: checks are held and one probe is
// made at a time), and until when it asked to be left alone (Retry-After).
// Its decisions are in the pure functions below; Step and Confirm
// coordinate. Times are sweeper time (Step's now).
type health struct {
	mu       sync.Mutex
	streak   int                 // service failures in a row since the last answer
	failed   map[string]struct{} // the distinct orders of the streak
	out      bool                // an outage: hold checks, probe
	gap      time.Duration       // the wait before the next probe
	probeAt  time.Time           // when out: the next probe is due
	pauseEnd time.Time           // no check before (Retry-After)
}

// serviceFailure reports whether err, a check's error while the step's
// context is alive, is how a failing service fails every order alike, not
// one order's own answer: no answer at all (a transport error, the
// client's per-attempt timeout), a 5xx, a body that is not the service's
// envelope, a 429, or a refusal of the credentials.
func serviceFailure(err error) bool {
	var ae *upicollect.APIError
	if !errors.As(err, &ae) || errors.Is(err, upicollect.ErrValidation) {
		return false
	}
	switch {
	case errors.Is(err, upicollect.ErrServer), errors.Is(err, upicollect.ErrUnexpectedResponse),
		errors.Is(err, upicollect.ErrRateLimited), errors.Is(err, upicollect.ErrUnauthorized):
		return true
	}
	return ae.HTTPStatus == 0
}

// retryAfterOf is the pause an answer asked for (the Retry-After of a 429
// or 503, as the client read it), at most maxPause; 0 when it asked for
// none.
func retryAfterOf(err error) time.Duration {
	var ae *upicollect.APIError
	if !errors.As(err, &ae) || ae.RetryAfter <= 0 {
		return 0
	}
	return min(ae.RetryAfter, maxPause)
}

// held reports whether checks are held at now, and until when: during an
// outage until the next probe is due, or during a Retry-After pause.
// probe is true when an outage's probe is due at now: one check may go.
func (h *health) held(now time.Time) (until time.Time, probe, held bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if now.Before(h.pauseEnd) {
		return h.pauseEnd, false, true
	}
	if !h.out {
		return time.Time{}, false, false
	}
	if now.Before(h.probeAt) {
		return h.probeAt, false, true
	}
	// The probe is this caller's: until its answer, the others are held
	// as if it had failed, so that one check at a time goes out.
	h.probeAt = now.Add(h.gap)
	return time.Time{}, true, false
}

// answeredBy reports whether a check's result (err nil, or the error of an
// answer that is no service failure: a refusal of this order's request)
// shows the service answering.
func answeredBy(err error) bool {
	if err == nil {
		return true
	}
	var ae *upicollect.APIError
	return errors.As(err, &ae) && ae.HTTPStatus != 0 && !serviceFailure(err)
}

// answered records a check the service answered (whatever it said about
// the order): the outage, if any, is over.
func (h *health) answered() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.streak, h.failed, h.out, h.gap = 0, nil, false, 0
}

// failedAt records a check of orderID that failed with err at now, and
// reports whether checks are held from now on (the caller then stops
// checking and gives its orders back): the service is out, or asked for a
// pause (Retry-After). A failure that is not the service's (see
// serviceFailure) changes nothing here: the order's own backoff handles
// it.
func (h *health) failedAt(orderID string, err error, now time.Time) (hold bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if d := retryAfterOf(err); d > 0 {
		h.pauseEnd = later(h.pauseEnd, now.Add(d))
	}
	switch {
	case !serviceFailure(err):
	case h.out: // a probe failed: wait longer before the next
		h.gap = min(2*h.gap, probeMax)
		h.probeAt = now.Add(h.gap)
	default:
		if h.failed == nil {
			h.failed = map[string]struct{}{}
		}
		h.streak++
		h.failed[orderID] = struct{}{}
		if h.streak >= outageAfter && len(h.failed) >= outageAfter {
			h.out, h.gap = true, probeFirst
			h.probeAt = now.Add(h.gap)
		}
	}
	return h.out || now.Before(h.pauseEnd)
}

// isOut reports whether the service is out.
func (h *health) isOut() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.out
}

// failing reports whether checks are held at now or probe (unlike held,
// it claims no probe).
func (h *health) failing(now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.out || now.Before(h.pauseEnd)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
