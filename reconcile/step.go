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
// step. While it checks a batch, it records the last one and leases the
// next one beside it. When the step ends early (ctx, a store's error, the
// service failing), the orders it leased and did not check are given back
// at once.
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
	if err := s.register(ctx, now); err != nil {
		return stats, err
	}
	if err := s.checkDue(ctx, now, judge, seen, &stats, &errs); err != nil {
		return stats, errors.Join(append(errs, err)...)
	}
	// The consumer's pending events need no check: delivered even while
	// the service is failing.
	retry, err := s.deliverPending(ctx, judge, &stats, &errs)
	if err != nil {
		return stats, errors.Join(append(errs, err)...)
	}
	if until, _, held := s.health.held(now); held {
		stats.NextDue = until
		return stats, errors.Join(errs...)
	}
	next, ok, err := s.store.NextDue(ctx, now)
	if err != nil {
		errs = append(errs, fmt.Errorf("reconcile: next due order: %w", err))
	} else if ok {
		stats.NextDue = next
	}
	if !retry.IsZero() && (stats.NextDue.IsZero() || retry.Before(stats.NextDue)) {
		stats.NextDue = retry // a pending delivery that failed is due again then
	}
	return stats, errors.Join(errs...)
}

// checkDue leases and checks the orders due at judge, batch by batch,
// until none is left that this step has not checked (seen), or the
// service is failing for every order. It returns an error that ends the
// step. The store's work runs beside the checks: while a batch is checked,
// the next one is leased (ahead, after a full batch) and the last one
// recorded, so that the checks wait for the store only when it is the
// slower. A batch leased ahead and not checked (the service turned out to
// be failing, the step ended) is given back, due as it was; a lease ahead
// that failed is made again, after the last batch's recording. When the
// store recorded none of the last batch, the batch checked beside it is
// given back too; when it refused some of its outcomes, that batch is
// recorded and the step ends after it.
func (s *Sweeper) checkDue(ctx context.Context, now, judge time.Time, seen map[string]bool, stats *Stats, errs *[]error) (err error) {
	var (
		ahead *leasing   // the next batch, being leased
		last  *recording // the last batch's outcomes, being recorded
	)
	// settle ends the last batch's recording: before the step leases or
	// gives back on its own goroutine (on SQLite the recording's
	// transaction holds the one write lock while its handlers run), and
	// before it returns.
	settle := func() error {
		if last == nil {
			return nil
		}
		r := last
		last = nil
		return s.endRecording(ctx, r, stats, errs)
	}
	defer func() {
		if rerr := settle(); rerr != nil {
			switch {
			case err == nil:
				err = rerr
			case ctx.Err() == nil || !errors.Is(rerr, ctx.Err()): // ctx's error is said once
				*errs = append(*errs, rerr)
			}
		}
		if ahead != nil {
			s.dropLeasing(ctx, ahead, errs)
		}
	}()
	for {
		_, probe, held := s.health.held(now)
		if held {
			return nil
		}
		limit := s.opts.batchSize
		if probe {
			limit = 1 // the service is failing: one check tells whether it is back
		}
		leases, err := s.nextBatch(ctx, judge, limit, probe, ahead, settle, errs)
		ahead = nil // taken or dropped by nextBatch
		if err != nil {
			return err
		}
		if len(leases) == 0 {
			return nil // nothing left due
		}
		// Seen failing (by a Confirm) while the batch was leased: it is
		// given back, due as it was, and the checks are held or probe.
		failing := !probe && s.health.failing(now)
		var fresh, again []Lease
		for _, l := range leases {
			if failing || seen[l.Order.ID] {
				again = append(again, l)
				continue
			}
			seen[l.Order.ID] = true
			fresh = append(fresh, l)
		}
		if len(again) > 0 {
			if err := settle(); err != nil {
				s.giveBack(ctx, leases...)
				return err
			}
			what := "orders leased again in this step"
			if failing {
				what = "orders leased as the service failed"
			}
			s.release(ctx, again, what, errs)
		}
		if failing && ctx.Err() == nil {
			continue
		}
		if len(fresh) == 0 {
			return ctx.Err()
		}
		more := len(leases) == limit
		if more && !probe {
			ahead = s.startLeasing(ctx, judge, limit)
		}
		checked, rest, err := s.checkBatch(ctx, now, judge, fresh, stats)
		if err != nil {
			return err
		}
		if r := last; r != nil {
			last = nil
			if err := s.endRecording(ctx, r, stats, errs); err != nil {
				if r.none {
					// The store recorded none of it: this batch is not
					// recorded either, and its orders are given back, due
					// as they were.
					stats.Errors += len(checked)
					s.giveBack(ctx, append(rest, leasesOf(checked)...)...)
					return err
				}
				// It refused some outcomes: this batch is recorded all the
				// same, and the step ends after it.
				last = s.startRecording(ctx, checked, rest)
				return err
			}
		}
		last = s.startRecording(ctx, checked, rest)
		if !more && !probe {
			return nil
		}
	}
}

