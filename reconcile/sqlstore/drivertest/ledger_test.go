package drivertest_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/reconciletest"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
)

// The tests of this file hold for both databases, on a store whose clock
// the test sets (WithClock), unless a test says it reads the database's.

// clocked is a store with a manual clock, on a fresh database.
type clocked struct {
	st  reconcile.Store
	db  *sql.DB
	clk *reconciletest.Clock
	d   sqlstore.Dialect
}

func newClocked(t *testing.T, d sqlstore.Dialect, newDB func(testing.TB) (string, *sql.DB), opts ...sqlstore.Option) clocked {
	t.Helper()
	_, db := newDB(t)
	clk := reconciletest.NewClock(t0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := sqlstore.New(ctx, db, d, append([]sqlstore.Option{sqlstore.WithClock(clk.Now)}, opts...)...)
	require.NoError(t, err)
	return clocked{st: st, db: db, clk: clk, d: d}
}

// eachDialect runs fn on a clocked store of each database.
func eachDialect(t *testing.T, fn func(t *testing.T, c clocked)) {
	for _, dc := range dialects {
		t.Run(dc.name, func(t *testing.T) { fn(t, newClocked(t, dc.d, dc.newDB)) })
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func ord(i int) reconcile.Order {
	return reconcile.Order{ID: fmt.Sprintf("o-%04d", i), Amount: upicollect.Rupees(int64(100 + i)), Created: t0}
}

func leaseIDs(ls []reconcile.Lease) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Order.ID
	}
	return out
}

// TestTrackSameAmountOnlyOnce: the same order again is a no-op, another
// amount is refused, in Track and in TrackTx (inside the transaction: the
// caller's transaction goes on).
func TestTrackSameAmountOnlyOnce(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		o := ord(1)
		require.NoError(t, c.st.Track(ctx, o, t0))
		require.NoError(t, c.st.Track(ctx, o, t0.Add(time.Hour)), "the same amount again")
		other := o
		other.Amount = upicollect.Rupees(999)
		require.ErrorIs(t, c.st.Track(ctx, other, t0), reconcile.ErrTrackedDifferently)

		tx, err := c.db.BeginTx(ctx, nil)
		require.NoError(t, err)
		require.ErrorIs(t, c.st.TrackTx(ctx, tx, other, t0), reconcile.ErrTrackedDifferently)
		require.NoError(t, c.st.TrackTx(ctx, tx, o, t0))
		require.NoError(t, c.st.TrackTx(ctx, tx, ord(2), t0))
		require.NoError(t, tx.Commit())
		require.Error(t, c.st.TrackTx(ctx, nil, ord(3), t0))

		st, err := c.st.Lookup(ctx, o.ID)
		require.NoError(t, err)
		assert.Equal(t, o.Amount, st.Order.Amount, "the first amount is kept")
		assert.Equal(t, t0, st.Next, "the first due time is kept")
		assert.Equal(t, reconcile.Pending, st.State)
		assert.Equal(t, t0, st.Updated, "store time")
		_, err = c.st.Lookup(ctx, ord(2).ID)
		require.NoError(t, err, "tracked with the transaction")
	})
}

// TestTrackTxIsTheCallersTransaction: an order tracked in a transaction
// rolled back is not tracked; in one committed it is.
func TestTrackTxIsTheCallersTransaction(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		tx, err := c.db.BeginTx(ctx, nil)
		require.NoError(t, err)
		require.NoError(t, c.st.TrackTx(ctx, tx, ord(1), t0))
		require.NoError(t, tx.Rollback())
		_, err = c.st.Lookup(ctx, ord(1).ID)
		require.ErrorIs(t, err, reconcile.ErrNotTracked)
		ls, err := c.st.Lease(ctx, t0.Add(time.Hour), 10, time.Minute)
		require.NoError(t, err)
		assert.Empty(t, ls)
	})
}

