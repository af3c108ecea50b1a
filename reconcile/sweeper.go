package reconcile

import (
	"context"
	"errors"
	"log/slog"
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

// Result is what an Event reports about an order.
type Result string

// The events of an order. Each is delivered once per order; an order has at
// most two: one of Paid, Failed, Expired or Mismatch, and after Failed or
// Expired possibly LatePaid or Mismatch.
const (
	Paid     Result = "paid"      // SUCCESS for the expected amount
	Failed   Result = "failed"    // FAIL or REJECT
	LatePaid Result = "late_paid" // SUCCESS after the order was reported failed or expired
	Expired  Result = "expired"   // no final state within the payer's window
	Mismatch Result = "mismatch"  // SUCCESS for another amount
)

// Event is one change in an order's outcome, delivered to the Handler.
type Event struct {
	Order  Order  // the order as tracked
	Result Result // what happened to it
	// Status is the status check's answer that produced the event.
	Status *upicollect.PaymentStatus
	// At is the time the check that found it was judged at: the time
	// passed to Step (or the store's clock, when that is earlier), or
	// Confirm's.
	At time.Time
	// Reason says why an order Expired (ReasonNotFound or
	// ReasonNoFinalState); "" for the other results.
	Reason string
}

// Handler is called once per event of an order; an error leaves the event
// to be delivered again (after a backoff). A panic is recovered and counts
// as an error. Its context ends after WithHandlerTimeout (half the lease
// TTL by default): a handler that needs longer must finish its work
// elsewhere (a queue of its own) and return.
//
// Only a database Store gives the handler a transaction: with the
// reconcile/sqlstore module's store, sqlstore.Tx(ctx) is the transaction
// that records the event, and the handler's writes through it commit with
// the event's record, or not at all. With the memory store there is no
// transaction (sqlstore.Tx returns nil outside a database store's
// delivery): write through your own database then, and make the write
// idempotent, keyed by order id and Result, since a crash between the
// handler's return and the record repeats the event.
type Handler func(ctx context.Context, e Event) error

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

// Sweeper checks tracked orders on a schedule until each has its final
// state, and delivers each change to a Handler once. Several sweepers, in
// one process or many, may share a Store: each due order is leased to one
// of them at a time.
type Sweeper struct {
	client  *upicollect.Client
	store   Store
	handler Handler
	opts    options
	log     *slog.Logger
}

// New returns a Sweeper that checks orders with c, keeps them in st and
// delivers their events to h. It fails on a nil argument or an invalid
// option.
func New(c *upicollect.Client, st Store, h Handler, opts ...Option) (*Sweeper, error) {
	o := defaultOptions()
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	var errs []error
	if c == nil || st == nil || h == nil {
		errs = append(errs, errors.New("reconcile: New: client, store and handler are required"))
	}
	if err := o.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	log := o.logger
	if log == nil {
		log = slog.New(discardHandler{})
	}
	return &Sweeper{client: c, store: st, handler: h, opts: o, log: log}, nil
}

// Track starts tracking o: it is checked on the schedule from o.Created
// until its final state or the end of the late window. Tracking an order id
// again with the same amount changes nothing; with another amount it is
// ErrTrackedDifferently (the first amount stays). Track before you create
// the order at the service, so that a crash between the two leaves an
// order that is checked (and reported Expired), never one nobody checks;
// with a database store, TrackTx in the transaction that writes your order
// row is better still. A bad order (an id the service would refuse, an
// amount that is not positive, no creation time) is a
// *upicollect.ValidationError naming the fields, before any I/O.
func (s *Sweeper) Track(ctx context.Context, o Order) error {
	if err := validateOrder(o); err != nil {
		return err
	}
	return s.store.Track(ctx, o, s.opts.firstCheck(o.Created))
}

// validateOrder lists every problem of o.
func validateOrder(o Order) error {
	const op = "reconcile.Track"
	ve := &upicollect.ValidationError{Op: op}
	var idErr *upicollect.ValidationError
	if errors.As(upicollect.ValidateOrderID(op, o.ID), &idErr) {
		ve.Fields = append(ve.Fields, idErr.Fields...)
	}
	if o.Amount <= 0 {
		ve.Fields = append(ve.Fields, upicollect.FieldError{Field: "amount", Problem: "must be positive"})
	}
	if o.Created.IsZero() {
		ve.Fields = append(ve.Fields, upicollect.FieldError{Field: "created", Problem: "is required"})
	}
	if len(ve.Fields) == 0 {
		return nil
	}
	return ve
}

// discardHandler drops every record (slog.DiscardHandler arrived in Go 1.24).
type discardHandler struct{}

func (discardHandler) Enabled(context.Context, slog.Level) bool  { return false }
func (discardHandler) Handle(context.Context, slog.Record) error { return nil }
func (d discardHandler) WithAttrs([]slog.Attr) slog.Handler      { return d }
func (d discardHandler) WithGroup(string) slog.Handler           { return d }
