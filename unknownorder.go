package upicollect

import "time"

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
