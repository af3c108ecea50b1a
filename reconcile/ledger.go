package reconcile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"time"

	"github.com/upicollect/upicollect-go"
)

// Reasons tracking ends without a final event (OrderState.Reason).
const (
	// ReasonChecksFailed: the checks at the end of the late window kept
	// failing (or kept answering SUCCESS without naming the order), and
	// the order's tracking ended after lastCheckRetries of them.
	ReasonChecksFailed = "the last checks of the late window failed"
)

// lastCheckRetries is how many times an order's last check of the late
// window is made when it fails, before tracking ends with
// ReasonChecksFailed.
const lastCheckRetries = 5

// backoff is how long after its failures-th consecutive failure (1 for the
// first) an order is due again: interval doubled with every failure after
// the first, at most limit, never less than interval.
func backoff(failures int, interval, limit time.Duration) time.Duration {
	d := interval
	for i := 1; i < failures && d < limit; i++ {
		d *= 2
	}
	return max(interval, min(d, limit))
}

// retryAfter is backoff with the sweeper's options.
func (s *Sweeper) retryAfter(failures int) time.Duration {
	return backoff(failures, s.opts.stepInterval, s.opts.maxBackoff)
}

// clock is the time Run and Confirm step on: the store's, when it keeps
// one, else WithClock's.
func (s *Sweeper) clock(ctx context.Context) (time.Time, error) {
	t, ok, err := s.store.Now(ctx)
	if err != nil {
		return time.Time{}, fmt.Errorf("reconcile: the store's clock: %w", err)
	}
	if ok {
		return t, nil
	}
	return s.opts.now(), nil
}

// judged is the time a step at now judges windows on: now, or the store's
// clock when it keeps one and it is earlier, so that a sweeper whose clock
// is ahead expires and ends nothing early.
func (s *Sweeper) judged(ctx context.Context, now time.Time) (time.Time, error) {
	t, ok, err := s.store.Now(ctx)
	if err != nil {
		return time.Time{}, fmt.Errorf("reconcile: the store's clock: %w", err)
	}
	if ok && t.Before(now) {
		return t, nil
	}
	return now, nil
}

// Step checks every order due at now, leasing them from the store in
// batches, and delivers what changed. It returns when nothing due at now is
// left that it has not checked in this step, or when ctx ends.
//
// API: POST /v1/payments/checkPaymentStatus, once per due order
//
// Due times and the payer's and the late window are judged on now, or on
// the store's clock when it keeps one and is behind now: a sweeper whose
// clock runs ahead checks nothing early and expires nothing early. Checks go through the client: its rate limit, retries and retry
// budget apply. A failed check is counted in Stats.Errors and the order is
// checked again after a backoff (WithMaxBackoff), or at its next scheduled
// check when that is sooner. A handler's error or panic leaves the order's
// event undelivered; the order is checked again after a backoff and the
// event comes then. Step carries on with the other orders and returns the
// handlers' errors joined, each naming its order. A store's error ends the
// step. When the step ends early (ctx, a store's error), the orders it
// leased and did not check are given back at once.
func (s *Sweeper) Step(ctx context.Context, now time.Time) (Stats, error) {
	var (
		stats Stats
		errs  []error
		seen  = map[string]bool{} // checked in this step: not again, even if due
	)
	if err := s.cleanup.wait(ctx); err != nil {
		return stats, err
	}
	judge, err := s.judged(ctx, now)
	if err != nil {
		return stats, err
	}
	for {
		until, probe, held := s.health.held(now)
		if held {
			stats.NextDue = until
			return stats, errors.Join(errs...)
		}
		limit := s.opts.batchSize
		if probe {
			limit = 1 // the service is failing: one check tells whether it is back
		}
		leases, err := s.store.Lease(ctx, judge, limit, s.opts.leaseTTL)
		if err != nil {
			return stats, errors.Join(append(errs, fmt.Errorf("reconcile: leasing due orders: %w", err))...)
		}
		var fresh, again []Lease
		for _, l := range leases {
			if seen[l.Order.ID] {
				again = append(again, l)
				continue
			}
			seen[l.Order.ID] = true
			fresh = append(fresh, l)
		}
		if len(again) > 0 {
			if err := s.store.Release(ctx, again...); err != nil {
				errs = append(errs, fmt.Errorf("reconcile: releasing orders checked in this step: %w", err))
			}
		}
		if len(fresh) == 0 {
			break
		}
		if err := s.checkBatch(ctx, now, judge, fresh, &stats, &errs); err != nil {
			return stats, errors.Join(append(errs, err)...)
		}
		if len(leases) < limit && !probe {
			break
		}
	}
	if until, _, held := s.health.held(now); held {
		stats.NextDue = until
		return stats, errors.Join(errs...)
	}
	next, ok, err := s.store.NextDue(ctx)
	if err != nil {
		errs = append(errs, fmt.Errorf("reconcile: next due order: %w", err))
	} else if ok {
		stats.NextDue = next
	}
	return stats, errors.Join(errs...)
}