// release gives ls back, due as they were: at once while ctx lives (a
// failure, named by what, is added to errs), else by a cleanup.
func (s *Sweeper) release(ctx context.Context, ls []Lease, what string, errs *[]error) {
	if ctx.Err() != nil {
		s.giveBack(ctx, ls...)
		return
	}
	if err := s.store.Release(ctx, ls...); err != nil {
		*errs = append(*errs, fmt.Errorf("reconcile: giving back %d %s: %w", len(ls), what, err))
	}
}

// nextBatch leases the step's next batch of up to limit orders: ahead's,
// when a lease ahead is under way (nil: none) and the step is not probing;
// else (and when ahead's failed: on SQLite's one writer it may have waited
// past the busy timeout for the last batch's recording) a Lease made now,
// once settle has ended the last batch's recording (whose error it
// returns). ahead is taken or dropped either way.
func (s *Sweeper) nextBatch(ctx context.Context, judge time.Time, limit int, probe bool, ahead *leasing, settle func() error, errs *[]error) ([]Lease, error) {
	if ahead != nil && !probe {
		leases, err := s.takeLeasing(ctx, ahead, errs)
		if err == nil || ctx.Err() != nil {
			return leases, leaseError(err)
		}
		s.log.LogAttrs(ctx, slog.LevelWarn, "reconcile: leasing the next batch beside the last one failed; leasing it again",
			slog.String("error", err.Error()))
		ahead = nil
	}
	err := settle()
	if ahead != nil { // leased before the service was seen failing
		s.dropLeasing(ctx, ahead, errs)
	}
	if err != nil {
		return nil, err
	}
	leases, err := s.store.Lease(ctx, judge, limit, s.opts.leaseTTL)
	return leases, leaseError(err)
}

// leaseError is a Lease's error as the step returns it.
func leaseError(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("reconcile: leasing due orders: %w", err)
}

// leasing is a Lease under way on a goroutine of its own.
type leasing struct {
	done   chan struct{} // closed when the Lease returned
	leases []Lease
	err    error
}

// startLeasing leases up to limit orders due at judge on a goroutine of its
// own; takeLeasing or dropLeasing ends it.
func (s *Sweeper) startLeasing(ctx context.Context, judge time.Time, limit int) *leasing {
	l := &leasing{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.leases, l.err = s.store.Lease(ctx, judge, limit, s.opts.leaseTTL)
	}()
	return l
}

// takeLeasing waits for l's leases, or for ctx to end: l is then dropped
// (its leases given back when they come), and ctx's error returned.
func (s *Sweeper) takeLeasing(ctx context.Context, l *leasing, errs *[]error) ([]Lease, error) {
	select {
	case <-l.done:
		return l.leases, l.err
	case <-ctx.Done():
		s.dropLeasing(ctx, l, errs)
		return nil, ctx.Err()
	}
}

// dropLeasing gives l's leases back, due as they were: while ctx lives, at
// once, after waiting for l's Lease to return (a failed Release is added to
// errs); once ctx has ended, by a cleanup when the Lease returns (a step
// never outlives its context).
func (s *Sweeper) dropLeasing(ctx context.Context, l *leasing, errs *[]error) {
	select {
	case <-l.done:
		if l.err != nil || len(l.leases) == 0 {
			return
		}
		if ctx.Err() == nil {
			if err := s.store.Release(ctx, l.leases...); err != nil {
				*errs = append(*errs, fmt.Errorf("reconcile: giving back %d orders leased ahead: %w", len(l.leases), err))
			}
			return
		}
	case <-ctx.Done():
	}
	s.cleanup.after(ctx, func(cctx context.Context) {
		select {
		case <-l.done:
			if l.err == nil && len(l.leases) > 0 {
				_ = s.store.Release(cctx, l.leases...)
			}
		case <-cctx.Done(): // the leases expire after their TTL
		}
	})
}

