package drivertest_test

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest/pgtest"
)

// The store's throughput, storage and query plans at a table size set by
// flags. CI runs the defaults (10,000 orders; its gates are the counts,
// never the rates); BENCHMARKS.md's figures come from
//
//	go test -run 'TestLedgerThroughput|TestQueryPlans' -v -ledger-orders=1000000 -plan-orders=1000000
var (
	ledgerOrders   = flag.Int("ledger-orders", 10000, "orders tracked in TestLedgerThroughput")
	ledgerSweepers = flag.String("ledger-sweepers", "1,4", "sweeper counts TestLedgerThroughput runs, comma-separated")
	ledgerBatch    = flag.Int("ledger-batch", 1000, "orders a sweeper leases and commits at once in TestLedgerThroughput")
	planOrders     = flag.Int("plan-orders", 100000, "orders in the table TestQueryPlans explains")
	ledgerIDLen    = flag.Int("ledger-id-len", 9, "bytes of each order id TestLedgerThroughput loads: b-0000001 (9), or longer, zero-padded (28 for a shop's ids)")
)

// loadOrders tracks n orders b-0000001 … due from t0, one per microsecond,
// in one statement (generate_series / a recursive CTE), as Track writes
// them, and updates the planner's statistics.
func loadOrders(t testing.TB, db *sql.DB, d sqlstore.Dialect, n int) {
	loadOrdersWithIDs(t, db, d, n, 9)
}

// loadOrdersWithIDs is loadOrders with ids of idLen bytes (at least 9):
// b- and the number, zero-padded.
func loadOrdersWithIDs(t testing.TB, db *sql.DB, d sqlstore.Dialect, n, idLen int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	base := t0.UnixNano()
	var err error
	if d == sqlstore.Postgres {
		_, err = db.ExecContext(ctx, `INSERT INTO `+sqlstore.OrdersTable+` (order_id, amount_paise, created_ns, state, due_ns, updated_ns)
			SELECT 'b-' || lpad(i::TEXT, $3::INTEGER - 2, '0'), 10000 + i % 1000, $1::BIGINT + i, 'pending', $1::BIGINT + i * 1000, $1::BIGINT
			FROM generate_series(1, $2::INTEGER) AS i`, base, n, max(idLen, 9))
		require.NoError(t, err)
		_, err = db.ExecContext(ctx, `VACUUM ANALYZE `+sqlstore.OrdersTable)
	} else {
		_, err = db.ExecContext(ctx, `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?)
			INSERT INTO `+sqlstore.OrdersTable+` (order_id, amount_paise, created_ns, state, due_ns, updated_ns)
			SELECT printf('b-%0*d', ?, i), 10000 + i % 1000, ? + i, 'pending', ? + i * 1000, ? FROM s`, n, max(idLen, 9)-2, base, base, base)
		require.NoError(t, err)
		_, err = db.ExecContext(ctx, `ANALYZE`)
	}
	require.NoError(t, err)
}

// bytesPerOrder is the store's tables and indexes on disk over n orders.
func bytesPerOrder(t testing.TB, db *sql.DB, d sqlstore.Dialect, n int) float64 {
	return float64(ledgerBytes(t, db, d)) / float64(n)
}

// hotUpdates reads the orders table's updates and HOT updates so far from
// pg_stat_user_tables (as the backends have reported them).
func hotUpdates(t testing.TB, db *sql.DB) (upd, hot int64) {
	t.Helper()
	require.NoError(t, db.QueryRowContext(context.Background(), `SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = $1`,
		sqlstore.OrdersTable).Scan(&upd, &hot))
	return upd, hot
}

// sweepTimes says where the last sweep's time went.
var sweepTimes string