// checkBatch checks the leases, delivers the events found one by one and
// records the eventless outcomes together at the end. It returns an error
// that ends the step: the store's, or ctx's. The leases it did not check
// are given back at once, due as they were: after a store's error, and
// when the service turned out to be failing for every order (see Step).
// When ctx ended, nothing more is sent to the store (a step never
// outlives its context, and the store may be what did not answer): those
// leases expire after their TTL.
func (s *Sweeper) checkBatch(ctx context.Context, now, judge time.Time, leases []Lease, stats *Stats, errs *[]error) error {
	ids := make([]string, len(leases))
	open := make(map[string]Lease, len(leases))
	for i, l := range leases {
		ids[i] = l.Order.ID
		open[l.Order.ID] = l
	}
	var (
		stepErr error
		quiet   []Outcome
	)
	for st, err := range s.client.CheckPaymentStatuses(ctx, slices.Values(ids), upicollect.WithConcurrency(s.opts.concurrency)) {
		id := upicollect.OrderIDOf(st, err)
		l, ok := open[id]
		if !ok { // the client names every order it was given
			continue
		}
		if err != nil && ctx.Err() != nil {
			stepErr = ctx.Err() // l is given back below with the others
			break
		}
		if err != nil && s.health.failedAt(id, err, now) {
			// The service is failing for every order, or asked to be
			// left alone: hold the checks. This order and those not
			// checked yet are given back as they were.
			stats.Errors++
			s.log.LogAttrs(ctx, slog.LevelWarn, "reconcile: the service is failing for every order, or asked for a pause; checks are held",
				slog.String("order_id", id), slog.String("error", err.Error()))
			break
		}
		if err == nil {
			s.health.answered()
		}
		delete(open, id)
		u := s.outcome(ctx, judge, l, st, err, stats)
		if u.Event == nil {
			quiet = append(quiet, Outcome{Lease: l, Update: u})
			continue
		}
		if err := s.commitEvent(ctx, now, l, u, stats); err != nil {
			if isHandlerError(err) {
				*errs = append(*errs, err)
				continue
			}
			open[id] = l // not recorded: given back below
			stepErr = err
			break
		}
	}
	rest := make([]Lease, 0, len(open))
	for _, l := range leases {
		if _, ok := open[l.Order.ID]; ok {
			rest = append(rest, l)
		}
	}
	if ctx.Err() != nil {
		s.cleanup.after(ctx, func(cctx context.Context) {
			var ignored Stats
			_ = s.commitQuiet(cctx, quiet, &ignored)
			if len(rest) > 0 {
				_ = s.store.Release(cctx, rest...)
			}
		})
		return ctx.Err()
	}
	if err := s.commitQuiet(ctx, quiet, stats); err != nil && stepErr == nil {
		stepErr = err
	}
	if len(rest) > 0 {
		if err := s.store.Release(ctx, rest...); err != nil && stepErr == nil {
			stepErr = fmt.Errorf("reconcile: giving back %d orders not checked: %w", len(rest), err)
		}
	}
	return stepErr
}

// commitQuiet records eventless outcomes in one call. The orders of a call
// that failed are given back, due as they were.
func (s *Sweeper) commitQuiet(ctx context.Context, cs []Outcome, stats *Stats) error {
	if len(cs) == 0 {
		return nil
	}
	errs, err := s.store.CommitMany(ctx, cs)
	if err != nil {
		stats.Errors += len(cs)
		ls := make([]Lease, len(cs))
		for i, c := range cs {
			ls[i] = c.Lease
		}
		_ = s.store.Release(ctx, ls...)
		return fmt.Errorf("reconcile: recording %d checks: %w", len(cs), err)
	}
	var failed []error
	for i, err := range errs {
		if err == nil {
			continue
		}
		stats.Errors++
		if errors.Is(err, ErrLeaseLost) {
			s.leaseLost(ctx, cs[i].Lease.Order.ID)
			continue
		}
		failed = append(failed, fmt.Errorf("reconcile: order %q: recording the check: %w", cs[i].Lease.Order.ID, err))
	}
	return errors.Join(failed...)
}

