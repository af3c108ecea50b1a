package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
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
	// At is the time passed to the Step that found it.
	At time.Time
	// Reason says why an order Expired (ReasonNotFound or
	// ReasonNoFinalState); "" for the other results.
	Reason string
}

// Handler is called once per event of an order; an error leaves the event
// to be delivered again. A panic is recovered and counts as an error.
// Inside a database Store's transaction (reconcile/sqlstore), the handler's
// writes to that database commit with the event's record, or not at all.
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
	// Errors counts checks that failed (the order is checked again at its
	// next scheduled time), handlers that failed (the event comes again at
	// the next step) and outcomes dropped because another sweeper had
	// taken the order.
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
// again changes nothing. A bad order (an id the service would refuse, an
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

// Step checks every order due at now, leasing them from the store in
// batches, and delivers what changed. It returns when nothing due at now is
// left that it has not checked in this step, or when ctx ends.
//
// API: POST /v1/payments/checkPaymentStatus, once per due order
//
// Checks go through the client: its rate limit, retries and retry budget
// apply. A failed check is counted in Stats.Errors and the order is checked
// again at its next scheduled time. A handler's error or panic leaves the
// order due with its event undelivered, so the next step delivers it again;
// Step carries on with the other orders and returns those errors joined,
// each naming its order. A store's error ends the step. When ctx ends, the
// orders leased and not yet checked are released and Step returns ctx's
// error.
func (s *Sweeper) Step(ctx context.Context, now time.Time) (Stats, error) {
	var (
		stats Stats
		errs  []error
		seen  = map[string]bool{} // checked in this step: not again, even if due
	)
	for {
		leases, err := s.store.Lease(ctx, now, s.opts.batchSize, s.opts.leaseTTL)
		if err != nil {
			return stats, errors.Join(append(errs, fmt.Errorf("reconcile: leasing due orders: %w", err))...)
		}
		fresh := make(map[string]Lease, len(leases))
		for _, l := range leases {
			if seen[l.Order.ID] {
				if err := s.store.Release(ctx, l); err != nil && !errors.Is(err, ErrLeaseLost) {
					errs = append(errs, fmt.Errorf("reconcile: order %q: releasing: %w", l.Order.ID, err))
				}
				continue
			}
			seen[l.Order.ID] = true
			fresh[l.Order.ID] = l
		}
		if len(fresh) == 0 {
			break
		}
		if err := s.checkBatch(ctx, now, leases, fresh, &stats, &errs); err != nil {
			return stats, errors.Join(append(errs, err)...)
		}
		if len(leases) < s.opts.batchSize {
			break
		}
	}
	next, ok, err := s.store.NextDue(ctx)
	if err != nil {
		errs = append(errs, fmt.Errorf("reconcile: next due order: %w", err))
	} else if ok {
		stats.NextDue = next
	}
	return stats, errors.Join(errs...)
}

// checkBatch checks the fresh leases (in lease order) and records each
// outcome. It returns an error that ends the step: the store's, or ctx's
// (then the unchecked leases are released).
func (s *Sweeper) checkBatch(ctx context.Context, now time.Time, order []Lease, fresh map[string]Lease, stats *Stats, errs *[]error) error {
	// The ids are listed first: the batch reads them from its own
	// goroutine while this loop takes fresh's entries out.
	ids := make([]string, 0, len(fresh))
	for _, l := range order {
		if _, ok := fresh[l.Order.ID]; ok {
			ids = append(ids, l.Order.ID)
		}
	}
	var stepErr error
	for st, err := range s.client.CheckPaymentStatuses(ctx, slices.Values(ids), upicollect.WithConcurrency(s.opts.concurrency)) {
		id := orderOf(st, err)
		l, ok := fresh[id]
		if !ok { // the client names every order it was given
			continue
		}
		if err != nil && ctx.Err() != nil {
			stepErr = ctx.Err() // l is released below with the others
			break
		}
		delete(fresh, id)
		if err != nil {
			stats.Errors++
			s.log.LogAttrs(ctx, slog.LevelWarn, "reconcile: status check failed",
				slog.String("order_id", id), slog.String("error", err.Error()))
			next, _ := s.opts.nextCheck(l.Order.Created, now, l.State)
			if err := s.store.Commit(ctx, l, Update{State: l.State, Next: retryAt(next, now)}, nil); err != nil && !errors.Is(err, ErrLeaseLost) {
				stepErr = fmt.Errorf("reconcile: order %q: releasing: %w", id, err)
				break
			}
			continue
		}
		stats.Checked++
		switch err := s.record(ctx, now, l, st, stats); {
		case err == nil:
		case errors.Is(err, ErrLeaseLost):
			// Another sweeper took the order after this lease expired: its
			// outcome counts, this one was dropped whole.
			s.log.LogAttrs(ctx, slog.LevelInfo, "reconcile: lease lost; another sweeper has the order", slog.String("order_id", id))
		case isHandlerError(err):
			*errs = append(*errs, err)
		default:
			stepErr = err
		}
		if stepErr != nil {
			break
		}
	}
	if stepErr != nil {
		// Leases not checked go back as they were; a context that ended
		// cannot be used to give them back, so the store gets a fresh one.
		rctx := context.WithoutCancel(ctx)
		for _, l := range fresh {
			_ = s.store.Release(rctx, l)
		}
		return stepErr
	}
	return nil
}