// sweep runs k sweepers over the store until none leases anything due at
// now: each leases a batch and commits every lease as an eventless outcome
// due at next, with one CommitMany. It returns how many orders were
// committed, how many lease or commit errors there were, and the leases
// granted twice.
func sweep(ctx context.Context, st reconcile.Store, k, batch int, now, next time.Time) (committed, failed, twice int, err error) {
	var (
		leasing, committing time.Duration // summed over the sweepers
		mu                  sync.Mutex
		seen                = map[string]bool{}
		wg                  sync.WaitGroup
		errs                = make([]error, k)
	)
	for w := range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				start := time.Now()
				ls, err := st.Lease(ctx, now, batch, time.Minute)
				leased := time.Now()
				if err != nil || len(ls) == 0 {
					errs[w] = err
					return
				}
				cs := make([]reconcile.LeasedUpdate, len(ls))
				for i, l := range ls {
					cs[i] = reconcile.LeasedUpdate{Lease: l, Update: reconcile.Update{State: l.State, Next: next, Checked: true}}
				}
				cerrs, err := st.CommitMany(ctx, cs, nil)
				if err != nil {
					errs[w] = err
					return
				}
				mu.Lock()
				leasing += leased.Sub(start)
				committing += time.Since(leased)
				for i, e := range cerrs {
					if e != nil {
						failed++
						continue
					}
					committed++
					if seen[ls[i].Order.ID] {
						twice++
					}
					seen[ls[i].Order.ID] = true
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if committed > 0 {
		sweepTimes = fmt.Sprintf("per 1,000 orders: Lease %v, CommitMany %v", (leasing * 1000 / time.Duration(committed)).Round(10*time.Microsecond),
			(committing * 1000 / time.Duration(committed)).Round(10*time.Microsecond))
	}
	for _, e := range errs {
		if e != nil {
			return committed, failed, twice, e
		}
	}
	return committed, failed, twice, nil
}

// TestLedgerThroughput tracks -ledger-orders orders on each database and
// sweeps them all once with 1 sweeper, then again with 4 (-ledger-sweepers),
// on the store's methods only: Lease of a batch, CommitMany of eventless
// outcomes. It prints orders per second for each, and the bytes each
// tracked order takes; it asserts what does not depend on the machine:
// every order committed once per pass, none lost.
func TestLedgerThroughput(t *testing.T) {
	n := *ledgerOrders
	if raceEnabled {
		n = min(n, 2000) // the race detector slows SQLite (compiled Go) twentyfold
	}
	var counts []int
	for _, f := range strings.Split(*ledgerSweepers, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		require.NoError(t, err, "-ledger-sweepers")
		counts = append(counts, k)
	}
	for _, dc := range dialects {
		t.Run(dc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
			defer cancel()
			_, db := dc.newDB(t)
			if dc.d == sqlstore.SQLite {
				// Four sweepers take turns at the write lock: under -race a
				// turn can take longer than the tests' usual 3 s.
				var err error
				db, err = sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "bench.db")+"?_pragma=busy_timeout(120000)&_pragma=journal_mode(WAL)")
				require.NoError(t, err)
				t.Cleanup(func() { db.Close() })
			}
			st, err := sqlstore.New(ctx, db, dc.d, sqlstore.WithStatementTimeout(2*time.Minute))
			require.NoError(t, err)
			if dc.d == sqlstore.Postgres {
				db.SetMaxOpenConns(16)
				db.SetMaxIdleConns(16)
			}
			start := time.Now()
			loadOrdersWithIDs(t, db, dc.d, n, *ledgerIDLen)
			loaded := time.Since(start)
			size := bytesPerOrder(t, db, dc.d, n)
			t.Logf("%s: %d orders (%d-byte ids) loaded in %v; %.0f bytes per tracked order", dc.name, n, max(*ledgerIDLen, 9), loaded.Round(time.Millisecond), size)
			now := t0.Add(time.Duration(n) * time.Microsecond)
			postmaster := 0 // SQLite: this process only
			if dc.d == sqlstore.Postgres {
				postmaster = needPostgres(t).PID()
			}
			var cpuPerOrder []float64 // each pass's, Go and database
			for pass, k := range counts {
				next := now.Add(time.Hour)
				var upd0, hot0 int64
				if dc.d == sqlstore.Postgres {
					upd0, hot0 = hotUpdates(t, db)
				}
				var sampled *sql.DB // SQLite: nothing to sample
				if dc.d == sqlstore.Postgres {
					sampled = db
				}
				waits, err := pgtest.SampleWaits(ctx, sampled)
				require.NoError(t, err)
				self0, pg0, be0 := cpuTimes(postmaster)
				start := time.Now()
				committed, failed, twice, err := sweep(ctx, st, k, *ledgerBatch, now, next)
				elapsed := time.Since(start)
				self1, pg1, be1 := cpuTimes(postmaster)
				w := waits.Stop()
				require.NoError(t, err)
				require.NoError(t, w.Err, "sampling pg_stat_activity")
				assert.Equal(t, n, committed, "pass %d: every order once", pass+1)
				assert.Zero(t, failed, "no lease lost")
				assert.Zero(t, twice, "no order leased twice in a pass")
				perOrder := func(d time.Duration) float64 {
					return float64(d) / float64(time.Microsecond) / float64(max(committed, 1))
				}
				cpu := fmt.Sprintf("this process (Go and SQLite) %.1f µs", perOrder(self1-self0))
				busy := self1 - self0
				if dc.d == sqlstore.Postgres {
					cpu = fmt.Sprintf("Go %.1f µs, PostgreSQL %.1f µs (its backends %.1f, the rest %.1f)",
						perOrder(self1-self0), perOrder(pg1-pg0), perOrder(be1-be0), perOrder(pg1-pg0-(be1-be0)))
					busy += pg1 - pg0
					upd1, hot1 := hotUpdates(t, db)
					cpu += fmt.Sprintf("; HOT updates %d of %d", hot1-hot0, upd1-upd0)
				}
				cpuPerOrder = append(cpuPerOrder, perOrder(busy))
				t.Logf("%s | %d orders | %d sweeper(s) | batch %d | %.0f orders/s (%s) | CPU per order: %s; cores busy %.2f | load %s",
					dc.name, n, k, *ledgerBatch, float64(committed)/elapsed.Seconds(), sweepTimes, cpu, float64(busy)/float64(elapsed), loadAverage())
				if dc.d == sqlstore.Postgres {
					t.Logf("%s | %d sweeper(s) | %v (lock waits: budget ≤ 5 %%)", dc.name, k, w)
				}
				now = next
			}
			t.Log(cpuRatios(counts, cpuPerOrder))
			t.Logf("%s: %.0f bytes per tracked order after %d passes", dc.name, bytesPerOrder(t, db, dc.d, n), len(counts))
			c, err := st.Counts(ctx)
			require.NoError(t, err)
			assert.Equal(t, map[reconcile.State]int{reconcile.Pending: n}, c)
		})
	}
}

