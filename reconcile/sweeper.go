package reconcile

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"sync/atomic"

	"github.com/upicollect/upicollect-go"
)

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
	health  *health   // the service across orders: an outage holds checks
	cleanup *cleanups // what calls whose context ended left to do
	// registered: the consumer was registered (by a step or a Confirm).
	registered atomic.Bool
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
		log = upicollect.DiscardLogger()
	}
	return &Sweeper{client: c, store: st, handler: h, opts: o, log: log, health: &health{}, cleanup: &cleanups{}}, nil
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

// TrackTx tracks o inside the caller's transaction: o is tracked if and
// only if tx commits, so the merchant's order row and its tracking are one
// write (write both, commit, then create the order at the service). A
// store without SQL transactions (the memory store) returns
// ErrNoTransactions. A bad order, or a nil tx, is a
// *upicollect.ValidationError before any I/O.
func (s *Sweeper) TrackTx(ctx context.Context, tx *sql.Tx, o Order) error {
	err := validateOrder(o)
	if tx == nil {
		ve := &upicollect.ValidationError{Op: "reconcile.TrackTx"}
		var v *upicollect.ValidationError
		if errors.As(err, &v) {
			ve.Fields = v.Fields
		}
		ve.Fields = append(ve.Fields, upicollect.FieldError{Field: "tx", Problem: "is required"})
		return ve
	}
	if err != nil {
		return err
	}
	return s.store.TrackTx(ctx, tx, o, s.opts.firstCheck(o.Created))
}

// Lookup returns what the store knows of an order (its state, the events
// delivered, the checks made, the next check); it calls no service.
// ErrNotTracked when the store does not know it.
func (s *Sweeper) Lookup(ctx context.Context, orderID string) (*OrderState, error) {
	if !Trackable(orderID) {
		return nil, ErrNotTracked
	}
	if err := s.cleanup.wait(ctx); err != nil {
		return nil, err
	}
	return s.store.Lookup(ctx, orderID)
}

// Untrack stops checking an order (cancelled by the merchant): nothing more
// is delivered for it once Untrack returns (a delivery under way finishes
// or is undone first). An order already final stays as it is.
// ErrNotTracked when the store does not know it.
func (s *Sweeper) Untrack(ctx context.Context, orderID string) error {
	if !Trackable(orderID) {
		return ErrNotTracked
	}
	if err := s.cleanup.wait(ctx); err != nil {
		return err
	}
	return s.store.Untrack(ctx, orderID)
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
