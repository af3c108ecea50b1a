package drivertest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/reconciletest"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
	"github.com/upicollect/upicollect-go/sandbox"
)

// errReceiverDown is the error the handlers of TestConsumersOnEachDatabase
// fail a delivery with.
var errReceiverDown = errors.New("receiver down once")

// stepSweepers steps every sweeper at now at once; its handlers'
// errReceiverDown is expected and let through, any other error (a
// store's included) fails the test.
func stepSweepers(ctx context.Context, t *testing.T, sweepers []*reconcile.Sweeper, now time.Time) reconcile.Stats {
	t.Helper()
	sum, errs := reconciletest.StepAll(ctx, sweepers, now)
	require.NoError(t, reconciletest.Unexpected(errs, errReceiverDown))
	return sum
}

// TestConsumersOnEachDatabase runs four sweepers over one database and 100
// orders of every fate. With two consumers (two sweepers each) whose
// handlers credit through sqlstore.Tx, each consumer's credits hold every
// planned event exactly once (the second consumer's handler fails the
// first delivery of a tenth of the orders after writing: that credit is
// rolled back with its delivery); with one shared consumer, every event is
// credited once in all.
func TestConsumersOnEachDatabase(t *testing.T) {
	for _, dc := range dialects {
		for _, tc := range []struct {
			name      string
			consumers []string
		}{
			{"two consumers", []string{"app", "app", "php", "php"}},
			{"one shared consumer", []string{"app", "app", "app", "app"}},
		} {
			t.Run(dc.name+"/"+tc.name, func(t *testing.T) {
				ctx := testCtx(t)
				c := newClocked(t, dc.d, dc.newDB)
				_, err := c.db.ExecContext(ctx, creditsTable)
				require.NoError(t, err)
				sb := sandbox.Start(t, sandbox.WithClock(c.clk.Now), sandbox.WithSeed(7))
				client := sb.Client()
				defer client.CloseIdleConnections()
				plan := reconciletest.Plan(100, t0, 5)
				var (
					sweepers []*reconcile.Sweeper
					failed   sync.Map
				)
				for _, name := range tc.consumers {
					write := credit(name, dc.d)
					h := func(ctx context.Context, e reconcile.Event) error {
						if err := write(ctx, e); err != nil {
							return err
						}
						id := e.Order.ID
						if _, again := failed.LoadOrStore(name+id+string(e.Result), true); name == "php" && !again && id[len(id)-1] == '3' {
							return errReceiverDown
						}
						return nil
					}
					sw, err := reconcile.New(client, c.st, h, reconcile.WithConsumer(name), reconcile.WithClock(c.clk.Now),
						reconcile.WithBatchSize(16), reconcile.WithConcurrency(2))
					require.NoError(t, err)
					sweepers = append(sweepers, sw)
				}
				stepSweepers(ctx, t, sweepers, t0) // every consumer registered before any event
				require.NoError(t, reconciletest.Create(ctx, client, sb, c.clk, plan, func(o reconcile.Order) error { return sweepers[0].Track(ctx, o) }))
				until := t0.Add(100 * time.Hour)
				_, _, err = reconciletest.Walk(ctx, c.clk, until, func(ctx context.Context, now time.Time) (reconcile.Stats, error) {
					return stepSweepers(ctx, t, sweepers, now), nil
				})
				require.NoError(t, err)
				for i := 1; i <= 10; i++ {
					now := until.Add(time.Duration(i) * reconcile.DefaultMaxBackoff)
					c.clk.Set(now)
					stepSweepers(ctx, t, sweepers, now)
				}

				want := map[[2]string]bool{}
				for _, p := range plan {
					for _, r := range p.Want {
						want[[2]string{p.Order.ID, string(r)}] = true
					}
				}
				rows, err := c.db.QueryContext(ctx, `SELECT order_id, result, sweeper, COUNT(*) FROM credits GROUP BY order_id, result, sweeper`)
				require.NoError(t, err)
				got := map[string]map[[2]string]int{}
				for rows.Next() {
					var id, result, consumer string
					var n int
					require.NoError(t, rows.Scan(&id, &result, &consumer, &n))
					if got[consumer] == nil {
						got[consumer] = map[[2]string]int{}
					}
					got[consumer][[2]string{id, result}] = n
				}
				require.NoError(t, rows.Err())
				rows.Close()
				cs, err := sweepers[0].Consumers(ctx)
				require.NoError(t, err)
				require.Len(t, cs, len(got))
				for _, cons := range cs {
					twice, lost, wrong := 0, 0, 0
					for k, n := range got[cons.Name] {
						if !want[k] {
							wrong++
						}
						if n > 1 {
							twice++
						}
					}
					for k := range want {
						if got[cons.Name][k] == 0 {
							lost++
						}
					}
					assert.Equal(t, [3]int{0, 0, 0}, [3]int{twice, lost, wrong}, "%s: twice, lost, wrong", cons.Name)
					assert.Equal(t, [2]int{0, len(want)}, [2]int{cons.Pending, cons.Delivered}, cons.Name)
					t.Logf("%s %s: consumer %s credited %d of %d planned events for %d orders: %d twice, %d lost, %d wrong",
						dc.name, tc.name, cons.Name, len(got[cons.Name]), len(want), len(plan), twice, lost, wrong)
				}
				st, err := sweepers[0].Lookup(ctx, plan[0].Order.ID)
				require.NoError(t, err)
				for _, ev := range st.Events {
					assert.Len(t, ev.DeliveredTo, len(got), "each event reached every consumer")
				}
			})
		}
	}
}