// checkBatch checks the leases. It returns the outcomes of those it
// checked, and the leases it did not check (the service turned out to be
// failing for every order: see Step), to be recorded and given back by
// startRecording. When ctx ended, nothing more is sent to the store from
// this step (a step never outlives its context, and the store may be what
// did not answer): a bounded cleanup after it records the quiet outcomes
// and gives back the rest, events undelivered (they come again at the next
// check), and ctx's error is returned.
func (s *Sweeper) checkBatch(ctx context.Context, now, judge time.Time, leases []Lease, stats *Stats) ([]LeasedUpdate, []Lease, error) {
	var checked []LeasedUpdate
	ids := make([]string, len(leases))
	open := make(map[string]Lease, len(leases))
	for i, l := range leases {
		ids[i] = l.Order.ID
		open[l.Order.ID] = l
	}
	for st, err := range s.client.CheckPaymentStatuses(ctx, slices.Values(ids), upicollect.WithConcurrency(s.opts.concurrency)) {
		id := upicollect.OrderIDOf(st, err)
		l, ok := open[id]
		if !ok { // the client names every order it was given
			continue
		}
		if err != nil && ctx.Err() != nil {
			break // l is given back below with the others
		}
		if answeredBy(err) {
			s.health.answered()
		} else if s.health.failedAt(id, err, now) {
			// The service is failing for every order, or asked to be
			// left alone: hold the checks. This order and those not
			// checked yet are given back as they were.
			stats.Errors++
			s.log.LogAttrs(ctx, slog.LevelWarn, "reconcile: the service is failing for every order, or asked for a pause; checks are held",
				slog.String("order_id", id), slog.String("error", err.Error()))
			break
		}
		delete(open, id)
		checked = append(checked, LeasedUpdate{Lease: l, Update: s.outcome(ctx, judge, l, st, err, stats)})
	}
	rest := make([]Lease, 0, len(open))
	for _, l := range leases {
		if _, ok := open[l.Order.ID]; ok {
			rest = append(rest, l)
		}
	}
	if ctx.Err() != nil {
		s.cleanup.after(ctx, func(cctx context.Context) {
			var quiet []LeasedUpdate
			for _, c := range checked {
				if c.Update.Event == nil {
					quiet = append(quiet, c)
				} else {
					rest = append(rest, c.Lease)
				}
			}
			var (
				ignored Stats
				dropped []error
			)
			_, _ = s.record(cctx, quiet, &ignored, &dropped)
			if len(rest) > 0 {
				_ = s.store.Release(cctx, rest...)
			}
		})
		return nil, nil, ctx.Err()
	}
	return checked, rest, nil
}

// recording is a batch's outcomes being recorded, and the leases it did
// not check being given back, on a goroutine of its own, beside the next
// batch's checks (as River's completer records finished jobs beside the
// work). Its counts and handlers' errors are its own until endRecording
// adds them to the step's.
type recording struct {
	done     chan struct{} // closed when recorded
	stats    Stats
	errs     []error
	err      error // the store's: it ends the step
	none     bool  // the store recorded none of the batch (err says why)
	panicked any   // a panic of the recording's (an Observer's, a store's), with its stack
}

// startRecording records checked (see record) and gives rest back, due as
// they were, on a goroutine of its own; endRecording ends it. One batch is
// recorded at a time: its handlers run one at a time, after the last
// batch's.
func (s *Sweeper) startRecording(ctx context.Context, checked []LeasedUpdate, rest []Lease) *recording {
	r := &recording{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		defer func() {
			if p := recover(); p != nil {
				r.panicked = fmt.Sprintf("%v\n\nrecording a batch, on the goroutine:\n%s", p, debug.Stack())
			}
		}()
		_, r.err = s.record(ctx, checked, &r.stats, &r.errs)
		var nr *notRecorded
		r.none = errors.As(r.err, &nr)
		if len(rest) > 0 {
			if err := s.store.Release(ctx, rest...); err != nil && r.err == nil {
				r.err = fmt.Errorf("reconcile: giving back %d orders not checked: %w", len(rest), err)
			}
		}
	}()
	return r
}