// retryAt is when an order whose check failed is checked again: at its
// next scheduled check, or at now when it has none left (the last check of
// the late window failed): the next step tries again.
func retryAt(next, now time.Time) time.Time {
	if next.IsZero() {
		return now
	}
	return next
}

// orderOf returns the order a batch result is about.
func orderOf(st *upicollect.PaymentStatus, err error) string {
	if st != nil {
		return st.OrderID
	}
	var ae *upicollect.APIError
	if errors.As(err, &ae) {
		return ae.OrderID
	}
	return ""
}

// record commits one check's outcome, delivering its event if there is one.
func (s *Sweeper) record(ctx context.Context, now time.Time, l Lease, st *upicollect.PaymentStatus, stats *Stats) error {
	t := decide(s.opts.policy, l.Order, l.State, st, now)
	u := Update{State: t.state, Next: t.next}
	if t.result == "" {
		stats.Pending++
		if err := s.store.Commit(ctx, l, u, nil); err != nil {
			stats.Errors++
			return fmt.Errorf("reconcile: order %q: recording the check: %w", l.Order.ID, err)
		}
		return nil
	}
	ev := Event{Order: l.Order, Result: t.result, Status: st, At: now, Reason: t.reason}
	u.Event = &ev
	var handlerErr error
	err := s.store.Commit(ctx, l, u, func(ctx context.Context) error {
		handlerErr = s.deliver(ctx, ev)
		return handlerErr
	})
	switch {
	case err == nil:
		stats.count(t.result)
		s.client.ObserveFinalState(ctx, finalState(ev))
		return nil
	case handlerErr != nil:
		stats.Errors++
		s.log.LogAttrs(ctx, slog.LevelWarn, "reconcile: handler failed; the event comes again at the next step",
			slog.String("order_id", l.Order.ID), slog.String("result", string(t.result)), slog.String("error", err.Error()))
		return &handlerError{orderID: l.Order.ID, result: t.result, err: handlerErr}
	default:
		stats.Errors++
		return fmt.Errorf("reconcile: order %q: recording %s: %w", l.Order.ID, t.result, err)
	}
}

// finalState is ev for the client's Observer (the time to a final state
// counts from the order's creation).
func finalState(ev Event) upicollect.FinalState {
	f := upicollect.FinalState{Source: "reconcile", OrderID: ev.Order.ID, Result: string(ev.Result), Elapsed: ev.At.Sub(ev.Order.Created)}
	if ev.Status != nil {
		f.Status = ev.Status.TxnStatus
	}
	return f
}

// deliver calls the handler, turning a panic into an error.
func (s *Sweeper) deliver(ctx context.Context, ev Event) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("handler panicked: %v", p)
			s.log.LogAttrs(ctx, slog.LevelError, "reconcile: handler panicked",
				slog.String("order_id", ev.Order.ID), slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
		}
	}()
	return s.handler(ctx, ev)
}

// handlerError is a handler's failure for one order's event.
type handlerError struct {
	orderID string
	result  Result
	err     error
}

func (e *handlerError) Error() string {
	return fmt.Sprintf("reconcile: order %q: handling %s: %v", e.orderID, e.result, e.err)
}

func (e *handlerError) Unwrap() error { return e.err }

func isHandlerError(err error) bool {
	var he *handlerError
	return errors.As(err, &he)
}

// Run steps on the clock (WithClock's, time.Now by default) until ctx
// ends, and returns ctx's error. Between steps it waits until the next
// order is due, at most WithStepInterval. A step's errors are logged
// (WithLogger), not returned: the orders concerned are checked again.
//
// API: POST /v1/payments/checkPaymentStatus, once per due order
func (s *Sweeper) Run(ctx context.Context) error {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
		now := s.opts.now()
		stats, err := s.Step(ctx, now)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			s.log.LogAttrs(ctx, slog.LevelWarn, "reconcile: step", slog.String("error", err.Error()))
		}
		s.log.LogAttrs(ctx, slog.LevelDebug, "reconcile: step",
			slog.Int("checked", stats.Checked), slog.Int("paid", stats.Paid), slog.Int("failed", stats.Failed),
			slog.Int("late_paid", stats.LatePaid), slog.Int("expired", stats.Expired),
			slog.Int("mismatch", stats.Mismatch), slog.Int("errors", stats.Errors))
		timer.Reset(runWait(now, stats.NextDue, s.opts.stepInterval))
	}
}

// runWait is how long Run waits after a step at now: until next is due,
// at most limit.
func runWait(now, next time.Time, limit time.Duration) time.Duration {
	if next.IsZero() {
		return limit
	}
	return min(max(0, next.Sub(now)), limit)
}

// discardHandler drops every record (slog.DiscardHandler arrived in Go 1.24).
type discardHandler struct{}

func (discardHandler) Enabled(context.Context, slog.Level) bool  { return false }
func (discardHandler) Handle(context.Context, slog.Record) error { return nil }
func (d discardHandler) WithAttrs([]slog.Attr) slog.Handler      { return d }
func (d discardHandler) WithGroup(string) slog.Handler           { return d }