// planArgs are EXECUTE arguments for each statement (PostgreSQL): the
// values do not change a generic plan.
var planArgs = map[string]string{
	"lease":       `(NULL, 1, 1, 1, 1)`,
	"leaseOrder":  `(NULL, 'b-0000001', 1, 1, 1)`,
	"extend":      `(NULL, 1, 'b-0000001', 1)`,
	"commitHold":  `(NULL, ARRAY['b-0000001'], ARRAY[1], ARRAY['pending'], ARRAY[1], ARRAY[1], ARRAY[0], ARRAY[''], ARRAY['b-0000002'], ARRAY[1])`,
	"record":      `(NULL, ARRAY['b-0000001'], ARRAY[1], ARRAY['pending'], ARRAY[1], ARRAY[1], ARRAY[0], ARRAY[''], ARRAY['b-0000001'], ARRAY['paid'], ARRAY[1], ARRAY['SUCCESS'], ARRAY[1], ARRAY[''], ARRAY[''], ARRAY['default'], ARRAY['b-0000001'], ARRAY['paid'], ARRAY[1], ARRAY['default'])`,
	"commitMany":  `(NULL, ARRAY['b-0000001'], ARRAY[1], ARRAY['pending'], ARRAY[1], ARRAY[1], ARRAY[0], ARRAY[''])`,
	"release":     `(ARRAY['b-0000001'], ARRAY[1], ARRAY[1])`,
	"nextDue":     `(NULL)`,
	"nextDueWalk": `(NULL)`,
	"untrack":     `(NULL, 'b-0000001')`,
}

// planIndex is the index each statement must find its rows through.
var planIndex = map[string]string{
	"lease":       sqlstore.OrdersTable + "_due",
	"nextDue":     sqlstore.OrdersTable + "_due",
	"nextDueWalk": sqlstore.OrdersTable + "_due",
	"leaseOrder":  sqlstore.OrdersTable + "_pkey",
	"extend":      sqlstore.OrdersTable + "_pkey",
	"commitHold":  sqlstore.OrdersTable + "_pkey",
	"record":      sqlstore.OrdersTable + "_pkey",
	"commitMany":  sqlstore.OrdersTable + "_pkey",
	"release":     sqlstore.OrdersTable + "_pkey",
	"untrack":     sqlstore.OrdersTable + "_pkey",
}

