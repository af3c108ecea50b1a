package drivertest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/reconciletest"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
)

// TestMigrateFrom040 starts from a ledger as release 0.4.0 left it
// (migrations 1 to 3) with orders in every state (due, leased, paid,
// failed and still checked, expired, untracked), two consumers, events
// delivered to both, to one, and pending for the other, and upgrades it:
// no order, event or delivery is lost or doubled; the delivered ones are
// recorded on their events and leave the deliveries table, the pending
// ones stay and are delivered once; a leased order is due at its lease's
// end.
func TestMigrateFrom040(t *testing.T) {
	for _, dc := range dialects {
		t.Run(dc.name, func(t *testing.T) {
			ctx := testCtx(t)
			_, db := dc.newDB(t)
			dir := "sqlite"
			if dc.d == sqlstore.Postgres {
				dir = "postgres"
			}
			for _, f := range []string{"0001_tables.sql", "0002_ledger.sql", "0003_consumers.sql"} {
				for _, stmt := range migrationStatements(t, "../migrations/"+dir+"/"+f) {
					_, err := db.ExecContext(ctx, stmt)
					require.NoError(t, err, stmt)
				}
			}
			_, err := db.ExecContext(ctx, `CREATE TABLE `+sqlstore.MigrationsTable+` (version INTEGER PRIMARY KEY, applied_ns BIGINT NOT NULL)`)
			require.NoError(t, err)
			_, err = db.ExecContext(ctx, `INSERT INTO `+sqlstore.MigrationsTable+` VALUES (1, 0), (2, 0), (3, 0)`)
			require.NoError(t, err)
			ns := func(d time.Duration) int64 { return t0.Add(d).UnixNano() }
			exec := func(q string, args ...any) {
				t.Helper()
				_, err := db.ExecContext(ctx, fmt.Sprintf(q, args...))
				require.NoError(t, err, q)
			}
			exec(`DELETE FROM %s`, sqlstore.ConsumersTable) // 0003 registers default only for a ledger with orders
			exec(`INSERT INTO %s (name, registered_ns, last_seen_ns) VALUES ('default', %d, %d), ('php', %d, %d)`,
				sqlstore.ConsumersTable, ns(0), ns(0), ns(0), ns(0))
			type row struct {
				id, state   string
				due, until  string // SQL: a number or NULL
				token       string
				event       string // its event's result, if any
				to, pending []string
			}
			rows := []row{
				{id: "o-due", state: "pending", due: fmt.Sprint(ns(time.Minute)), until: "NULL", token: "NULL"},
				{id: "o-leased", state: "pending", due: fmt.Sprint(ns(time.Minute)), until: fmt.Sprint(ns(2 * time.Hour)), token: "42"},
				{id: "o-paid", state: "paid", due: "NULL", until: "NULL", token: "NULL", event: "paid", to: []string{"default", "php"}},
				{id: "o-failed", state: "failed", due: fmt.Sprint(ns(48 * time.Hour)), until: "NULL", token: "NULL", event: "failed", to: []string{"default"}, pending: []string{"php"}},
				{id: "o-expired", state: "expired", due: "NULL", until: "NULL", token: "NULL", event: "expired", to: []string{"php"}, pending: []string{"default"}},
				{id: "o-untracked", state: "untracked", due: "NULL", until: "NULL", token: "NULL"},
			}
			for _, r := range rows {
				exec(`INSERT INTO %s (order_id, amount_paise, created_ns, state, due_ns, lease_token, lease_until_ns, checks, failures, updated_ns)
					VALUES ('%s', 100, %d, '%s', %s, %s, %s, 1, 0, %d)`, sqlstore.OrdersTable, r.id, ns(0), r.state, r.due, r.token, r.until, ns(0))
				if r.event == "" {
					continue
				}
				exec(`INSERT INTO %s VALUES ('%s', '%s', %d, 'SUCCESS', 100, 'UTR', '')`, sqlstore.EventsTable, r.id, r.event, ns(time.Minute))
				for _, c := range r.to {
					exec(`INSERT INTO %s (order_id, result, consumer, due_ns, delivered_ns) VALUES ('%s', '%s', '%s', %d, %d)`,
						sqlstore.DeliveriesTable, r.id, r.event, c, ns(time.Minute), ns(2*time.Minute))
				}
				for _, c := range r.pending {
					exec(`INSERT INTO %s (order_id, result, consumer, due_ns, failures) VALUES ('%s', '%s', '%s', %d, 1)`,
						sqlstore.DeliveriesTable, r.id, r.event, c, ns(time.Minute))
				}
			}

			clk := reconciletest.NewClock(t0.Add(time.Hour))
			st, err := sqlstore.New(ctx, db, dc.d, sqlstore.WithClock(clk.Now))
			require.NoError(t, err)
			counts, err := st.Counts(ctx)
			require.NoError(t, err)
			assert.Equal(t, map[reconcile.State]int{reconcile.Pending: 2, reconcile.Paid: 1, reconcile.Failed: 1, reconcile.Expired: 1, reconcile.Untracked: 1}, counts)
			count := func(table string) (n int) {
				require.NoError(t, db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table).Scan(&n))
				return n
			}
			assert.Equal(t, 3, count(sqlstore.EventsTable), "every event kept once")
			assert.Equal(t, 2, count(sqlstore.DeliveriesTable), "the pending deliveries only")
			for _, r := range rows {
				o, err := st.Lookup(ctx, r.id)
				require.NoError(t, err, r.id)
				assert.Equal(t, reconcile.State(r.state), o.State, r.id)
				if r.event == "" {
					assert.Empty(t, o.Events, r.id)
					continue
				}
				require.Len(t, o.Events, 1, r.id)
				assert.Equal(t, r.to, o.Events[0].DeliveredTo, r.id)
			}
			cs, err := st.Consumers(ctx)
			require.NoError(t, err)
			assert.Equal(t, []reconcile.Consumer{
				{Name: "default", LastSeen: t0, Pending: 1, Delivered: 2},
				{Name: "php", LastSeen: t0, Pending: 1, Delivered: 2},
			}, cs)

			// The leased order is due at its lease's end; the free one now.
			ls, err := st.Lease(ctx, t0.Add(time.Hour), 10, time.Minute)
			require.NoError(t, err)
			assert.Equal(t, []string{"o-due"}, leaseIDs(ls))
			require.NoError(t, st.Release(ctx, ls...))
			got, err := st.Lookup(ctx, "o-leased")
			require.NoError(t, err)
			assert.Equal(t, t0.Add(2*time.Hour), got.Next, "due at its lease's end")

			// Each pending delivery is delivered once, to its consumer.
			for _, name := range []string{"default", "php"} {
				ds, err := st.LeaseDeliveries(ctx, name, t0.Add(1000*time.Hour), 100, time.Minute)
				require.NoError(t, err)
				require.Len(t, ds, 1, name)
				assert.Equal(t, 1, ds[0].Failures, name)
				errs, err := st.CommitDeliveries(ctx, []reconcile.LeasedDelivery{{Lease: ds[0]}}, nil)
				require.NoError(t, err)
				require.NoError(t, errs[0])
				ds, err = st.LeaseDeliveries(ctx, name, t0.Add(1000*time.Hour), 100, time.Minute)
				require.NoError(t, err)
				assert.Empty(t, ds, "%s: delivered once", name)
			}
			cs, err = st.Consumers(ctx)
			require.NoError(t, err)
			assert.Equal(t, []reconcile.Consumer{
				{Name: "default", LastSeen: t0, Pending: 0, Delivered: 3},
				{Name: "php", LastSeen: t0, Pending: 0, Delivered: 3},
			}, cs)
			assert.Zero(t, count(sqlstore.DeliveriesTable), "delivered: no delivery row left")
			for _, id := range []string{"o-paid", "o-failed", "o-expired"} {
				o, err := st.Lookup(ctx, id)
				require.NoError(t, err)
				assert.Equal(t, []string{"default", "php"}, o.Events[0].DeliveredTo, id)
			}
		})
	}
}
