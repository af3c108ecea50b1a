package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"
)

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
// the order (its check or its delivery under way, or its step's next batch
// leased beside the one it checks: up to two batches' checks and a
// record), Confirm waits for it, polling the store, until it can lease the
// order or the order is final, or ctx ends; it never makes a second check
// racing the first. A failed check is recorded as Step records one (the
// order is checked again after a backoff) and returned as the error, with
// the state. A handler's failure is returned as the error, with the state
// (the event comes again after a backoff). ErrNotTracked when the store
// does not know the order.
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
		if !s.registered.Load() {
			if err := s.register(ctx, now); err != nil {
				return nil, err
			}
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
	if answeredBy(err) {
		s.health.answered()
	} else if s.health.failedAt(l.Order.ID, err, now) {
		err = fmt.Errorf("%w: %w", ErrServiceFailing, err)
	}
	var (
		stats    Stats
		handlers []error
	)
	u := s.outcome(ctx, now, l, st, err, &stats)
	lost, rerr := s.record(ctx, []LeasedUpdate{{Lease: l, Update: u}}, &stats, &handlers)
	switch {
	case rerr != nil:
		return false, rerr // given back by record
	case lost > 0: // another sweeper has the order
		return false, ErrLeaseLost
	case len(handlers) > 0:
		return true, handlers[0]
	case err != nil:
		return true, fmt.Errorf("reconcile: order %q: status check: %w", l.Order.ID, err)
	}
	return true, nil
}

// giveBack releases ls when no check was recorded under them, so that the
// next Confirm or step need not wait out their TTL: at once while ctx
// lives, else as a cleanup (a call never outlives its context).
func (s *Sweeper) giveBack(ctx context.Context, ls ...Lease) {
	if ctx.Err() == nil {
		_ = s.store.Release(ctx, ls...)
		return
	}
	s.cleanup.after(ctx, func(cctx context.Context) { _ = s.store.Release(cctx, ls...) })
}
