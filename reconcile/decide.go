package reconcile

import (
	"time"

	"github.com/upicollect/upicollect-go"
)

// State is where an order stands in a Store.
type State string

// An order's states. Pending, Failed and Expired orders are still checked;
// the others are final.
const (
	StatePending  State = "pending"   // no outcome reported yet
	StateFailed   State = "failed"    // Failed reported; checked for a late SUCCESS
	StateExpired  State = "expired"   // Expired reported; checked for a late SUCCESS
	StatePaid     State = "paid"      // Paid reported
	StateLatePaid State = "late_paid" // LatePaid reported
	StateMismatch State = "mismatch"  // Mismatch reported
	// StateUntracked: Untrack was called; the order is not checked any
	// more and nothing more is delivered for it.
	StateUntracked State = "untracked"
)

// final reports whether no check can change st any more.
func (st State) final() bool {
	return st == StatePaid || st == StateLatePaid || st == StateMismatch || st == StateUntracked
}

// Reasons an Expired event gives.
const (
	// ReasonNotFound: every answer until the end of the payer's window was
	// the service's not-found answer. The service answers so for an order
	// id it never saw (a create that never arrived, a wrong id) and for an
	// order nobody started to pay: it cannot tell them apart, so the order
	// is still checked for a late payment.
	ReasonNotFound = "the service does not know the order: never created, a wrong id, or never paid"
	// ReasonNoFinalState: the service knows the order but reported no final
	// state within the payer's window.
	ReasonNoFinalState = "no final state within the payer's window"
)

// transition is what one check of an order decides: its new state, the
// event to deliver (Result "" for none) and when it is checked next.
type transition struct {
	state  State
	result Result
	reason string
	next   time.Time // zero: never again
}

// decide is the rule of reconciliation: from an order's state and what the
// status check said at now, the next state, the event (if any) and the
// next check. Each event follows a state change, so it is reported once.
func decide(p policy, o Order, st State, s *upicollect.PaymentStatus, now time.Time) transition {
	t := transition{state: st}
	switch {
	case s.TxnStatus == upicollect.TxnSuccess && s.Amount != o.Amount:
		t.state, t.result = StateMismatch, Mismatch
	case s.TxnStatus == upicollect.TxnSuccess && st == StatePending:
		t.state, t.result = StatePaid, Paid
	case s.TxnStatus == upicollect.TxnSuccess:
		t.state, t.result = StateLatePaid, LatePaid
	case (s.TxnStatus == upicollect.TxnFail || s.TxnStatus == upicollect.TxnReject) && st == StatePending:
		t.state, t.result = StateFailed, Failed
	case st == StatePending && !now.Before(o.Created.Add(p.payerWindow)):
		// PENDING, a state this SDK does not know, or FAIL after Expired:
		// none of them is a payment, and the payer's time is over.
		t.state, t.result, t.reason = StateExpired, Expired, ReasonNoFinalState
		if s.NotFound {
			t.reason = ReasonNotFound
		}
	}
	t.next, _ = p.nextCheck(o.Created, now, t.state)
	return t
}
