package drivertest_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/reconciletest"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
	"github.com/upicollect/upicollect-go/sandbox"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// creditsTable is the merchant's own table in the tests: a row per event
// handled, written through sqlstore.Tx, with no unique key, so that an
// event handled twice would show as two rows.
const creditsTable = `CREATE TABLE IF NOT EXISTS credits (order_id TEXT NOT NULL, result TEXT NOT NULL, sweeper TEXT NOT NULL)`

// credit is a handler that writes a credit row through the event's
// transaction.
func credit(sweeper string, dialect sqlstore.Dialect) reconcile.Handler {
	q := `INSERT INTO credits (order_id, result, sweeper) VALUES (?, ?, ?)`
	if dialect == sqlstore.Postgres {
		q = `INSERT INTO credits (order_id, result, sweeper) VALUES ($1, $2, $3)`
	}
	return func(ctx context.Context, e reconcile.Event) error {
		tx := sqlstore.Tx(ctx)
		if tx == nil {
			return errors.New("no transaction in the handler's context")
		}
		_, err := tx.ExecContext(ctx, q, e.Order.ID, string(e.Result), sweeper)
		return err
	}
}

// credits counts the rows of the credits table by order and result.
func credits(t testing.TB, db *sql.DB) map[[2]string]int {
	t.Helper()
	rows, err := db.Query(`SELECT order_id, result, COUNT(*) FROM credits GROUP BY order_id, result`)
	require.NoError(t, err)
	defer rows.Close()
	out := map[[2]string]int{}
	for rows.Next() {
		var id, result string
		var n int
		require.NoError(t, rows.Scan(&id, &result, &n))
		out[[2]string{id, result}] = n
	}
	require.NoError(t, rows.Err())
	return out
}

// TestHandlerWritesCommitWithTheEvent runs a sweeper on each database whose
// handler writes a credit through Tx and fails once, after writing: the
// failed attempt's credit is rolled back with its event, the next step's
// commits, and the store's event row and the credit agree.
func TestHandlerWritesCommitWithTheEvent(t *testing.T) {
	for _, dc := range dialects {
		t.Run(dc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			_, db := dc.newDB(t)
			st := newStore(t, dc.d, db)
			_, err := db.ExecContext(ctx, creditsTable)
			require.NoError(t, err)
			assert.Nil(t, sqlstore.Tx(ctx), "no transaction outside a handler")

			clk := reconciletest.NewClock(t0)
			sb := sandbox.Start(t, sandbox.WithClock(clk.Now))
			c := sb.Client()
			defer c.CloseIdleConnections()
			write := credit("one", dc.d)
			failures := 0
			sw, err := reconcile.New(c, st, func(ctx context.Context, e reconcile.Event) error {
				if err := write(ctx, e); err != nil {
					return err
				}
				if failures++; failures == 1 {
					return errors.New("the merchant's ledger refused")
				}
				return nil
			})
			require.NoError(t, err)
			_, err = c.CreatePaymentIntent(ctx, &upicollect.IntentParams{Amount: upicollect.Rupees(42), OrderID: "tx-1",
				RedirectURL: "https://shop.example.com/r", Note: "tx", Customer: upicollect.Customer{Name: "A", Email: "a@example.com", Mobile: "9876543210"}})
			require.NoError(t, err)
			require.NoError(t, sb.Settle("tx-1", upicollect.TxnSuccess, t0.Add(time.Minute)))
			require.NoError(t, sw.Track(ctx, reconcile.Order{ID: "tx-1", Amount: upicollect.Rupees(42), Created: t0}))

			clk.Set(t0.Add(70 * time.Second))
			stats, err := sw.Step(ctx, clk.Now())
			require.ErrorContains(t, err, "the merchant's ledger refused")
			assert.Equal(t, 0, stats.Paid)
			assert.Empty(t, credits(t, db), "the failed handler's write was rolled back")
			var events int
			require.NoError(t, db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+sqlstore.EventsTable).Scan(&events))
			assert.Zero(t, events)

			// The order is due again after the handler's backoff, with its
			// failure counted.
			after, err := st.Lookup(ctx, "tx-1")
			require.NoError(t, err)
			assert.Equal(t, 1, after.Failures)
			assert.Equal(t, reconcile.Pending, after.State)
			require.True(t, after.Next.After(clk.Now()), "not due again at once")
			clk.Set(after.Next)
			stats, err = sw.Step(ctx, clk.Now())
			require.NoError(t, err)
			assert.Equal(t, 1, stats.Paid)
			assert.Equal(t, map[[2]string]int{{"tx-1", "paid"}: 1}, credits(t, db))
			var (
				result, txn, utr string
				paid, at         int64
			)
			require.NoError(t, db.QueryRowContext(ctx, `SELECT result, txn_status, paid_paise, utr, at_ns FROM `+sqlstore.EventsTable).Scan(&result, &txn, &paid, &utr, &at))
			assert.Equal(t, "paid", result)
			assert.Equal(t, "SUCCESS", txn)
			assert.Equal(t, int64(4200), paid)
			assert.NotEmpty(t, utr)
			assert.Equal(t, clk.Now().UnixNano(), at)
			var state string
			var due sql.NullInt64
			require.NoError(t, db.QueryRowContext(ctx, `SELECT state, due_ns FROM `+sqlstore.OrdersTable).Scan(&state, &due))
			assert.Equal(t, "paid", state)
			assert.False(t, due.Valid, "done: never due again")
		})
	}
}