// leaseLost logs an outcome dropped because another sweeper took the
// order after this one's lease expired: its outcome counts.
func (s *Sweeper) leaseLost(ctx context.Context, id string) {
	s.log.LogAttrs(ctx, slog.LevelInfo, "reconcile: lease lost; another sweeper has the order", slog.String("order_id", id))
}

// outcome is what a check of l at t (its answer st, or its error err)
// records: Stats are counted here, except for the event's delivery.
func (s *Sweeper) outcome(ctx context.Context, t time.Time, l Lease, st *upicollect.PaymentStatus, err error, stats *Stats) Update {
	if err != nil {
		stats.Errors++
		s.log.LogAttrs(ctx, slog.LevelWarn, "reconcile: status check failed",
			slog.String("order_id", l.Order.ID), slog.String("error", err.Error()))
		return s.failedCheck(ctx, t, l, false)
	}
	if st.TxnStatus == upicollect.TxnSuccess && !st.OrderNamed {
		// The answer did not name its order (the client's reading,
		// PaymentStatus.OrderNamed): it may be about another one (a
		// proxy's mix-up, a cache), so it settles nothing; no Paid,
		// LatePaid or Mismatch comes of it and the order is checked again.
		// FAIL, REJECT and PENDING answers need no name: they end nothing
		// (a Failed or Expired order is still checked for a late SUCCESS).
		stats.Errors++
		s.log.LogAttrs(ctx, slog.LevelWarn, "reconcile: a SUCCESS answer that does not name its order settles nothing; checked again",
			slog.String("order_id", l.Order.ID))
		return s.failedCheck(ctx, t, l, true)
	}
	stats.Checked++
	tr := transitionFor(s.opts.policy, l.Order, l.State, st, t)
	u := Update{State: tr.state, Next: tr.next, Checked: true}
	if end := l.Order.Created.Add(s.opts.lateWindow); u.Next.IsZero() && !u.State.final() && l.Due.Before(end) {
		// A clock far ahead: the order was not due for its last check
		// yet, so it gets that check before its tracking ends.
		u.Next = end
	}
	if tr.result == "" {
		stats.Pending++
		return u
	}
	ev := NewEvent(l.Order, tr.result, st, t, tr.reason)
	u.Event = &ev
	f := l.Failures + 1
	u.Retry = Retry{Next: t.Add(s.retryAfter(f)), Failures: f}
	return u
}

// failedCheck is the outcome of a check of l at t that failed (or whose
// answer could not be trusted: answered is then true): the order keeps its
// state and is due again after a backoff, or at its next scheduled check
// when that is sooner. A failed last check of the late window is made
// again lastCheckRetries times, then tracking ends with ReasonChecksFailed.
func (s *Sweeper) failedCheck(ctx context.Context, t time.Time, l Lease, answered bool) Update {
	f := l.Failures + 1
	u := Update{State: l.State, Checked: answered, Failures: f}
	next := t.Add(s.retryAfter(f))
	sched, ok := s.opts.nextCheck(l.Order.Created, t, l.State)
	switch {
	case ok && sched.Before(next):
		next = sched
		if floor := t.Add(s.opts.stepInterval); next.Before(floor) {
			next = floor
		}
	case !ok && f >= lastCheckRetries:
		s.log.LogAttrs(ctx, slog.LevelWarn, "reconcile: the last checks of the late window failed; the order is no longer tracked",
			slog.String("order_id", l.Order.ID), slog.String("state", string(l.State)), slog.Int("failures", f))
		u.Reason = ReasonChecksFailed
		return u
	}
	u.Next = next
	return u
}