// TestLeaseExpiresOnTheStoresClock: a lease's expiry is the store's clock
// plus the TTL, whatever now a sweeper passes: a sweeper an hour ahead
// cannot take a held order, and once the store's clock passes the expiry
// any sweeper can. The order is due then (a lease moves it there): a
// sweeper behind the store's clock takes it when its own clock gets there,
// as it takes every order due.
func TestLeaseExpiresOnTheStoresClock(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		require.NoError(t, c.st.Track(ctx, ord(1), t0))
		first, err := c.st.Lease(ctx, t0, 10, 30*time.Second)
		require.NoError(t, err)
		require.Len(t, first, 1)
		again, err := c.st.Lease(ctx, t0.Add(time.Hour), 10, 30*time.Second)
		require.NoError(t, err)
		assert.Empty(t, again, "a sweeper ahead of the store cannot take a held order")
		c.clk.Set(t0.Add(29 * time.Second))
		require.NoError(t, c.st.Extend(ctx, first[0], t0.Add(time.Hour), 30*time.Second), "extended to store time 59 s: the sweeper's now is not used")
		c.clk.Set(t0.Add(58 * time.Second))
		again, err = c.st.Lease(ctx, t0.Add(time.Hour), 10, 30*time.Second)
		require.NoError(t, err)
		assert.Empty(t, again, "extended")
		c.clk.Set(t0.Add(59 * time.Second))
		again, err = c.st.Lease(ctx, t0.Add(59*time.Second-time.Nanosecond), 10, 30*time.Second)
		require.NoError(t, err)
		assert.Empty(t, again, "due at the lease's end")
		again, err = c.st.Lease(ctx, t0.Add(59*time.Second), 10, 30*time.Second)
		require.NoError(t, err)
		require.Equal(t, []string{ord(1).ID}, leaseIDs(again), "expired on the store's clock")
		assert.NotEqual(t, first[0].Token, again[0].Token)
		require.ErrorIs(t, c.st.Extend(ctx, first[0], t0, time.Minute), reconcile.ErrLeaseLost)
		err = c.st.Commit(ctx, first[0], reconcile.Update{State: reconcile.Pending, Next: t0.Add(time.Hour), Checked: true}, nil)
		require.ErrorIs(t, err, reconcile.ErrLeaseLost)
	})
}

// TestLeaseOrderAndEarliestFirst: Lease returns due orders earliest due
// first within its limit, with failures; LeaseOrder takes one order
// whatever its due time, and says why it cannot.
func TestLeaseOrderAndEarliestFirst(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		for i, d := range []time.Duration{30, 10, 20, 40, 3600} {
			require.NoError(t, c.st.Track(ctx, ord(i), t0.Add(d*time.Second)))
		}
		ls, err := c.st.Lease(ctx, t0.Add(35*time.Second), 2, time.Minute)
		require.NoError(t, err)
		assert.Equal(t, []string{ord(1).ID, ord(2).ID}, leaseIDs(ls))
		assert.Equal(t, t0.Add(10*time.Second), ls[0].Due)
		assert.Equal(t, ord(1), ls[0].Order)
		assert.Equal(t, reconcile.Pending, ls[0].State)

		l, err := c.st.LeaseOrder(ctx, ord(4).ID, t0, time.Minute)
		require.NoError(t, err, "not due, leased for Confirm all the same")
		assert.Equal(t, t0.Add(time.Hour), l.Due)
		_, err = c.st.LeaseOrder(ctx, ord(4).ID, t0, time.Minute)
		require.ErrorIs(t, err, reconcile.ErrLeaseHeld)
		_, err = c.st.LeaseOrder(ctx, ord(1).ID, t0, time.Minute)
		require.ErrorIs(t, err, reconcile.ErrLeaseHeld, "held by the batch lease")
		_, err = c.st.LeaseOrder(ctx, "nobody", t0, time.Minute)
		require.ErrorIs(t, err, reconcile.ErrNotTracked)
		require.NoError(t, c.st.Commit(ctx, l, reconcile.Update{State: reconcile.Paid, Checked: true,
			Event: &reconcile.Event{Order: ord(4), Result: reconcile.Paid, At: t0}}, nil))
		_, err = c.st.LeaseOrder(ctx, ord(4).ID, t0, time.Minute)
		require.ErrorIs(t, err, reconcile.ErrOrderDone)
		require.NoError(t, c.st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.Pending, Next: t0.Add(time.Hour), Failures: 2}, nil))
		ls, err = c.st.Lease(ctx, t0.Add(2*time.Hour), 10, time.Minute)
		require.NoError(t, err)
		assert.Equal(t, []string{ord(0).ID, ord(3).ID, ord(1).ID}, leaseIDs(ls), "ord 2 is still held by the first lease")
		assert.Equal(t, 2, ls[2].Failures)
	})
}

