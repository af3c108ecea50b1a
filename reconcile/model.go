package reconcile

import (
	"time"

	"github.com/upicollect/upicollect-go"
)

// Order is what a merchant tracks: the order id given to the service, the
// amount the merchant expects to be paid, and when the order was created.
type Order struct {
	ID      string           // the order id given to the service
	Amount  upicollect.Money // what the merchant expects to be paid
	Created time.Time        // when the order was created: its schedule counts from here
}

// State is where an order stands, in one vocabulary with the events that
// move it: Pending until the first event, then the Result of its last
// event (Paid, Failed, LatePaid, Expired or Mismatch), or Untracked.
// Pending, Failed and Expired orders are still checked; the others are
// final.
type State string

// Result is what an Event reports about an order: the State it moved the
// order to (Paid, Failed, LatePaid, Expired or Mismatch; never Pending or
// Untracked). It is State, so that an event's result and the order's state
// are read with the same words.
type Result = State

// An order's states and the results of its events. Each event is delivered
// once per order; an order has at most two: one of Paid, Failed, Expired
// or Mismatch, and after Failed or Expired possibly LatePaid or Mismatch.
const (
	Pending  State = "pending"   // no outcome reported yet
	Paid     State = "paid"      // SUCCESS for the expected amount
	Failed   State = "failed"    // FAIL or REJECT; still checked for a late SUCCESS
	LatePaid State = "late_paid" // SUCCESS after the order was reported failed or expired
	Expired  State = "expired"   // no final state within the payer's window; still checked for a late SUCCESS
	Mismatch State = "mismatch"  // SUCCESS for another amount
	// Untracked: Untrack was called; the order is not checked any more
	// and nothing more is delivered for it.
	Untracked State = "untracked"
)

// The states under their 0.3.0 names, which repeated the results' words
// with a prefix.
//
// Deprecated: use Pending, Paid, Failed, LatePaid, Expired, Mismatch and
// Untracked: one word for an order's state and the event that set it.
const (
	StatePending   = Pending
	StateFailed    = Failed
	StateExpired   = Expired
	StatePaid      = Paid
	StateLatePaid  = LatePaid
	StateMismatch  = Mismatch
	StateUntracked = Untracked
)

// Event is one change in an order's outcome, delivered to the Handler.
// Credit Paid, never Order.Amount: the money a payer paid is Paid, and only
// a Paid or LatePaid event is a payment to credit (a Mismatch is one for
// another amount: refund or settle it by hand).
type Event struct {
	Order  Order  // the order as tracked
	Result Result // what happened to it
	// Expected is the amount tracked, Order.Amount: what the merchant
	// expects to be paid.
	Expected upicollect.Money
	// Paid is what the status check reported paid: its amount for a Paid,
	// LatePaid or Mismatch event (a SUCCESS), 0 for a Failed or Expired
	// one, whatever amount a failed answer carried.
	Paid upicollect.Money
	// Status is the status check's answer that produced the event.
	Status *upicollect.PaymentStatus
	// At is the time the check that found it was judged at: the time
	// passed to Step (or the store's clock, when that is earlier), or
	// Confirm's.
	At time.Time
	// Reason says why an order Expired (ReasonNotFound or
	// ReasonNoFinalState); "" for the other results.
	Reason string
	// DeliveredTo names the consumers the event was delivered to, sorted
	// (OrderState's events: Lookup and List fill it in; a Handler's
	// event has none).
	DeliveredTo []string
}

// NewEvent returns the event of o with result r, found by the status
// check st (nil when the event had none) at at: Expected and Paid set by
// the rule their docs give. The sweeper makes its events with it, and a
// Store rebuilds the events it recorded with it.
func NewEvent(o Order, r Result, st *upicollect.PaymentStatus, at time.Time, reason string) Event {
	e := Event{Order: o, Result: r, Expected: o.Amount, Status: st, At: at, Reason: reason}
	if st != nil && (r == Paid || r == LatePaid || r == Mismatch) {
		e.Paid = st.Amount
	}
	return e
}

// final reports whether no check can change st any more.
func (st State) final() bool {
	return st == Paid || st == LatePaid || st == Mismatch || st == Untracked
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

// OrderState is the ledger's view of one order: Sweeper.Confirm's and
// Sweeper.Lookup's result, and what a Store lists.
type OrderState struct {
	Order Order
	State State
	// Events are the events recorded and delivered, oldest first.
	// Event.Status holds TxnStatus, Amount and UTR as recorded, and
	// OrderID.
	Events []Event
	Checks int // status checks answered for it
	// Next is its next scheduled check; zero when none. While a check of
	// it is under way (the order leased), the SQL store gives the lease's
	// end (a lease moves the order there), the memory store the check's
	// scheduled time.
	Next     time.Time
	Failures int // consecutive failed checks or deliveries now
	// Reason says why tracking ended, when it ended without a final state.
	Reason  string
	Updated time.Time // its last change, on the store's clock
}

// Stats counts what a Step did.
type Stats struct {
	Checked  int // status checks answered
	Paid     int // Paid events delivered
	Failed   int // Failed events delivered
	LatePaid int // LatePaid events delivered
	Expired  int // Expired events delivered
	Mismatch int // Mismatch events delivered
	Pending  int // checks that found nothing new
	// Errors counts checks that failed or whose SUCCESS did not name the
	// order (the order is checked again after a backoff), handlers that
	// failed (the event comes again after a backoff) and outcomes dropped
	// because another sweeper had taken the order.
	Errors int
	// NextDue is the earliest time an order can next be checked; zero when
	// no order will be.
	NextDue time.Time
}

// add adds o's counts to s's (NextDue is s's).
func (s *Stats) add(o Stats) {
	s.Checked += o.Checked
	s.Paid += o.Paid
	s.Failed += o.Failed
	s.LatePaid += o.LatePaid
	s.Expired += o.Expired
	s.Mismatch += o.Mismatch
	s.Pending += o.Pending
	s.Errors += o.Errors
}

func (s *Stats) count(r Result) {
	switch r {
	case Paid:
		s.Paid++
	case Failed:
		s.Failed++
	case LatePaid:
		s.LatePaid++
	case Expired:
		s.Expired++
	case Mismatch:
		s.Mismatch++
	}
}
