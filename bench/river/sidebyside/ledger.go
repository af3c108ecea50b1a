package sidebyside

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
)

// The ledger's loop: batches of LedgerBatch leases, each held for
// ledgerTTL; one order in EventEvery gets an event.
const (
	// LedgerBatch is the orders a loop leases and commits at once.
	LedgerBatch = 256
	// EventEvery: one order in EventEvery is paid (an event) in the step
	// loop; the others stay pending, checked again an hour later.
	EventEvery = 25
	ledgerTTL  = time.Minute
)

// loadOrders tracks n orders o-0000001 … due an hour before now, one
// microsecond apart, with one INSERT … SELECT generate_series, as Track
// writes them, then VACUUM ANALYZEs and checkpoints (settle). Track would
// be a transaction and a WAL flush per order: minutes at 1M, measuring
// Track rather than the loop, as River's load (InsertMany of batches) is
// not measured either.
func (b *Bench) loadOrders(ctx context.Context, n int, now time.Time) error {
	base := now.Add(-time.Hour).UnixNano()
	if _, err := b.pool.Exec(ctx, `INSERT INTO `+sqlstore.OrdersTable+` (order_id, amount_paise, created_ns, state, due_ns, updated_ns)
		SELECT 'o-' || lpad(i::TEXT, 7, '0'), 10000 + i % 1000, $1::BIGINT + i, 'pending', $1::BIGINT + i * 1000, $1::BIGINT
		FROM generate_series(1, $2::INTEGER) AS i`, base, n); err != nil {
		return fmt.Errorf("loading orders: %w", err)
	}
	return b.settle(ctx, sqlstore.OrdersTable)
}

// orderNumber is the i of an order o-000000i.
func orderNumber(id string) int64 {
	i, err := strconv.ParseInt(strings.TrimPrefix(id, "o-"), 10, 64)
	if err != nil {
		return -1
	}
	return i
}

// hasEvent says whether order number i is paid in the step loop.
func hasEvent(i int64) bool { return i%EventEvery == 0 }

// eventsIn is how many of the orders 1…n hasEvent picks.
func eventsIn(n int) int { return n / EventEvery }

// outcome is the loop's outcome for lease l at now: with events, one
// order in EventEvery is paid (its event found by a SUCCESS answer, and
// the retry a sweeper records if the handler fails); every other order is
// still pending, checked again an hour later.
func outcome(l reconcile.Lease, now time.Time, events bool) reconcile.LeasedUpdate {
	i := orderNumber(l.Order.ID)
	if !events || !hasEvent(i) {
		return reconcile.LeasedUpdate{Lease: l, Update: reconcile.Update{State: reconcile.Pending, Next: now.Add(time.Hour), Checked: true}}
	}
	st := &upicollect.PaymentStatus{OrderID: l.Order.ID, TxnStatus: upicollect.TxnSuccess, Amount: l.Order.Amount,
		UTR: "UTR" + strconv.FormatInt(i, 10), OrderNamed: true}
	ev := reconcile.NewEvent(l.Order, reconcile.Paid, st, now, "")
	return reconcile.LeasedUpdate{Lease: l, Update: reconcile.Update{State: reconcile.Paid, Event: &ev, Checked: true,
		Retry: reconcile.Retry{Next: now.Add(time.Minute), Failures: l.Failures + 1}}}
}

// Ledger runs the Step store loop over n orders due now from empty tables:
// Lease a batch of LedgerBatch, build each lease's outcome, record them
// all (commitBatch) while the next batch is leased, until nothing is
// due; with events false, the quiet loop (no order paid). It measures the
// loop from its first Lease to its last commit, and checks that every
// order was committed once and every event delivered once.
func (b *Bench) Ledger(ctx context.Context, n int, events bool) (Run, error) {
	if err := b.exec(ctx, `TRUNCATE `+strings.Join(ledgerTables, ", ")); err != nil {
		return Run{}, err
	}
	now := time.Now()
	if err := b.loadOrders(ctx, n, now); err != nil {
		return Run{}, err
	}
	committed, delivered := newTally(n), newTally(n)
	deliver := func(_ context.Context, i int64) error {
		delivered.add(i)
		return nil
	}
	kind := "quiet"
	if events {
		kind = "step"
	}
	run := b.begin(ctx, kind, n)
	var failed int
	// As the Sweeper's Step does, the next batch is leased while a full
	// one is recorded. A run that fails leaves its leases (and a lease
	// ahead still under way) to the next run's TRUNCATE.
	type leased struct {
		ls  []reconcile.Lease
		err error
	}
	lease := func() <-chan leased {
		c := make(chan leased, 1)
		go func() {
			ls, err := b.store.Lease(ctx, now, LedgerBatch, ledgerTTL)
			c <- leased{ls, err}
		}()
		return c
	}
	ahead := lease()
	for ahead != nil {
		next := <-ahead
		ls, err := next.ls, next.err
		if err != nil {
			return run, fmt.Errorf("lease: %w", err)
		}
		if len(ls) == 0 {
			break
		}
		ahead = nil
		if len(ls) == LedgerBatch {
			ahead = lease()
		}
		cs := make([]reconcile.LeasedUpdate, len(ls))
		for i, l := range ls {
			cs[i] = outcome(l, now, events)
		}
		errs, err := commitBatch(ctx, b.store, cs, deliver)
		if err != nil {
			return run, fmt.Errorf("commit: %w", err)
		}
		run.Batches++
		for i, e := range errs {
			if e != nil {
				failed++
				continue
			}
			committed.add(orderNumber(cs[i].Lease.Order.ID))
			if cs[i].Update.Event != nil {
				run.Events++
			}
		}
	}
	b.end(ctx, &run)
	run.Items = int(committed.done.Load())

	missing, twice := committed.check()
	_, dTwice := delivered.check() // its missing are the quiet orders
	wantEvents := 0
	if events {
		wantEvents = eventsIn(n)
	}
	var paid, pending, recorded int
	if err := b.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE state = 'paid'), count(*) FILTER (WHERE state = 'pending' AND checks = 1),
		(SELECT count(*) FROM `+sqlstore.EventsTable+`) FROM `+sqlstore.OrdersTable).Scan(&paid, &pending, &recorded); err != nil {
		return run, err
	}
	run.Checks = []Check{
		{"every order committed once", missing == 0 && twice == 0 && failed == 0,
			fmt.Sprintf("%d missing, %d more than once, %d refused", missing, twice, failed)},
		{"every event delivered once", int(delivered.done.Load()) == wantEvents && dTwice == 0 && run.Events == wantEvents,
			fmt.Sprintf("%d of %d delivered, %d more than once, %d committed", delivered.done.Load(), wantEvents, dTwice, run.Events)},
		{"the tables hold every outcome", paid == wantEvents && recorded == wantEvents && pending == n-wantEvents,
			fmt.Sprintf("%d paid, %d events, %d pending checked once", paid, recorded, pending)},
	}
	return run, nil
}

// ledgerTables are the ledger's tables a run empties (not its migrations).
var ledgerTables = []string{sqlstore.OrdersTable, sqlstore.EventsTable, sqlstore.DeliveriesTable, sqlstore.ConsumersTable}
