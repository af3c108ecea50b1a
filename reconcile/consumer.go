package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
	"unicode"
	"unicode/utf8"
)

// DefaultConsumer is the consumer a Sweeper delivers to without
// WithConsumer, and the one a ledger of release 0.3.0 upgrades with.
const DefaultConsumer = "default"

// MaxConsumerNameLen is the longest consumer name, in bytes.
const MaxConsumerNameLen = 200

// Consumer is one delivery target of a ledger (see WithConsumer): what
// Sweeper.Consumers and Store.Consumers list.
type Consumer struct {
	Name      string
	Pending   int       // events recorded for it and not yet delivered
	Delivered int       // events delivered to it (those the store still keeps)
	LastSeen  time.Time // the last step of any sweeper of this consumer (zero: never)
}

// Stale reports whether c looks abandoned at now: it has pending events
// and no sweeper of it has stepped for more than after (a few step
// intervals), or ever. The dashboard and the upicollect command's
// reconcile consumers flag it.
func (c Consumer) Stale(now time.Time, after time.Duration) bool {
	return c.Pending > 0 && (c.LastSeen.IsZero() || now.Sub(c.LastSeen) > after)
}

// WithConsumer names who this Sweeper delivers to (default
// DefaultConsumer). A ledger delivers every event to every consumer once:
// sweepers that share a name share its deliveries (in the handler's
// transaction with a database store); sweepers with different names each
// receive every event. A consumer receives the events recorded from its
// registration (its first Step, Run or Confirm) on; it stays registered
// until removed (RemoveConsumer; a sweeper of it still running registers
// it again at its next step, and receives the events recorded from then
// on).
//
// An event is still recorded once, with one status check: the sweeper
// that finds it delivers it to its own consumer in the transaction that
// records it, and it is recorded pending for every other consumer. Each
// step, after its checks, a sweeper delivers its consumer's pending events
// without checking the service again; a handler's failure leaves that
// event pending, due again after a backoff. New refuses a name that is
// empty, longer than MaxConsumerNameLen bytes, not valid UTF-8, or that
// holds a control character.
func WithConsumer(name string) Option {
	return func(o *options) { o.consumer = name }
}

// ValidateConsumerName reports why name is not a name a consumer can
// have (WithConsumer's rule: not empty, at most MaxConsumerNameLen bytes
// of valid UTF-8, no control character); nil when it is one.
func ValidateConsumerName(name string) error {
	switch {
	case name == "":
		return errors.New("reconcile: WithConsumer: empty consumer name")
	case len(name) > MaxConsumerNameLen:
		return fmt.Errorf("reconcile: WithConsumer: consumer name longer than %d bytes", MaxConsumerNameLen)
	case !utf8.ValidString(name):
		return errors.New("reconcile: WithConsumer: consumer name is not valid UTF-8")
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return errors.New("reconcile: WithConsumer: consumer name holds a control character")
		}
	}
	return nil
}

// Consumers lists the ledger's consumers, by name: each one's pending and
// delivered counts, and the last step of any sweeper of it.
func (s *Sweeper) Consumers(ctx context.Context) ([]Consumer, error) {
	if err := s.cleanup.wait(ctx); err != nil {
		return nil, err
	}
	return s.store.Consumers(ctx)
}

// RemoveConsumer ends a consumer's registration; its undelivered events
// are dropped for it alone. ErrNoConsumer when no consumer has that name.
// Stop its sweepers first: one still running registers it again.
func (s *Sweeper) RemoveConsumer(ctx context.Context, name string) error {
	if err := s.cleanup.wait(ctx); err != nil {
		return err
	}
	return s.store.RemoveConsumer(ctx, name)
}

// register registers the sweeper's consumer and records that it stepped
// at now.
func (s *Sweeper) register(ctx context.Context, now time.Time) error {
	if err := s.store.RegisterConsumer(ctx, s.opts.consumer, now); err != nil {
		return fmt.Errorf("reconcile: registering consumer %q: %w", s.opts.consumer, err)
	}
	s.registered.Store(true)
	return nil
}

// deliverPending delivers the consumer's pending events due at now, batch
// by batch (one CommitDeliveries each), until none is left that this step
// has not tried. It returns an error that ends the step: the store's, or
// ctx's. Leases it took and did not try expire after their TTL. retry is
// the earliest time a delivery that failed is due again (zero: none
// failed).
func (s *Sweeper) deliverPending(ctx context.Context, now time.Time, stats *Stats, errs *[]error) (retry time.Time, err error) {
	for {
		ds, err := s.store.LeaseDeliveries(ctx, s.opts.consumer, now, s.opts.batchSize, s.opts.leaseTTL)
		if err != nil {
			return retry, fmt.Errorf("reconcile: leasing pending deliveries: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return retry, err
		}
		batch := make([]LeasedDelivery, len(ds))
		for i, d := range ds {
			f := d.Failures + 1
			batch[i] = LeasedDelivery{Lease: d, Retry: Retry{Next: now.Add(s.retryAfter(f)), Failures: f}}
		}
		handled := make([]error, len(ds)) // each handler's error
		cerrs, err := s.store.CommitDeliveries(ctx, batch, func(ctx context.Context, i int) error {
			handled[i] = s.deliver(ctx, ds[i].Event)
			return handled[i]
		})
		if err != nil {
			stats.Errors += len(ds)
			return retry, fmt.Errorf("reconcile: delivering %d pending events to %q: %w", len(ds), s.opts.consumer, err)
		}
		for i, err := range cerrs {
			id, result := ds[i].Event.Order.ID, ds[i].Event.Result
			switch {
			case err == nil:
				stats.count(result)
			case handled[i] != nil:
				stats.Errors++
				if next := batch[i].Retry.Next; retry.IsZero() || next.Before(retry) {
					retry = next
				}
				s.log.LogAttrs(ctx, slog.LevelWarn, "reconcile: handler failed; the pending event comes again after a backoff",
					slog.String("order_id", id), slog.String("result", string(result)), slog.String("error", handled[i].Error()))
				*errs = append(*errs, &handlerError{orderID: id, result: result, err: handled[i]})
			case errors.Is(err, ErrLeaseLost):
				stats.Errors++
				s.leaseLost(ctx, id)
			default:
				stats.Errors++
				return retry, fmt.Errorf("reconcile: order %q: delivering %s to %q: %w", id, result, s.opts.consumer, err)
			}
		}
		if len(ds) < s.opts.batchSize {
			return retry, nil
		}
	}
}