// TestQueryPlans explains every statement a step runs, prepared, on a
// PostgreSQL table of -plan-orders orders, with the planner's choice and
// with plan_cache_mode = force_generic_plan: each reaches its rows through
// its index (the due index for lease and next due, the primary key for
// the others), never by scanning the table.
func TestQueryPlans(t *testing.T) {
	ctx := testCtx(t)
	_, db := newPostgresDB(t)
	newStore(t, sqlstore.Postgres, db)
	loadOrders(t, db, sqlstore.Postgres, *planOrders)
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	stmts := sentStatements(t, "postgres")
	names := make([]string, 0, len(stmts))
	for name := range stmts {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		_, err := conn.ExecContext(ctx, `PREPARE `+name+` AS `+stmts[name])
		require.NoError(t, err, name)
	}
	for _, mode := range []string{"auto", "force_generic_plan"} {
		_, err := conn.ExecContext(ctx, `SET plan_cache_mode = `+mode)
		require.NoError(t, err)
		for _, name := range names {
			rows, err := conn.QueryContext(ctx, `EXPLAIN EXECUTE `+name+planArgs[name])
			require.NoError(t, err, name)
			var plan []string
			for rows.Next() {
				var line string
				require.NoError(t, rows.Scan(&line))
				plan = append(plan, line)
			}
			require.NoError(t, rows.Err())
			rows.Close()
			text := strings.Join(plan, "\n")
			t.Logf("%d orders, plan_cache_mode=%s, %s:\n%s", *planOrders, mode, name, text)
			assert.Contains(t, text, planIndex[name], "%s (%s)", name, mode)
			assert.NotContains(t, text, "Seq Scan on "+sqlstore.OrdersTable, "%s (%s)", name, mode)
		}
	}
	explainHeldLeases(t, conn, db, *planOrders)
}

// explainHeldLeases runs the fourth sweeper's lease and NextDue with
// EXPLAIN (ANALYZE, BUFFERS) while three other sweepers hold a batch of
// 1,000 each (a lease's rows are due at its end, out of the range the
// others read): the lease reads no held row (no "Rows Removed by
// Filter"), and NextDue reads its first index entry and row, a handful of
// buffers. Each mode's lease is rolled back.
func explainHeldLeases(t *testing.T, conn *sql.Conn, db *sql.DB, n int) {
	ctx := testCtx(t)
	st := newStore(t, sqlstore.Postgres, db)
	now := t0.Add(time.Duration(n) * time.Microsecond)
	for range 3 {
		ls, err := st.Lease(ctx, now, 1000, time.Hour)
		require.NoError(t, err)
		require.Len(t, ls, 1000)
	}
	explain := func(what, stmt string) string {
		_, err := conn.ExecContext(ctx, `BEGIN`)
		require.NoError(t, err)
		defer func() {
			_, err := conn.ExecContext(ctx, `ROLLBACK`)
			require.NoError(t, err)
		}()
		rows, err := conn.QueryContext(ctx, `EXPLAIN (ANALYZE, BUFFERS) `+stmt)
		require.NoError(t, err, what)
		defer rows.Close()
		var plan []string
		for rows.Next() {
			var line string
			require.NoError(t, rows.Scan(&line))
			plan = append(plan, line)
		}
		require.NoError(t, rows.Err())
		return strings.Join(plan, "\n")
	}
	for _, mode := range []string{"auto", "force_generic_plan"} {
		_, err := conn.ExecContext(ctx, `SET plan_cache_mode = `+mode)
		require.NoError(t, err)
		lease := explain("lease", fmt.Sprintf(`EXECUTE lease(NULL, %d, 7, %d, %d)`, now.UnixNano(), time.Hour, time.Hour))
		t.Logf("%d orders, 3 sweepers holding 1,000 each, plan_cache_mode=%s, the fourth's lease:\n%s", n, mode, lease)
		assert.NotContains(t, lease, "Rows Removed by Filter", "%s: the lease walks past no held row", mode)
		assert.Contains(t, lease, "rows=1000 loops=1", mode)
		next := explain("nextDue", `EXECUTE nextDue(NULL)`)
		t.Logf("%d orders, 3 sweepers holding 1,000 each, plan_cache_mode=%s, NextDue:\n%s", n, mode, next)
		assert.NotContains(t, next, "Rows Removed by Filter", mode)
		assert.LessOrEqual(t, topBuffers(t, next), 20, "%s: NextDue reads its first entry and row", mode)
	}
}