// TestBatchHandlersUndoOnlyTheirOwn records one batch of five events on
// each database: handlers write a credit through Tx, the second writes
// then fails, the fourth writes nothing and fails, the fifth writes
// nothing: only the second's credit is undone, and only the failed events
// come again; the others' credits and events commit together, once.
func TestBatchHandlersUndoOnlyTheirOwn(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		_, err := c.db.ExecContext(ctx, creditsTable)
		require.NoError(t, err)
		for i := 1; i <= 5; i++ {
			require.NoError(t, c.st.Track(ctx, ord(i), t0))
		}
		ls, err := c.st.Lease(ctx, t0, 10, time.Minute)
		require.NoError(t, err)
		require.Len(t, ls, 5)
		cs := make([]reconcile.LeasedUpdate, len(ls))
		for i, l := range ls {
			ev := reconcile.NewEvent(l.Order, reconcile.Paid, &upicollect.PaymentStatus{OrderID: l.Order.ID, TxnStatus: upicollect.TxnSuccess, Amount: l.Order.Amount}, t0, "")
			cs[i] = reconcile.LeasedUpdate{Lease: l, Update: reconcile.Update{State: reconcile.Paid, Event: &ev, Checked: true,
				Retry: reconcile.Retry{Next: t0.Add(time.Minute), Failures: 1}}}
		}
		write := credit("batch", c.d)
		down := errors.New("handler down")
		errs, err := c.st.CommitMany(ctx, cs, func(ctx context.Context, i int) error {
			switch i {
			case 1:
				require.NoError(t, write(ctx, *cs[i].Update.Event))
				return down
			case 3:
				return down
			case 4:
				return nil
			}
			return write(ctx, *cs[i].Update.Event)
		})
		require.NoError(t, err)
		failedAt(t, errs, 5, down, 1, 3)
		id := func(i int) [2]string { return [2]string{ls[i].Order.ID, string(reconcile.Paid)} }
		assert.Equal(t, map[[2]string]int{id(0): 1, id(2): 1}, credits(t, c.db), "the failed handler's credit undone, the others kept")
		for i := range ls {
			got, err := c.st.Lookup(ctx, ls[i].Order.ID)
			require.NoError(t, err)
			if i == 1 || i == 3 {
				assert.Equal(t, reconcile.Pending, got.State)
				assert.Empty(t, got.Events)
				assert.Equal(t, t0.Add(time.Minute), got.Next, "due at the retry")
				continue
			}
			assert.Equal(t, reconcile.Paid, got.State)
			assert.Len(t, got.Events, 1)
		}
		again, err := c.st.Lease(ctx, t0.Add(time.Minute), 10, time.Minute)
		require.NoError(t, err)
		require.Len(t, again, 2, "only the failed events come again")
		assert.ElementsMatch(t, []string{ls[1].Order.ID, ls[3].Order.ID}, []string{again[0].Order.ID, again[1].Order.ID})
	})
}