// commitEvent records u, whose event is set, under l and delivers the
// event: it renews the lease first, so the handler (bounded by
// WithHandlerTimeout, shorter than the lease) runs under a lease of full
// length.
func (s *Sweeper) commitEvent(ctx context.Context, now time.Time, l Lease, u Update, stats *Stats) error {
	id, result := l.Order.ID, u.Event.Result
	if err := s.store.Extend(ctx, l, now, s.opts.leaseTTL); err != nil {
		stats.Errors++
		if errors.Is(err, ErrLeaseLost) {
			s.leaseLost(ctx, id)
			return nil
		}
		return fmt.Errorf("reconcile: order %q: renewing the lease: %w", id, err)
	}
	ev := *u.Event
	var handlerErr error
	err := s.store.Commit(ctx, l, u, func(ctx context.Context) error {
		handlerErr = s.deliver(ctx, ev)
		return handlerErr
	})
	switch {
	case err == nil:
		stats.count(result)
		s.client.Observer().FinalState(ctx, finalState(ev))
		return nil
	case handlerErr != nil:
		stats.Errors++
		s.log.LogAttrs(ctx, slog.LevelWarn, "reconcile: handler failed; the event comes again after a backoff",
			slog.String("order_id", id), slog.String("result", string(result)), slog.String("error", handlerErr.Error()))
		return &handlerError{orderID: id, result: result, err: handlerErr}
	case errors.Is(err, ErrLeaseLost):
		stats.Errors++
		s.leaseLost(ctx, id)
		return nil
	default:
		stats.Errors++
		return fmt.Errorf("reconcile: order %q: recording %s: %w", id, result, err)
	}
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

// Confirm polling: how long Confirm first waits for another sweeper's
// lease on the order, and at most.
const (
	confirmPollFirst = 10 * time.Millisecond
	confirmPollMax   = 250 * time.Millisecond
)

// Confirm checks one tracked order now, outside its schedule (the payer is
// back on the return page), under the same lease and record as Step: an
// event it learns goes through the Handler exactly once, whichever of
// Confirm and the sweepers records it first. It returns the order's state
// after the check.
//
// API: POST /v1/payments/checkPaymentStatus, at most once per call
//
// An order with no further check (final, untracked, late window over) is
// not checked: its state is returned as it is. When another sweeper holds
// the order (its check or its delivery under way), Confirm waits for it,
// polling the store, until it can lease the order or the order is final,
// or ctx ends; it never makes a second check racing the first. A failed
// check is recorded as Step records one (the order is checked again after
// a backoff) and returned as the error, with the state. A handler's
// failure is returned as the error, with the state (the event comes again
// after a backoff). ErrNotTracked when the store does not know the order.
func (s *Sweeper) Confirm(ctx context.Context, orderID string) (*OrderState, error) {
	if !Trackable(orderID) {
		return nil, ErrNotTracked
	}
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	if err := s.cleanup.wait(ctx); err != nil {
		return nil, err
	}
	wait := confirmPollFirst
	for {
		now, err := s.clock(ctx)
		if err != nil {
			return nil, err
		}
		if _, _, held := s.health.held(now); held {
			// The service is failing for every order (or asked to be left
			// alone): the ledger's state, and no check beyond the probe.
			st, err := s.store.Lookup(ctx, orderID)
			if err != nil {
				return nil, err
			}
			return st, ErrServiceFailing
		}
		l, err := s.store.LeaseOrder(ctx, orderID, now, s.opts.leaseTTL)
		switch {
		case err == nil:
			confirmed, err := s.confirm(ctx, now, l)
			if errors.Is(err, ErrLeaseLost) {
				break // untracked, or taken after an expiry: look again
			}
			if err != nil && !confirmed {
				return nil, err
			}
			st, lerr := s.store.Lookup(ctx, orderID)
			if lerr != nil {
				return nil, errors.Join(err, lerr)
			}
			return st, err
		case errors.Is(err, ErrOrderDone):
			return s.store.Lookup(ctx, orderID)
		case !errors.Is(err, ErrLeaseHeld):
			return nil, err
		}
		if timer == nil {
			timer = time.NewTimer(wait)
		} else {
			timer.Reset(wait)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
		}
		wait = min(2*wait, confirmPollMax)
	}
}

// confirm checks the order l leases at now and records the outcome.
// recorded says the outcome was recorded (an error then is the check's or
// the handler's, to report with the state).
func (s *Sweeper) confirm(ctx context.Context, now time.Time, l Lease) (recorded bool, err error) {
	st, err := s.client.CheckPaymentStatus(ctx, l.Order.ID)
	if err != nil && ctx.Err() != nil {
		s.giveBack(ctx, l)
		return false, ctx.Err()
	}
	if err == nil {
		s.health.answered()
	} else if s.health.failedAt(l.Order.ID, err, now) {
		err = fmt.Errorf("%w: %w", ErrServiceFailing, err)
	}
	var stats Stats
	u := s.outcome(ctx, now, l, st, err, &stats)
	if u.Event == nil {
		if cerr := s.store.Commit(ctx, l, u, nil); cerr != nil {
			s.giveBack(ctx, l) // nothing when the lease was lost
			return false, cerr
		}
		if err != nil {
			return true, fmt.Errorf("reconcile: order %q: status check: %w", l.Order.ID, err)
		}
		return true, nil
	}
	if err := s.commitEvent(ctx, now, l, u, &stats); err != nil {
		if isHandlerError(err) {
			return true, err
		}
		s.giveBack(ctx, l)
		return false, err
	}
	if stats.Errors > 0 { // the lease was lost: another sweeper has the order
		return false, ErrLeaseLost
	}
	return true, nil
}

// giveBack releases l when Confirm recorded no check under it, so that the
// next Confirm or step need not wait out its TTL: at once while ctx lives,
// else as a cleanup (Confirm never outlives its context).
func (s *Sweeper) giveBack(ctx context.Context, l Lease) {
	if ctx.Err() == nil {
		_ = s.store.Release(ctx, l)
		return
	}
	s.cleanup.after(ctx, func(cctx context.Context) { _ = s.store.Release(cctx, l) })
}

// Run steps on the clock until ctx ends, and returns ctx's error: the
// store's clock when it keeps one, else WithClock's (time.Now by default).
// Between steps it waits until the next order is due, at least a fifth of
// WithStepInterval (never two steps back to back) and at most
// WithStepInterval. Each step is RunStep's: bounded by the lease TTL, so a
// store that stops answering costs one step. A step's errors are logged
// (WithLogger) and passed to WithStepHook's function, not returned: the
// orders concerned are checked again. When that function returns an
// error, Run stops and returns it.
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
		r := s.RunStep(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if r.Err != nil {
			s.log.LogAttrs(ctx, slog.LevelWarn, "reconcile: step", slog.String("error", r.Err.Error()))
		}
		s.log.LogAttrs(ctx, slog.LevelDebug, "reconcile: step",
			slog.Int("checked", r.Stats.Checked), slog.Int("paid", r.Stats.Paid), slog.Int("failed", r.Stats.Failed),
			slog.Int("late_paid", r.Stats.LatePaid), slog.Int("expired", r.Stats.Expired),
			slog.Int("mismatch", r.Stats.Mismatch), slog.Int("errors", r.Stats.Errors))
		if s.opts.stepHook != nil {
			if err := s.opts.stepHook(ctx, r); err != nil {
				return err
			}
		}
		timer.Reset(runWait(r.At, r.Stats.NextDue, s.opts.stepInterval))
	}
}

