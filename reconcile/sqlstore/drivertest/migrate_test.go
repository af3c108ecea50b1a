package drivertest_test

import (
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
)

// schema020 is the schema release 0.2.0 created, statement by statement,
// as its sqlstore.New ran it (no version table).
var schema020 = []string{
	`CREATE TABLE IF NOT EXISTS upicollect_reconcile_orders (
		order_id       TEXT PRIMARY KEY,
		amount_paise   BIGINT NOT NULL,
		created_ns     BIGINT NOT NULL,
		state          TEXT NOT NULL,
		due_ns         BIGINT,
		lease_token    TEXT,
		lease_until_ns BIGINT
	)`,
	`CREATE INDEX IF NOT EXISTS upicollect_reconcile_orders_due ON upicollect_reconcile_orders (due_ns) WHERE due_ns IS NOT NULL`,
	`CREATE INDEX IF NOT EXISTS upicollect_reconcile_orders_lease ON upicollect_reconcile_orders (lease_until_ns) WHERE lease_token IS NOT NULL`,
	`CREATE TABLE IF NOT EXISTS upicollect_reconcile_events (
		order_id   TEXT NOT NULL,
		result     TEXT NOT NULL,
		at_ns      BIGINT NOT NULL,
		txn_status TEXT NOT NULL,
		paid_paise BIGINT NOT NULL,
		utr        TEXT NOT NULL,
		reason     TEXT NOT NULL,
		PRIMARY KEY (order_id, result)
	)`,
}

// TestMigrateFrom020 starts from a database exactly as release 0.2.0 left
// it, with orders in every shape (pending and leased by a 0.2.0 sweeper,
// paid with its event, expired, failed and checked again) and upgrades it:
// every order and event is kept and readable, the 0.2.0 lease is dropped,
// and the store works on it.
func TestMigrateFrom020(t *testing.T) {
	for _, dc := range dialects {
		t.Run(dc.name, func(t *testing.T) {
			ctx := testCtx(t)
			_, db := dc.newDB(t)
			for _, stmt := range schema020 {
				_, err := db.ExecContext(ctx, stmt)
				require.NoError(t, err)
			}
			ns := func(d time.Duration) int64 { return t0.Add(d).UnixNano() }
			ph := func(q string) string {
				if dc.d == sqlstore.Postgres {
					n := 0
					out := []byte{}
					for _, c := range []byte(q) {
						if c == '?' {
							n++
							out = append(out, fmt.Sprintf("$%d", n)...)
							continue
						}
						out = append(out, c)
					}
					return string(out)
				}
				return q
			}
			insOrder := ph(`INSERT INTO upicollect_reconcile_orders VALUES (?, ?, ?, ?, ?, ?, ?)`)
			insEvent := ph(`INSERT INTO upicollect_reconcile_events VALUES (?, ?, ?, ?, ?, ?, ?)`)
			rows := []struct {
				id         string
				paise      int64
				state      string
				due, until sql.NullInt64
				token      sql.NullString
			}{
				{"leased", 100, "pending", sql.NullInt64{Int64: ns(time.Minute), Valid: true}, sql.NullInt64{Int64: ns(time.Hour), Valid: true}, sql.NullString{String: "0123456789abcdef0123456789abcdef", Valid: true}},
				{"paid", 200, "paid", sql.NullInt64{}, sql.NullInt64{}, sql.NullString{}},
				{"expired", 300, "expired", sql.NullInt64{Int64: ns(2 * time.Hour), Valid: true}, sql.NullInt64{}, sql.NullString{}},
			}
			for _, r := range rows {
				_, err := db.ExecContext(ctx, insOrder, r.id, r.paise, t0.UnixNano(), r.state, r.due, r.token, r.until)
				require.NoError(t, err)
			}
			_, err := db.ExecContext(ctx, insEvent, "paid", "paid", ns(3*time.Minute), "SUCCESS", 200, "UTR9", "")
			require.NoError(t, err)
			_, err = db.ExecContext(ctx, insEvent, "expired", "expired", ns(20*time.Minute), "PENDING", 0, "", reconcile.ReasonNoFinalState)
			require.NoError(t, err)

			st, err := sqlstore.New(ctx, db, dc.d, sqlstore.WithClock(func() time.Time { return t0.Add(time.Minute) }))
			require.NoError(t, err, "0.2.0 upgrades in place")
			var versions int
			require.NoError(t, db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+sqlstore.MigrationsTable).Scan(&versions))
			assert.Equal(t, sqlstore.SchemaVersion(), versions)
			assert.GreaterOrEqual(t, versions, 2)

			paid, err := st.Lookup(ctx, "paid")
			require.NoError(t, err)
			o := reconcile.Order{ID: "paid", Amount: upicollect.Money(200), Created: t0}
			assert.Equal(t, reconcile.OrderState{Order: o, State: reconcile.Paid, Updated: t0.Add(3 * time.Minute),
				Events: []reconcile.Event{withDeliveredTo(reconcile.NewEvent(o, reconcile.Paid,
					&upicollect.PaymentStatus{OrderID: "paid", TxnStatus: upicollect.TxnSuccess, Amount: 200, UTR: "UTR9"}, t0.Add(3*time.Minute), ""), reconcile.DefaultConsumer)}}, *paid)
			assert.Equal(t, []string{reconcile.DefaultConsumer}, paid.Events[0].DeliveredTo, "delivered to the one consumer it had")
			exp, err := st.Lookup(ctx, "expired")
			require.NoError(t, err)
			assert.Equal(t, reconcile.Expired, exp.State)
			assert.Equal(t, t0.Add(2*time.Hour), exp.Next, "still checked for a late SUCCESS")
			require.Len(t, exp.Events, 1)
			assert.Equal(t, reconcile.ReasonNoFinalState, exp.Events[0].Reason)

			// The 0.2.0 lease (on a sweeper's clock, until +1h) is gone: the
			// order is leased at once.
			ls, err := st.Lease(ctx, t0.Add(time.Minute), 10, time.Minute)
			require.NoError(t, err)
			assert.Equal(t, []string{"leased"}, leaseIDs(ls))
			require.NoError(t, st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.Pending, Next: t0.Add(time.Hour), Checked: true}, nil))
			require.ErrorIs(t, st.Track(ctx, reconcile.Order{ID: "paid", Amount: 201, Created: t0}, t0), reconcile.ErrTrackedDifferently)
			counts, err := st.Counts(ctx)
			require.NoError(t, err)
			assert.Equal(t, map[reconcile.State]int{reconcile.Pending: 1, reconcile.Paid: 1, reconcile.Expired: 1}, counts)

			from, to, err := sqlstore.Migrate(ctx, db, dc.d)
			require.NoError(t, err)
			assert.Equal(t, [2]int{sqlstore.SchemaVersion(), sqlstore.SchemaVersion()}, [2]int{from, to}, "nothing more to do")
			t.Logf("%s: 0.2.0 schema with 3 orders and 2 events upgraded to version %d; all kept", dc.name, to)
		})
	}
}