// TestDeliveryHandlersUndoOnlyTheirOwn: in CommitDeliveries, as in
// CommitMany, a handler that fails after writing through Tx has its own
// write undone (its savepoint rolled back) and its delivery retried, while
// the others' writes and deliveries commit.
func TestDeliveryHandlersUndoOnlyTheirOwn(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		_, err := c.db.ExecContext(ctx, creditsTable)
		require.NoError(t, err)
		require.NoError(t, c.st.RegisterConsumer(ctx, "books", c.clk.Now()))
		_, err = c.st.CommitMany(ctx, leasedPaid(t, ctx, c, 5), nil)
		require.NoError(t, err)
		far := t0.Add(1000 * time.Hour)
		ds, err := c.st.LeaseDeliveries(ctx, "books", far, 10, time.Minute)
		require.NoError(t, err)
		require.Len(t, ds, 5)
		batch := make([]reconcile.LeasedDelivery, len(ds))
		for i, d := range ds {
			batch[i] = reconcile.LeasedDelivery{Lease: d, Retry: reconcile.Retry{Next: far.Add(time.Minute), Failures: 1}}
		}
		write := credit("books", c.d)
		down := errors.New("receiver down")
		errs, err := c.st.CommitDeliveries(ctx, batch, func(ctx context.Context, i int) error {
			switch i {
			case 1:
				require.NoError(t, write(ctx, ds[i].Event))
				return down
			case 3:
				return down
			}
			return write(ctx, ds[i].Event)
		})
		require.NoError(t, err)
		failedAt(t, errs, 5, down, 1, 3)
		id := func(i int) [2]string { return [2]string{ds[i].Event.Order.ID, string(reconcile.Paid)} }
		assert.Equal(t, map[[2]string]int{id(0): 1, id(2): 1, id(4): 1}, credits(t, c.db), "the failed handler's credit undone, the others kept")
		again, err := c.st.LeaseDeliveries(ctx, "books", far.Add(time.Minute), 10, time.Minute)
		require.NoError(t, err)
		require.Len(t, again, 2, "only the failed deliveries come again")
		assert.ElementsMatch(t, []string{ds[1].Event.Order.ID, ds[3].Event.Order.ID}, []string{again[0].Event.Order.ID, again[1].Event.Order.ID})
		assert.Equal(t, []int{1, 1}, []int{again[0].Failures, again[1].Failures}, "each retry recorded")
	})
}

// TestAHandlerChangingItsOrderFailsTheRecord: a handler that changes its
// own order's row through Tx (here, drops its lease) leaves the record
// short of an order it holds: the whole transaction is refused with an
// error that says so, and rolled back, the handler's change with it, so
// both orders of the batch are still held by their leases and nothing is
// recorded.
func TestAHandlerChangingItsOrderFailsTheRecord(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		cs := leasedPaid(t, ctx, c, 2)
		q := `UPDATE ` + sqlstore.OrdersTable + ` SET lease_token = NULL WHERE order_id = ?`
		if c.d == sqlstore.Postgres {
			q = strings.ReplaceAll(q, "?", "$1")
		}
		_, err := c.st.CommitMany(ctx, cs, func(ctx context.Context, i int) error {
			if i == 1 {
				return nil
			}
			_, err := sqlstore.Tx(ctx).ExecContext(ctx, q, cs[i].Lease.Order.ID)
			return err
		})
		require.ErrorContains(t, err, "1 of 2 held orders changed under their lock")
		counts, err := c.st.Counts(ctx)
		require.NoError(t, err)
		assert.Equal(t, map[reconcile.State]int{reconcile.Pending: 2}, counts, "nothing recorded, the other order's outcome neither")
		again, err := c.st.Lease(ctx, t0.Add(time.Hour), 2, time.Minute)
		require.NoError(t, err)
		assert.Empty(t, again, "still held by its lease: the handler's change rolled back")
	})
}