// StepReport is what one of Run's steps did.
type StepReport struct {
	At    time.Time // the time it stepped at: the store's clock, or WithClock's
	Stats Stats     // what it checked and delivered
	Err   error     // its error: the store's clock, a store's, handlers' (see Step)
}

// RunStep is one of Run's steps: Step at the store's clock when it keeps
// one, else at WithClock's, bounded by the lease TTL. A program that steps
// on its own terms (a cron job's one pass) calls it; Run calls it in a
// loop.
//
// API: POST /v1/payments/checkPaymentStatus, once per due order
func (s *Sweeper) RunStep(ctx context.Context) StepReport {
	ctx, cancel := context.WithTimeout(ctx, s.opts.leaseTTL)
	defer cancel()
	now, err := s.clock(ctx)
	if err != nil {
		return StepReport{At: s.opts.now(), Err: err}
	}
	stats, err := s.Step(ctx, now)
	return StepReport{At: now, Stats: stats, Err: err}
}

// runWait is how long Run waits after a step at now: until next is due,
// at least limit/5 and at most limit.
func runWait(now, next time.Time, limit time.Duration) time.Duration {
	if next.IsZero() {
		return limit
	}
	return min(max(limit/5, next.Sub(now)), limit)
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
	ctx, cancel := context.WithTimeout(ctx, s.opts.handlerTimeout())
	defer cancel()
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
