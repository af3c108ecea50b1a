package reconcile

import (
	"time"

	"github.com/upicollect/upicollect-go"
)

// transition is what one check of an order decides: its new state, the
// event to deliver (Result "" for none) and when it is checked next.
type transition struct {
	state  State
	result Result
	reason string
	next   time.Time // zero: never again
}

// transitionFor is the rule of reconciliation: from an order's state and what the
// status check said at now, the next state, the event (if any) and the
// next check. Each event follows a state change, so it is reported once.
func transitionFor(p policy, o Order, st State, s *upicollect.PaymentStatus, now time.Time) transition {
	t := transition{state: st}
	switch {
	case s.TxnStatus == upicollect.TxnSuccess && s.Amount != o.Amount:
		t.state, t.result = Mismatch, Mismatch
	case s.TxnStatus == upicollect.TxnSuccess && st == Pending:
		t.state, t.result = Paid, Paid
	case s.TxnStatus == upicollect.TxnSuccess:
		t.state, t.result = LatePaid, LatePaid
	case (s.TxnStatus == upicollect.TxnFail || s.TxnStatus == upicollect.TxnReject) && st == Pending:
		t.state, t.result = Failed, Failed
	case st == Pending && !now.Before(o.Created.Add(p.payerWindow)):
		// PENDING, a state this SDK does not know, or FAIL after Expired:
		// none of them is a payment, and the payer's time is over.
		t.state, t.result, t.reason = Expired, Expired, ReasonNoFinalState
		if s.NotFound {
			t.reason = ReasonNotFound
		}
	}
	t.next, _ = p.nextCheck(o.Created, now, t.state)
	return t
}