// TestMigrateFrom030 starts from a ledger as release 0.3.0 left it
// (migrations 1 and 2, orders and events recorded) and upgrades it: it has
// one consumer, default, every event counted delivered to it; a sweeper of
// default delivers nothing again, and a consumer registered after the
// upgrade gets none of the old events.
func TestMigrateFrom030(t *testing.T) {
	for _, dc := range dialects {
		t.Run(dc.name, func(t *testing.T) {
			ctx := testCtx(t)
			_, db := dc.newDB(t)
			dir := "sqlite"
			if dc.d == sqlstore.Postgres {
				dir = "postgres"
			}
			for _, f := range []string{"0001_tables.sql", "0002_ledger.sql"} {
				for _, stmt := range migrationStatements(t, "../migrations/"+dir+"/"+f) {
					_, err := db.ExecContext(ctx, stmt)
					require.NoError(t, err, stmt)
				}
			}
			_, err := db.ExecContext(ctx, `CREATE TABLE `+sqlstore.MigrationsTable+` (version INTEGER PRIMARY KEY, applied_ns BIGINT NOT NULL)`)
			require.NoError(t, err)
			_, err = db.ExecContext(ctx, `INSERT INTO `+sqlstore.MigrationsTable+` VALUES (1, 0), (2, 0)`)
			require.NoError(t, err)
			for i, state := range []string{"paid", "failed", "pending"} {
				_, err := db.ExecContext(ctx, fmt.Sprintf(`INSERT INTO %s (order_id, amount_paise, created_ns, state, due_ns, checks, failures, updated_ns)
					VALUES ('o-%d', 100, %d, '%s', NULL, 1, 0, %d)`, sqlstore.OrdersTable, i, t0.UnixNano(), state, t0.UnixNano()))
				require.NoError(t, err)
				if state != "pending" {
					_, err = db.ExecContext(ctx, fmt.Sprintf(`INSERT INTO %s VALUES ('o-%d', '%s', %d, 'SUCCESS', 100, 'UTR', '')`,
						sqlstore.EventsTable, i, state, t0.Add(time.Minute).UnixNano()))
					require.NoError(t, err)
				}
			}
			clk := reconciletest.NewClock(t0.Add(time.Hour))
			st, err := sqlstore.New(ctx, db, dc.d, sqlstore.WithClock(clk.Now))
			require.NoError(t, err)
			cs, err := st.Consumers(ctx)
			require.NoError(t, err)
			assert.Equal(t, []reconcile.Consumer{{Name: reconcile.DefaultConsumer, Pending: 0, Delivered: 2}}, cs)
			for _, name := range []string{reconcile.DefaultConsumer, "php"} {
				require.NoError(t, st.RegisterConsumer(ctx, name, clk.Now()))
				ds, err := st.LeaseDeliveries(ctx, name, t0.Add(1000*time.Hour), 100, time.Minute)
				require.NoError(t, err)
				assert.Empty(t, ds, "%s: nothing redelivered", name)
			}
			o, err := st.Lookup(ctx, "o-0")
			require.NoError(t, err)
			require.Len(t, o.Events, 1)
			assert.Equal(t, []string{reconcile.DefaultConsumer}, o.Events[0].DeliveredTo)
			t.Logf("%s: a 0.3.0 ledger with 3 orders and 2 events upgraded: consumer default, 2 delivered, 0 pending; 0 redelivered", dc.name)
		})
	}
}

// migrationStatements reads a migration file of the sqlstore module and
// splits it as Migrate does: a statement ends with a semicolon at the end
// of a line; comment lines are dropped.
func migrationStatements(t *testing.T, path string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	var (
		out []string
		b   strings.Builder
	)
	for _, line := range strings.Split(string(src), "\n") {
		s := strings.TrimSpace(line)
		if s == "" || strings.HasPrefix(s, "--") {
			continue
		}
		b.WriteString(line + "\n")
		if strings.HasSuffix(s, ";") {
			out = append(out, strings.TrimSpace(b.String()))
			b.Reset()
		}
	}
	return out
}