// topBuffers is the shared buffers (hit and read) an EXPLAIN (ANALYZE,
// BUFFERS) plan's top node reports.
func topBuffers(t *testing.T, plan string) int {
	t.Helper()
	m := regexp.MustCompile(`Buffers: shared((?: \w+=\d+)+)`).FindStringSubmatch(plan)
	require.NotNil(t, m, "no buffers in %s", plan)
	n := 0
	for _, kv := range strings.Fields(m[1]) {
		k, v, _ := strings.Cut(kv, "=")
		if k == "hit" || k == "read" {
			i, err := strconv.Atoi(v)
			require.NoError(t, err)
			n += i
		}
	}
	return n
}

// sqlitePlanIndex is the index each SQLite statement must search through.
var sqlitePlanIndex = map[string]string{
	"lease":       "USING INTEGER PRIMARY KEY (rowid=?)\nLIST SUBQUERY 1\nSEARCH " + sqlstore.OrdersTable + " USING INDEX " + sqlstore.OrdersTable + "_due",
	"nextDue":     "USING INDEX " + sqlstore.OrdersTable + "_due",
	"nextDueWalk": "USING INDEX " + sqlstore.OrdersTable + "_due",
	"leaseOrder":  "USING INDEX sqlite_autoindex_" + sqlstore.OrdersTable + "_1",
	"extend":      "USING INDEX sqlite_autoindex_" + sqlstore.OrdersTable + "_1",
	"hold":        "USING INDEX sqlite_autoindex_" + sqlstore.OrdersTable + "_1",
	"commitMany":  "USING INDEX sqlite_autoindex_" + sqlstore.OrdersTable + "_1",
	"release":     "USING INDEX sqlite_autoindex_" + sqlstore.OrdersTable + "_1",
	"untrack":     "USING INDEX sqlite_autoindex_" + sqlstore.OrdersTable + "_1",
}

// TestSQLiteQueryPlans is TestQueryPlans on SQLite (EXPLAIN QUERY PLAN):
// every statement searches the orders through an index, none scans them.
func TestSQLiteQueryPlans(t *testing.T) {
	ctx := testCtx(t)
	_, db := newSQLiteDB(t)
	newStore(t, sqlstore.SQLite, db)
	loadOrders(t, db, sqlstore.SQLite, *planOrders/10)
	for name, q := range sentStatements(t, "sqlite") {
		args := make([]any, params(q))
		rows, err := db.QueryContext(ctx, `EXPLAIN QUERY PLAN `+q, args...)
		require.NoError(t, err, name)
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			require.NoError(t, rows.Scan(&id, &parent, &unused, &detail))
			plan = append(plan, detail)
		}
		require.NoError(t, rows.Err())
		rows.Close()
		text := strings.Join(plan, "\n")
		t.Logf("SQLite, %d orders, %s:\n%s", *planOrders/10, name, text)
		assert.Contains(t, text, sqlitePlanIndex[name], name)
		for _, line := range plan {
			assert.False(t, strings.HasPrefix(line, "SCAN "+sqlstore.OrdersTable), "%s scans the orders: %s", name, line)
		}
	}
}

// params counts a SQLite statement's parameters: the highest ?N, or the
// number of ?.
func params(q string) int {
	n, highest := 0, 0
	for i := 0; i < len(q); i++ {
		if q[i] != '?' {
			continue
		}
		n++
		j := i + 1
		for j < len(q) && q[j] >= '0' && q[j] <= '9' {
			j++
		}
		if k, err := strconv.Atoi(q[i+1 : j]); err == nil {
			highest = max(highest, k)
		}
	}
	if highest > 0 {
		return highest
	}
	return n
}