// TestCommitDeliversInsideTheRecord: an event is recorded with its state
// and delivered inside one transaction that holds the order; a deliver
// error records the Retry instead (state kept, event not recorded, due at
// Retry.Next with Retry.Failures), and the event can come again.
func TestCommitDeliversInsideTheRecord(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		o := ord(1)
		require.NoError(t, c.st.Track(ctx, o, t0))
		ls, err := c.st.Lease(ctx, t0, 1, time.Minute)
		require.NoError(t, err)
		require.Len(t, ls, 1)
		ev := reconcile.NewEvent(o, reconcile.Paid,
			&upicollect.PaymentStatus{OrderID: o.ID, TxnStatus: upicollect.TxnSuccess, Amount: o.Amount, UTR: "UTR1"}, t0.Add(5*time.Second), "")
		paid := &ev
		u := reconcile.Update{State: reconcile.Paid, Checked: true, Event: paid, Retry: reconcile.Retry{Next: t0.Add(time.Minute), Failures: 1}}
		refused := errors.New("refused")
		var inside, heldDuring int
		err = c.st.Commit(ctx, ls[0], u, func(ctx context.Context) error {
			inside++
			require.NotNil(t, sqlstore.Tx(ctx), "the handler's transaction")
			// Meanwhile no lease is granted for the order (SQLite: the
			// write lock; PostgreSQL: the row lock), Confirm included.
			if c.d == sqlstore.Postgres {
				_, err := c.st.LeaseOrder(ctx, o.ID, t0, time.Minute)
				if errors.Is(err, reconcile.ErrLeaseHeld) {
					heldDuring++
				}
				more, err := c.st.Lease(ctx, t0.Add(time.Hour), 10, time.Minute)
				if err == nil && len(more) == 0 {
					heldDuring++
				}
			}
			return refused
		})
		require.ErrorIs(t, err, refused)
		assert.Equal(t, 1, inside)
		if c.d == sqlstore.Postgres {
			assert.Equal(t, 2, heldDuring)
		}
		st, err := c.st.Lookup(ctx, o.ID)
		require.NoError(t, err)
		assert.Equal(t, reconcile.Pending, st.State, "state kept")
		assert.Empty(t, st.Events, "event not recorded")
		assert.Equal(t, t0.Add(time.Minute), st.Next, "due at Retry.Next")
		assert.Equal(t, 1, st.Failures)
		assert.Equal(t, 0, st.Checks, "the outcome was not recorded")

		none, err := c.st.Lease(ctx, t0.Add(59*time.Second), 1, time.Minute)
		require.NoError(t, err)
		assert.Empty(t, none, "not due before Retry.Next")
		ls, err = c.st.Lease(ctx, t0.Add(time.Minute), 1, time.Minute)
		require.NoError(t, err)
		require.Len(t, ls, 1, "due at Retry.Next, lease ended")
		assert.Equal(t, 1, ls[0].Failures)
		u.Failures = 0
		require.NoError(t, c.st.Commit(ctx, ls[0], u, func(ctx context.Context) error {
			_, err := sqlstore.Tx(ctx).ExecContext(ctx, `CREATE TABLE handled (n INTEGER)`)
			return err
		}))
		st, err = c.st.Lookup(ctx, o.ID)
		require.NoError(t, err)
		assert.Equal(t, reconcile.Paid, st.State)
		assert.True(t, st.Next.IsZero(), "done")
		assert.Equal(t, 0, st.Failures)
		assert.Equal(t, 1, st.Checks)
		require.Len(t, st.Events, 1)
		assert.Equal(t, withDeliveredTo(*paid, reconcile.DefaultConsumer), st.Events[0], "the event as recorded, delivered to the committing consumer")
		var n int
		require.NoError(t, c.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM handled`).Scan(&n), "the handler's write committed")
		require.ErrorIs(t, c.st.Commit(ctx, ls[0], u, nil), reconcile.ErrLeaseLost, "the lease ended with the commit")
		_, ok, err := c.st.NextDue(ctx, c.clk.Now())
		require.NoError(t, err)
		assert.False(t, ok, "nothing will be due again")
	})
}

// TestCommitManyOneBatch: outcomes are recorded together, in parts of
// one statement's batch; one fenced out is ErrLeaseLost, one with an event
// is delivered in its part's transaction, the others count.
func TestCommitManyOneBatch(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		const n = 2500 // more than one statement's batch
		loadOrders(t, c.db, c.d, n)
		var ls []reconcile.Lease
		for len(ls) < n {
			more, err := c.st.Lease(ctx, t0.Add(time.Hour), 1000, time.Minute)
			require.NoError(t, err)
			require.NotEmpty(t, more)
			ls = append(ls, more...)
		}
		cs := make([]reconcile.LeasedUpdate, n)
		for i, l := range ls {
			cs[i] = reconcile.LeasedUpdate{Lease: l, Update: reconcile.Update{State: reconcile.Pending, Next: t0.Add(2 * time.Hour), Checked: true, Failures: i % 3}}
		}
		cs[7].Update = reconcile.Update{State: reconcile.Expired, Reason: "checks kept failing", Checked: false}
		cs[8].Lease.Token = "zz" // fenced out
		cs[9].Update.Event = &reconcile.Event{Order: cs[9].Lease.Order, Result: reconcile.Paid, At: t0}
		c.clk.Set(t0.Add(3 * time.Second))
		var delivered []int
		errs, err := c.st.CommitMany(ctx, cs, func(ctx context.Context, i int) error {
			delivered = append(delivered, i)
			return nil
		})
		require.NoError(t, err)
		require.Len(t, errs, n)
		for i, e := range errs {
			switch i {
			case 8:
				require.ErrorIs(t, e, reconcile.ErrLeaseLost)
			default:
				require.NoError(t, e, i)
			}
		}
		st, err := c.st.Lookup(ctx, ls[5].Order.ID)
		require.NoError(t, err)
		assert.Equal(t, reconcile.OrderState{Order: ls[5].Order, State: reconcile.Pending, Checks: 1, Next: t0.Add(2 * time.Hour),
			Failures: 2, Updated: t0.Add(3 * time.Second)}, *st)
		st, err = c.st.Lookup(ctx, ls[7].Order.ID)
		require.NoError(t, err)
		assert.Equal(t, reconcile.OrderState{Order: ls[7].Order, State: reconcile.Expired, Reason: "checks kept failing",
			Updated: t0.Add(3 * time.Second)}, *st)
		assert.Equal(t, []int{9}, delivered)
		if c.d == sqlstore.Postgres {
			// The first maxBatch outcomes (8's fenced out: its lease's),
			// then the rest.
			assert.Equal(t, []int{1, n - maxBatch(t), maxBatch(t) - 1}, writers(t, c.db))
		}
		st, err = c.st.Lookup(ctx, ls[9].Order.ID)
		require.NoError(t, err)
		require.Len(t, st.Events, 1, "the event recorded with its outcome")
		assert.Equal(t, 1, st.Checks)
		counts, err := c.st.Counts(ctx)
		require.NoError(t, err)
		assert.Equal(t, map[reconcile.State]int{reconcile.Pending: n - 1, reconcile.Expired: 1}, counts)
		again := 0
		for {
			more, err := c.st.Lease(ctx, t0.Add(3*time.Hour), 1000, time.Minute)
			require.NoError(t, err)
			if len(more) == 0 {
				break
			}
			again += len(more)
		}
		assert.Equal(t, n-2, again, "recorded ones are due again; 7 is done, 8 is still held")
	})
}

// writers counts the orders by the transaction that last wrote each
// (PostgreSQL's xmin), fewest first: how a call's rows were parted.
func writers(t *testing.T, db *sql.DB) []int {
	t.Helper()
	rows, err := db.QueryContext(testCtx(t), `SELECT count(*) FROM `+sqlstore.OrdersTable+` GROUP BY xmin::TEXT ORDER BY 1`)
	require.NoError(t, err)
	defer rows.Close()
	var parts []int
	for rows.Next() {
		var k int
		require.NoError(t, rows.Scan(&k))
		parts = append(parts, k)
	}
	require.NoError(t, rows.Err())
	return parts
}

// leasedPaid loads n orders, leases them all and returns their leases with
// a Paid outcome, its event for the default consumer, for each.
func leasedPaid(t *testing.T, ctx context.Context, c clocked, n int) []reconcile.LeasedUpdate {
	t.Helper()
	loadOrders(t, c.db, c.d, n)
	ls, err := c.st.Lease(ctx, t0.Add(time.Hour), n, time.Minute)
	require.NoError(t, err)
	require.Len(t, ls, n)
	cs := make([]reconcile.LeasedUpdate, n)
	for i, l := range ls {
		ev := reconcile.Event{Order: l.Order, Result: reconcile.Paid, At: t0}
		cs[i] = reconcile.LeasedUpdate{Lease: l, Update: reconcile.Update{State: reconcile.Paid, Event: &ev, Checked: true}}
	}
	return cs
}

// failedFrom asserts that errs, of n, holds no error before first and
// want from first on.
func failedFrom(t *testing.T, errs []error, n, first int, want error) {
	t.Helper()
	var at []int
	for i := first; i < n; i++ {
		at = append(at, i)
	}
	failedAt(t, errs, n, want, at...)
}

// failedAt asserts that errs, of n, holds want at the indexes at and no
// error elsewhere.
func failedAt(t *testing.T, errs []error, n int, want error, at ...int) {
	t.Helper()
	require.Len(t, errs, n)
	for i, err := range errs {
		if slices.Contains(at, i) {
			assert.ErrorIs(t, err, want, i)
		} else {
			assert.NoError(t, err, i)
		}
	}
}

// TestCommitManyEventsInParts: a call's events are recorded maxEvents per
// transaction (PostgreSQL caches 64 subtransactions), each delivered once,
// in order.
func TestCommitManyEventsInParts(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		n := maxEvents(t) + 10
		cs := leasedPaid(t, ctx, c, n)
		var delivered []int
		errs, err := c.st.CommitMany(ctx, cs, func(_ context.Context, i int) error {
			delivered = append(delivered, i)
			return nil
		})
		require.NoError(t, err)
		for i, e := range errs {
			require.NoError(t, e, i)
		}
		want := make([]int, n)
		for i := range want {
			want[i] = i
		}
		assert.Equal(t, want, delivered)
		counts, err := c.st.Counts(ctx)
		require.NoError(t, err)
		assert.Equal(t, map[reconcile.State]int{reconcile.Paid: n}, counts)
		if c.d == sqlstore.Postgres {
			assert.Equal(t, []int{10, maxEvents(t)}, writers(t, c.db), "a transaction of maxEvents events, then the rest")
		}
	})
}

// TestCommitManyLaterPartFails: when a later transaction of a call fails
// (here its context ends in its first handler), the earlier stay recorded
// and the call's error is none: each outcome of the failed transaction
// and after it carries that error, and its order is still leased.
func TestCommitManyLaterPartFails(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx, cancel := context.WithCancel(testCtx(t))
		defer cancel()
		first := maxEvents(t)
		n := first + 10
		cs := leasedPaid(t, ctx, c, n)
		errs, err := c.st.CommitMany(ctx, cs, func(_ context.Context, i int) error {
			if i == first {
				cancel()
			}
			return nil
		})
		require.NoError(t, err, "the first transaction was recorded")
		failedFrom(t, errs, n, first, context.Canceled)
		counts, err := c.st.Counts(context.Background())
		require.NoError(t, err)
		assert.Equal(t, map[reconcile.State]int{reconcile.Paid: first, reconcile.Pending: n - first}, counts)
		again, err := c.st.Lease(context.Background(), t0.Add(time.Hour), n, time.Minute)
		require.NoError(t, err)
		assert.Empty(t, again, "the failed transaction's orders still held by their leases")
	})
}

// TestCommitDeliveriesLaterPartFails: CommitDeliveries' transactions
// fail alone as CommitMany's do: the deliveries of a failed later one (and
// after it) carry its error and stay leased, the earlier stay recorded.
func TestCommitDeliveriesLaterPartFails(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx, cancel := context.WithCancel(testCtx(t))
		defer cancel()
		first := maxEvents(t)
		n := first + 10
		require.NoError(t, c.st.RegisterConsumer(ctx, "books", c.clk.Now()))
		cs := leasedPaid(t, ctx, c, n)
		_, err := c.st.CommitMany(ctx, cs, nil)
		require.NoError(t, err)
		ds, err := c.st.LeaseDeliveries(ctx, "books", t0.Add(1000*time.Hour), n, time.Minute)
		require.NoError(t, err)
		require.Len(t, ds, n, "every event pending for books")
		batch := make([]reconcile.LeasedDelivery, n)
		for i, d := range ds {
			batch[i] = reconcile.LeasedDelivery{Lease: d}
		}
		errs, err := c.st.CommitDeliveries(ctx, batch, func(_ context.Context, i int) error {
			if i == first {
				cancel()
			}
			return nil
		})
		require.NoError(t, err, "the first transaction was recorded")
		failedFrom(t, errs, n, first, context.Canceled)
		again, err := c.st.LeaseDeliveries(context.Background(), "books", t0.Add(1000*time.Hour), n, time.Minute)
		require.NoError(t, err)
		assert.Empty(t, again, "the delivered gone, the failed transaction's still held by their leases")
	})
}

// TestReleaseAndNextDue: Release gives leases back due at their old due
// time; NextDue is the earliest free order's due, or a held order's
// expiry when that comes first (a lease makes its order due at its end).
func TestReleaseAndNextDue(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		require.NoError(t, c.st.Track(ctx, ord(1), t0.Add(10*time.Second)))
		require.NoError(t, c.st.Track(ctx, ord(2), t0.Add(20*time.Second)))
		next, ok, err := c.st.NextDue(ctx, c.clk.Now())
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, t0.Add(10*time.Second), next)
		ls, err := c.st.Lease(ctx, t0.Add(10*time.Second), 5, 5*time.Second)
		require.NoError(t, err)
		require.Len(t, ls, 1)
		next, _, err = c.st.NextDue(ctx, c.clk.Now())
		require.NoError(t, err)
		assert.Equal(t, t0.Add(10*time.Second), next, "held until store time 5 s: its due time, 10 s, is later")
		ls2, err := c.st.Lease(ctx, t0.Add(20*time.Second), 5, 30*time.Second)
		require.NoError(t, err)
		require.Len(t, ls2, 1)
		next, ok, err = c.st.NextDue(ctx, c.clk.Now())
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, t0.Add(10*time.Second), next)
		require.NoError(t, c.st.Release(ctx, ls[0]))
		require.NoError(t, c.st.Release(ctx))
		stale := ls[0]
		require.NoError(t, c.st.Release(ctx, stale), "no longer held: skipped")
		next, _, err = c.st.NextDue(ctx, c.clk.Now())
		require.NoError(t, err)
		assert.Equal(t, t0.Add(10*time.Second), next)
		again, err := c.st.Lease(ctx, t0.Add(10*time.Second), 5, time.Minute)
		require.NoError(t, err)
		assert.Equal(t, []string{ord(1).ID}, leaseIDs(again), "due again at its due time")
		require.NoError(t, c.st.Release(ctx, stale), "skipped: the new lease stands")
		next, _, err = c.st.NextDue(ctx, c.clk.Now())
		require.NoError(t, err)
		assert.Equal(t, t0.Add(30*time.Second), next, "both held: the earlier expiry, ord 2's at store time 30 s")
		// A sweeper on another clock gets the answer in its own time: the
		// leases' time left, from its now.
		next, _, err = c.st.NextDue(ctx, c.clk.Now().Add(time.Hour))
		require.NoError(t, err)
		assert.Equal(t, t0.Add(time.Hour+30*time.Second), next, "an hour ahead: ord 2's lease ends 30 s from its now")
		next, _, err = c.st.NextDue(ctx, c.clk.Now().Add(-time.Hour))
		require.NoError(t, err)
		assert.Equal(t, t0.Add(30*time.Second), next, "an hour behind: a leased order is due at its lease's end, ord 2's at 30 s")
	})
}

// TestLookupListCountsUntrack reads the ledger: Lookup of an unknown order
// is ErrNotTracked; List pages newest first by state; Untrack ends
// tracking (no lease, no commit after it).
func TestLookupListCountsUntrack(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		for i := range 5 {
			o := ord(i)
			o.Created = t0.Add(time.Duration(i%3) * time.Minute)
			require.NoError(t, c.st.Track(ctx, o, t0.Add(time.Duration(i)*time.Second)))
		}
		_, err := c.st.Lookup(ctx, "nobody")
		require.ErrorIs(t, err, reconcile.ErrNotTracked)
		ls, err := c.st.Lease(ctx, t0, 1, time.Minute)
		require.NoError(t, err)
		require.Equal(t, []string{"o-0000"}, leaseIDs(ls))
		require.NoError(t, c.st.Untrack(ctx, ls[0].Order.ID))
		require.ErrorIs(t, c.st.Untrack(ctx, "nobody"), reconcile.ErrNotTracked)
		require.ErrorIs(t, c.st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.Paid,
			Event: &reconcile.Event{Order: ls[0].Order, Result: reconcile.Paid}}, func(context.Context) error {
			t.Error("delivered after Untrack")
			return nil
		}), reconcile.ErrLeaseLost)
		_, err = c.st.LeaseOrder(ctx, ls[0].Order.ID, t0, time.Minute)
		require.ErrorIs(t, err, reconcile.ErrOrderDone)
		st, err := c.st.Lookup(ctx, ls[0].Order.ID)
		require.NoError(t, err)
		assert.Equal(t, reconcile.Untracked, st.State)
		assert.True(t, st.Next.IsZero())
		// A final order stays as it is.
		paid, err := c.st.LeaseOrder(ctx, "o-0004", t0, time.Minute)
		require.NoError(t, err)
		require.NoError(t, c.st.Commit(ctx, paid, reconcile.Update{State: reconcile.Paid,
			Event: &reconcile.Event{Order: paid.Order, Result: reconcile.Paid}}, nil))
		require.NoError(t, c.st.Untrack(ctx, "o-0004"))
		st, err = c.st.Lookup(ctx, "o-0004")
		require.NoError(t, err)
		assert.Equal(t, reconcile.Paid, st.State, "untracking a paid order changes nothing")
		require.NoError(t, c.st.Untrack(ctx, ls[0].Order.ID), "untracked again: nothing changes")

		page := func(q reconcile.ListQuery) []string {
			sts, err := c.st.List(ctx, q)
			require.NoError(t, err)
			var ids []string
			for _, s := range sts {
				ids = append(ids, s.Order.ID)
			}
			return ids
		}
		// created: o-0000 0m, o-0001 1m, o-0002 2m, o-0003 0m, o-0004 1m
		all := []string{"o-0002", "o-0004", "o-0001", "o-0003", "o-0000"}
		assert.Equal(t, all, page(reconcile.ListQuery{}))
		assert.Equal(t, all[:2], page(reconcile.ListQuery{Limit: 2}))
		assert.Equal(t, all[2:4], page(reconcile.ListQuery{Limit: 2, Before: "o-0004"}))
		assert.Equal(t, all[4:], page(reconcile.ListQuery{Limit: 2, Before: "o-0003"}))
		assert.Equal(t, []string{ls[0].Order.ID}, page(reconcile.ListQuery{States: []reconcile.State{reconcile.Untracked}}))
		assert.Len(t, page(reconcile.ListQuery{States: []reconcile.State{reconcile.Pending, reconcile.Untracked}}), 4)
		assert.Empty(t, page(reconcile.ListQuery{Before: "nobody"}), "an unknown cursor: an empty page")
		counts, err := c.st.Counts(ctx)
		require.NoError(t, err)
		assert.Equal(t, map[reconcile.State]int{reconcile.Pending: 3, reconcile.Paid: 1, reconcile.Untracked: 1}, counts)
	})
}

// TestPruneDeletesFinishedOrders: Prune deletes the orders with no further
// check last changed before its time, with their events, and nothing
// else.
func TestPruneDeletesFinishedOrders(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		const n = 5 * 2
		for i := range n {
			require.NoError(t, c.st.Track(ctx, ord(i), t0))
		}
		ls, err := c.st.Lease(ctx, t0, n, time.Hour)
		require.NoError(t, err)
		require.Len(t, ls, n)
		for i, l := range ls {
			c.clk.Set(t0.Add(time.Duration(i) * 24 * time.Hour)) // order i finishes on day i
			u := reconcile.Update{State: reconcile.Paid, Checked: true, Event: &reconcile.Event{Order: l.Order, Result: reconcile.Paid, At: c.clk.Now()}}
			if i%2 == 1 {
				u = reconcile.Update{State: reconcile.Pending, Next: t0.Add(1000 * time.Hour)} // still tracked
			}
			require.NoError(t, c.st.Commit(ctx, l, u, nil))
		}
		// Finished: orders 0, 2, 4, 6, 8 on days 0, 2, 4, 6, 8.
		deleted, err := c.st.Prune(ctx, t0.Add(5*24*time.Hour))
		require.NoError(t, err)
		assert.Equal(t, 3, deleted, "days 0, 2, 4")
		counts, err := c.st.Counts(ctx)
		require.NoError(t, err)
		assert.Equal(t, map[reconcile.State]int{reconcile.Paid: 2, reconcile.Pending: 5}, counts)
		var events int
		require.NoError(t, c.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+sqlstore.EventsTable).Scan(&events))
		assert.Equal(t, 2, events, "their events went with them")
		_, err = c.st.Lookup(ctx, ord(4).ID)
		require.ErrorIs(t, err, reconcile.ErrNotTracked)
		_, err = c.st.Lookup(ctx, ord(6).ID)
		require.NoError(t, err)
		deleted, err = c.st.Prune(ctx, t0.Add(5*24*time.Hour))
		require.NoError(t, err)
		assert.Zero(t, deleted)
	})
}

// TestConcurrentLeasesAreDisjoint: sweepers leasing at once never get the
// same order twice, and together get every due order.
func TestConcurrentLeasesAreDisjoint(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		const n, sweepers = 400, 4
		for i := range n {
			require.NoError(t, c.st.Track(ctx, ord(i), t0))
		}
		var mu sync.Mutex
		got := map[string]int{}
		var wg sync.WaitGroup
		errs := make(chan error, sweepers)
		for range sweepers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					ls, err := c.st.Lease(ctx, t0, 25, time.Hour)
					if err != nil || len(ls) == 0 {
						errs <- err
						return
					}
					mu.Lock()
					for _, l := range ls {
						got[l.Order.ID]++
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		assert.Len(t, got, n)
		for id, k := range got {
			require.Equal(t, 1, k, id)
		}
	})
}

// TestPostgresNowIsTheDatabaseClock: without WithClock, a PostgreSQL store's
// Now is the database's clock and an SQLite store's the process's.
func TestPostgresNowIsTheDatabaseClock(t *testing.T) {
	ctx := testCtx(t)
	_, db := newPostgresDB(t)
	st := newStore(t, sqlstore.Postgres, db)
	now, ok, err := st.Now(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	var dbNow time.Time
	require.NoError(t, db.QueryRowContext(ctx, `SELECT clock_timestamp()`).Scan(&dbNow))
	assert.False(t, now.After(dbNow), "read before")
	assert.Equal(t, time.UTC, now.Location())

	_, sdb := newSQLiteDB(t)
	before := time.Now()
	sst := newStore(t, sqlstore.SQLite, sdb)
	snow, ok, err := sst.Now(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	assert.False(t, snow.Before(before.Truncate(0)))
}

// TestLeaseOrderOfALockedRowIsHeld: on PostgreSQL, LeaseOrder of an order
// whose row another transaction holds (FOR UPDATE NOWAIT answers
// lock_not_available, 55P03) is ErrLeaseHeld, not a database error: Confirm
// waits for the other sweeper instead of failing.
func TestLeaseOrderOfALockedRowIsHeld(t *testing.T) {
	c := newClocked(t, sqlstore.Postgres, newPostgresDB)
	ctx := testCtx(t)
	require.NoError(t, c.st.Track(ctx, ord(1), t0))
	tx, err := c.db.BeginTx(ctx, nil)
	require.NoError(t, err)
	var id string
	require.NoError(t, tx.QueryRowContext(ctx, `SELECT order_id FROM `+sqlstore.OrdersTable+` WHERE order_id = $1 FOR UPDATE`, ord(1).ID).Scan(&id))
	_, err = c.st.LeaseOrder(ctx, ord(1).ID, t0, time.Minute)
	require.ErrorIs(t, err, reconcile.ErrLeaseHeld, "the row is locked by another transaction")
	require.NoError(t, tx.Rollback())
	_, err = c.st.LeaseOrder(ctx, ord(1).ID, t0, time.Minute)
	require.NoError(t, err, "the lock is gone")
}

// TestNextDueOfALeaseEndingNow: a lease whose end is the store's clock
// exactly has expired (Lease takes the order again then): NextDue answers
// the order's due time, its lease's end, not the lease's end counted from
// the sweeper's now.
func TestNextDueOfALeaseEndingNow(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		require.NoError(t, c.st.Track(ctx, ord(1), t0))
		ls, err := c.st.Lease(ctx, t0, 5, time.Minute)
		require.NoError(t, err)
		require.Len(t, ls, 1)
		c.clk.Advance(time.Minute) // the lease ends now on the store's clock
		next, ok, err := c.st.NextDue(ctx, t0.Add(time.Hour))
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, t0.Add(time.Minute), next, "free: due at its lease's end")
		again, err := c.st.Lease(ctx, t0.Add(time.Minute), 5, time.Minute)
		require.NoError(t, err)
		assert.Equal(t, []string{ord(1).ID}, leaseIDs(again), "taken again at its end")
	})
}