// TestMigrateConcurrently starts eight processes' worth of stores (each its
// own *sql.DB) on one empty database at once: every one succeeds, and each
// migration is applied once.
func TestMigrateConcurrently(t *testing.T) {
	for _, dc := range dialects {
		t.Run(dc.name, func(t *testing.T) {
			ctx := testCtx(t)
			dsn, db := dc.newDB(t)
			driver := "pgx"
			if dc.d == sqlstore.SQLite {
				driver = "sqlite"
			}
			const n = 8
			var wg sync.WaitGroup
			errs := make([]error, n)
			froms := make([]int, n)
			for i := range n {
				other, err := sql.Open(driver, dsn)
				require.NoError(t, err)
				t.Cleanup(func() { other.Close() })
				wg.Add(1)
				go func() {
					defer wg.Done()
					froms[i], _, errs[i] = sqlstore.Migrate(ctx, other, dc.d)
				}()
			}
			wg.Wait()
			for _, err := range errs {
				require.NoError(t, err)
			}
			var rows, distinct int
			require.NoError(t, db.QueryRowContext(ctx, `SELECT COUNT(*), COUNT(DISTINCT version) FROM `+sqlstore.MigrationsTable).Scan(&rows, &distinct))
			assert.Equal(t, sqlstore.SchemaVersion(), rows)
			assert.Equal(t, rows, distinct)
			fresh := 0
			for _, f := range froms {
				if f == 0 {
					fresh++
				}
			}
			assert.Equal(t, 1, fresh, "one process migrated, the others found it done: %v", froms)
			t.Logf("%s: %d concurrent Migrate calls, one applied %d migrations", dc.name, n, rows)
		})
	}
}

// TestNewerSchemaRefused: a database a newer release migrated is refused by
// New and Migrate, and left as it is.
func TestNewerSchemaRefused(t *testing.T) {
	for _, dc := range dialects {
		t.Run(dc.name, func(t *testing.T) {
			ctx := testCtx(t)
			_, db := dc.newDB(t)
			_, _, err := sqlstore.Migrate(ctx, db, dc.d)
			require.NoError(t, err)
			newer := sqlstore.SchemaVersion() + 1
			_, err = db.ExecContext(ctx, fmt.Sprintf(`INSERT INTO %s (version, applied_ns) VALUES (%d, 0)`, sqlstore.MigrationsTable, newer))
			require.NoError(t, err)
			_, err = sqlstore.New(ctx, db, dc.d)
			require.ErrorIs(t, err, sqlstore.ErrSchemaTooNew)
			require.ErrorContains(t, err, fmt.Sprintf("database at version %d, this release knows %d", newer, sqlstore.SchemaVersion()))
			from, to, err := sqlstore.Migrate(ctx, db, dc.d)
			require.ErrorIs(t, err, sqlstore.ErrSchemaTooNew)
			assert.Equal(t, [2]int{newer, newer}, [2]int{from, to})
			var max int
			require.NoError(t, db.QueryRowContext(ctx, `SELECT MAX(version) FROM `+sqlstore.MigrationsTable).Scan(&max))
			assert.Equal(t, newer, max)
			_, _, err = sqlstore.Migrate(ctx, nil, dc.d)
			require.Error(t, err)
			_, _, err = sqlstore.Migrate(ctx, db, sqlstore.Dialect(7))
			require.ErrorContains(t, err, "unknown dialect")
		})
	}
}

// withDeliveredTo is e delivered to the consumers cs.
func withDeliveredTo(e reconcile.Event, cs ...string) reconcile.Event {
	e.DeliveredTo = cs
	return e
}
