package reconcile

import (
	"errors"
	"fmt"
	"time"
)

// Band is one row of a Schedule: an order younger than Until (and older
// than the previous band's Until) is checked every Every.
type Band struct {
	Until time.Duration // the order's age where the band ends
	Every time.Duration // the time between two checks in the band
}

// Schedule says how often an order is checked, by its age (the time since
// Order.Created): bands in increasing Until order. Beyond the last band's
// Until the last Every applies, up to the end of the late window.
type Schedule []Band

// Defaults of a Sweeper's schedule and windows.
const (
	// DefaultPayerWindow is how long a payer can still be completing a
	// payment: intents and collect requests expire within minutes. An order
	// with no final state by then is reported Expired.
	DefaultPayerWindow = 15 * time.Minute
	// DefaultLateWindow is how long an order is checked for a late
	// authorisation after it was created: a large Indian gateway polls for
	// up to three days.
	DefaultLateWindow = 72 * time.Hour
)

// DefaultSchedule returns the schedule a Sweeper uses unless WithSchedule
// says otherwise:
//
//	order's age       checked every   checks in the band
//	0 – 1 min         10 s            6
//	1 – 15 min        30 s            28   (the payer's window ends: Expired)
//	15 min – 1 h      15 min          3
//	1 h – 6 h         1 h             5
//	6 h – 24 h        3 h             6
//	24 h – 72 h       8 h             6    (the late window ends: no more checks)
//
// Dense while the payer may still be at the checkout (a payment there is
// seen within 30 s), sparse afterwards, where only a bank's late
// authorisation can change the outcome. An order that is never paid costs
// 54 checks in 72 hours; one paid in the first minutes, about 15.
func DefaultSchedule() Schedule {
	return Schedule{
		{Until: time.Minute, Every: 10 * time.Second},
		{Until: 15 * time.Minute, Every: 30 * time.Second},
		{Until: time.Hour, Every: 15 * time.Minute},
		{Until: 6 * time.Hour, Every: time.Hour},
		{Until: 24 * time.Hour, Every: 3 * time.Hour},
		{Until: 72 * time.Hour, Every: 8 * time.Hour},
	}
}

// validate reports a schedule no sweeper could follow.
func (s Schedule) validate() error {
	if len(s) == 0 {
		return errors.New("reconcile: empty schedule")
	}
	var prev time.Duration
	for i, b := range s {
		switch {
		case b.Every <= 0:
			return fmt.Errorf("reconcile: schedule band %d: Every must be positive, got %v", i, b.Every)
		case b.Until <= prev:
			return fmt.Errorf("reconcile: schedule band %d: Until %v must exceed the previous band's %v", i, b.Until, prev)
		}
		prev = b.Until
	}
	return nil
}

// every returns the interval of the band age falls in.
func (s Schedule) every(age time.Duration) time.Duration {
	for _, b := range s {
		if age < b.Until {
			return b.Every
		}
	}
	return s[len(s)-1].Every
}

// policy is what decides when an order is checked and when it expires.
type policy struct {
	schedule    Schedule
	payerWindow time.Duration
	lateWindow  time.Duration
}

// nextCheck returns when an order created at created, in state st and
// checked at now, is checked next; ok is false when it is never checked
// again. A pending order is checked at the end of the payer's window, to
// be reported Expired on time; an order reported Failed or Expired is
// checked on the schedule as it stands past the payer's window (only a
// late authorisation can change it); every order gets a last check at the
// end of the late window.
func (p policy) nextCheck(created, now time.Time, st State) (next time.Time, ok bool) {
	end := created.Add(p.lateWindow)
	if st.final() || !now.Before(end) {
		return time.Time{}, false
	}
	age := now.Sub(created)
	if st != Pending && age < p.payerWindow {
		age = p.payerWindow
	}
	next = now.Add(p.schedule.every(age))
	if window := created.Add(p.payerWindow); st == Pending && now.Before(window) && next.After(window) {
		next = window
	}
	if next.After(end) {
		next = end
	}
	return next, true
}

// firstCheck is when an order created at created is checked first.
func (p policy) firstCheck(created time.Time) time.Time {
	next, _ := p.nextCheck(created, created, Pending)
	return next
}
