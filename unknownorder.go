package upicollect

import "time"

// WithUnknownOrderTimeout ends a wait for an order that the service still
// does not know after d (every status seen so far was NotFound): a typo, or
// an order that was never created. WaitForPayment then returns the last
// status and an *APIError matching ErrNotFound, carrying that status
// check's HTTP status, statusCode, message and Response. Once any answer
// shows the order known (a state other than the not-found shapes), d no
// longer applies. The live service also answers "not found" for an order
// nobody has started to pay, so choose a d longer than a payer takes to
// open the payment (a few minutes); zero or less (the default) means the
// wait ends only by its context or WithMaxWait.
func WithUnknownOrderTimeout(d time.Duration) WaitOption {
	return func(w *waitSettings) { w.unknownTimeout = max(d, 0) }
}

// unknownOrderWatch decides when a wait gives up on an order the service
// does not know: timeout after start, unless an answer showed it known.
type unknownOrderWatch struct {
	timeout time.Duration // 0: never
	start   time.Time
	known   bool
}

// expired records st, seen at now, and reports whether the order has been
// unknown for the whole timeout.
func (u *unknownOrderWatch) expired(st *PaymentStatus, now time.Time) bool {
	if !st.NotFound {
		u.known = true
	}
	return u.timeout > 0 && !u.known && now.Sub(u.start) >= u.timeout
}

// clip shortens a delay before the next poll so that the poll that decides
// comes when the timeout passes, not up to a whole delay later. Once the
// timeout has passed (a failed poll did not decide) the delay stays whole.
func (u *unknownOrderWatch) clip(delay time.Duration, now time.Time) time.Duration {
	left := u.start.Add(u.timeout).Sub(now)
	if u.timeout <= 0 || u.known || left <= 0 {
		return delay
	}
	return min(delay, left)
}