// endRecording waits for r and adds its counts and handlers' errors to the
// step's; it returns the store's error, which ends the step, and raises a
// panic of r's again. When ctx ends first (r's store calls end with it,
// its handlers after WithHandlerTimeout), the wait goes on in a cleanup
// (which logs a panic of r's) and ctx's error is returned: a step never
// outlives its context.
func (s *Sweeper) endRecording(ctx context.Context, r *recording, stats *Stats, errs *[]error) error {
	select {
	case <-r.done:
	case <-ctx.Done():
		select {
		case <-r.done:
		default:
			s.cleanup.after(ctx, func(cctx context.Context) {
				select {
				case <-r.done:
					if r.panicked != nil { // no caller left to raise it to
						s.log.LogAttrs(cctx, slog.LevelError, "reconcile: recording a batch panicked after its step had ended",
							slog.Any("panic", r.panicked))
					}
				case <-cctx.Done():
				}
			})
			return ctx.Err()
		}
	}
	if r.panicked != nil {
		panic(r.panicked)
	}
	stats.add(r.stats)
	*errs = append(*errs, r.errs...)
	return r.err
}

// notRecorded is record's error when the store recorded none of a batch
// (its orders were given back).
type notRecorded struct{ err error }

func (e *notRecorded) Error() string { return e.err.Error() }
func (e *notRecorded) Unwrap() error { return e.err }

// leasesOf is the leases of cs.
func leasesOf(cs []LeasedUpdate) []Lease {
	ls := make([]Lease, len(cs))
	for i, c := range cs {
		ls[i] = c.Lease
	}
	return ls
}

// record records a batch's outcomes in one CommitMany, the events
// delivered to the sweeper's consumer inside it, one handler at a time. A
// handler's error or panic leaves its event undelivered (the order is
// checked again after a backoff) and is added to errs. lost counts the
// outcomes dropped because their lease was lost. err is the store's: for
// the whole call, or for outcomes it could not record (their orders are
// given back, due as they were, either way).
func (s *Sweeper) record(ctx context.Context, cs []LeasedUpdate, stats *Stats, errs *[]error) (lost int, err error) {
	if len(cs) == 0 {
		return 0, nil
	}
	var deliver func(context.Context, int) error
	handled := make([]error, len(cs)) // each handler's error
	for i := range cs {
		if cs[i].Update.Event != nil {
			cs[i].Update.Consumer = s.opts.consumer
			deliver = func(ctx context.Context, i int) error {
				handled[i] = s.deliver(ctx, *cs[i].Update.Event)
				return handled[i]
			}
		}
	}
	cerrs, err := s.store.CommitMany(ctx, cs, deliver)
	if err != nil {
		stats.Errors += len(cs)
		s.giveBack(ctx, leasesOf(cs)...)
		return 0, &notRecorded{fmt.Errorf("reconcile: recording %d checks: %w", len(cs), err)}
	}
	var (
		failed  []error
		refused []Lease // recorded by no transaction: given back
	)
	for i, err := range cerrs {
		c := cs[i]
		id := c.Lease.Order.ID
		switch {
		case err == nil:
			if ev := c.Update.Event; ev != nil {
				stats.count(ev.Result)
				s.client.Observer().FinalState(ctx, finalState(*ev))
			}
		case errors.Is(err, ErrLeaseLost):
			stats.Errors++
			lost++
			s.leaseLost(ctx, id)
		case handled[i] != nil:
			stats.Errors++
			result := c.Update.Event.Result
			s.log.LogAttrs(ctx, slog.LevelWarn, "reconcile: handler failed; the event comes again after a backoff",
				slog.String("order_id", id), slog.String("result", string(result)), slog.String("error", handled[i].Error()))
			*errs = append(*errs, &handlerError{orderID: id, result: result, err: handled[i]})
		default:
			stats.Errors++
			refused = append(refused, c.Lease)
			failed = append(failed, fmt.Errorf("reconcile: order %q: recording the check: %w", id, err))
		}
	}
	if len(refused) > 0 {
		s.giveBack(ctx, refused...) // due again as they were, not at their leases' end
	}
	return lost, errors.Join(failed...)
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
