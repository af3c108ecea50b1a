package reconcile

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/upicollect/upicollect-go"
)

func TestTransitionFor(t *testing.T) {
	p := defaultPolicy()
	o := Order{ID: "ord-1", Amount: upicollect.Rupees(499), Created: t0}
	success := func(m upicollect.Money) *upicollect.PaymentStatus {
		return &upicollect.PaymentStatus{OrderID: o.ID, TxnStatus: upicollect.TxnSuccess, Amount: m, UTR: "123456789012"}
	}
	notFound := &upicollect.PaymentStatus{OrderID: o.ID, TxnStatus: upicollect.TxnPending, NotFound: true, Message: "Transaction not found"}
	knownPending := &upicollect.PaymentStatus{OrderID: o.ID, TxnStatus: upicollect.TxnPending, Amount: upicollect.Rupees(499)}
	fail := &upicollect.PaymentStatus{OrderID: o.ID, TxnStatus: upicollect.TxnFail}
	reject := &upicollect.PaymentStatus{OrderID: o.ID, TxnStatus: upicollect.TxnReject}
	strange := &upicollect.PaymentStatus{OrderID: o.ID, TxnStatus: "INITIATED"}
	early, atWindow, late := t0.Add(2*time.Minute), t0.Add(15*time.Minute), t0.Add(30*time.Hour)
	for _, tc := range []struct {
		name   string
		st     State
		s      *upicollect.PaymentStatus
		now    time.Time
		state  State
		result Result
		reason string
		done   bool
	}{
		{"pending, not found, early: nothing", Pending, notFound, early, Pending, "", "", false},
		{"pending, SUCCESS: Paid", Pending, success(o.Amount), early, Paid, Paid, "", true},
		{"pending, SUCCESS for less: Mismatch", Pending, success(upicollect.Rupees(1)), early, Mismatch, Mismatch, "", true},
		{"pending, SUCCESS for a paisa more: Mismatch", Pending, success(o.Amount + 1), early, Mismatch, Mismatch, "", true},
		{"pending, FAIL: Failed", Pending, fail, early, Failed, Failed, "", false},
		{"pending, REJECT: Failed", Pending, reject, early, Failed, Failed, "", false},
		{"pending, not found at the window's end: Expired, not known", Pending, notFound, atWindow, Expired, Expired, ReasonNotFound, false},
		{"pending, known PENDING at the window's end: Expired", Pending, knownPending, atWindow, Expired, Expired, ReasonNoFinalState, false},
		{"pending, an unknown state at the window's end: Expired", Pending, strange, atWindow, Expired, Expired, ReasonNoFinalState, false},
		{"pending, an unknown state early: nothing", Pending, strange, early, Pending, "", "", false},
		{"failed, FAIL again: nothing", Failed, fail, late, Failed, "", "", false},
		{"failed, SUCCESS: LatePaid", Failed, success(o.Amount), late, LatePaid, LatePaid, "", true},
		{"failed, SUCCESS for another amount: Mismatch", Failed, success(2 * o.Amount), late, Mismatch, Mismatch, "", true},
		{"expired, SUCCESS: LatePaid", Expired, success(o.Amount), late, LatePaid, LatePaid, "", true},
		{"expired, FAIL: nothing (the order already ended unpaid)", Expired, fail, late, Expired, "", "", false},
		{"expired, still not found: nothing", Expired, notFound, late, Expired, "", "", false},
		{"expired at the late window's end: done, no event", Expired, notFound, t0.Add(72 * time.Hour), Expired, "", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := transitionFor(p, o, tc.st, tc.s, tc.now)
			assert.Equal(t, tc.state, tr.state)
			assert.Equal(t, tc.result, tr.result)
			assert.Equal(t, tc.reason, tr.reason)
			assert.Equal(t, tc.done, tr.next.IsZero(), "next %v", tr.next)
			if !tc.done {
				assert.True(t, tr.next.After(tc.now))
			}
		})
	}
}

// TestNewEvent: an event's Expected is the amount tracked; its Paid is the
// checked amount of a SUCCESS (Paid, LatePaid, Mismatch) and 0 for a Failed
// or Expired event, whatever amount the failed answer carried.
func TestNewEvent(t *testing.T) {
	o := Order{ID: "ORD-1", Amount: upicollect.Rupees(249), Created: t0}
	at := t0.Add(time.Minute)
	success := func(m upicollect.Money) *upicollect.PaymentStatus {
		return &upicollect.PaymentStatus{OrderID: o.ID, TxnStatus: upicollect.TxnSuccess, Amount: m, UTR: "U1"}
	}
	failed := &upicollect.PaymentStatus{OrderID: o.ID, TxnStatus: upicollect.TxnFail, Amount: upicollect.Rupees(200)}
	for _, tc := range []struct {
		name   string
		r      Result
		st     *upicollect.PaymentStatus
		paid   upicollect.Money
		reason string
	}{
		{"paid", Paid, success(upicollect.Rupees(249)), upicollect.Rupees(249), ""},
		{"late paid", LatePaid, success(upicollect.Rupees(249)), upicollect.Rupees(249), ""},
		{"mismatch", Mismatch, success(upicollect.Rupees(200)), upicollect.Rupees(200), ""},
		{"failed with an amount", Failed, failed, 0, ""},
		{"expired, no answer", Expired, nil, 0, ReasonNoFinalState},
		{"paid without an answer", Paid, nil, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEvent(o, tc.r, tc.st, at, tc.reason)
			assert.Equal(t, Event{Order: o, Result: tc.r, Expected: o.Amount, Paid: tc.paid, Status: tc.st, At: at, Reason: tc.reason}, e)
		})
	}
}
