package drivertest_test

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/reconciletest"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
	"github.com/upicollect/upicollect-go/sandbox"
)

// The size of the ledger after the mix: orders and id length set by flags.
var (
	sizeOrders = flag.Int("size-orders", 2000, "orders of the mix TestBytesPerOrderAfterTheMix runs (500 under -race)")
	sizeIDLen  = flag.Int("size-id-len", 28, "bytes of each order id in TestBytesPerOrderAfterTheMix")
)

// ledgerTables are every table the store keeps an order's data in.
var ledgerTables = []string{sqlstore.OrdersTable, sqlstore.EventsTable, sqlstore.DeliveriesTable, sqlstore.ConsumersTable}

// ledgerBytes is the size on disk of every ledger table with its indexes
// and TOAST (PostgreSQL: pg_total_relation_size; SQLite: the database
// file's pages, after a checkpoint of its WAL).
func ledgerBytes(t testing.TB, db *sql.DB, d sqlstore.Dialect) int64 {
	t.Helper()
	ctx := context.Background()
	var size int64
	if d == sqlstore.Postgres {
		for _, table := range ledgerTables {
			var n int64
			require.NoError(t, db.QueryRowContext(ctx, `SELECT pg_total_relation_size($1)`, table).Scan(&n))
			size += n
		}
		return size
	}
	_, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	require.NoError(t, err)
	var pages, pageSize int64
	require.NoError(t, db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages))
	require.NoError(t, db.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&pageSize))
	return pages * pageSize
}

// longID is the mix's id i as a shop's id of n bytes (at least 8).
func longID(i, n int) string {
	return fmt.Sprintf("order_%0*d", n-6, i)
}

// maxBytesPerOrder is what a tracked order may take after the mix, with
// 28-byte ids: the ledger's tables and indexes over the orders it keeps,
// past the empty tables' own pages.
var maxBytesPerOrder = map[sqlstore.Dialect]float64{sqlstore.Postgres: 250, sqlstore.SQLite: 160}

// TestBytesPerOrderAfterTheMix runs the mix (-size-orders orders with
// -size-id-len-byte ids) through one sweeper for 72 hours of sandbox time,
// every order tracked, checked and finished as the mix has it, and
// measures the ledger's size on disk per tracked order (the tables with
// their indexes, past what they take empty): on PostgreSQL after a plain
// VACUUM, as autovacuum leaves a table. It asserts the budget at 28-byte
// ids (PostgreSQL ≤ 250 B, SQLite ≤ 160 B), and that the size is the
// tables', not the dead rows': every order is kept.
func TestBytesPerOrderAfterTheMix(t *testing.T) {
	n := *sizeOrders
	if raceEnabled {
		n = min(n, 500)
	}
	for _, dc := range dialects {
		t.Run(dc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
			defer cancel()
			c := newClocked(t, dc.d, dc.newDB)
			empty := ledgerBytes(t, c.db, dc.d)
			sb := sandbox.Start(t, sandbox.WithClock(c.clk.Now), sandbox.WithSeed(7))
			client := sb.Client()
			defer client.CloseIdleConnections()
			sw, err := reconcile.New(client, c.st, func(context.Context, reconcile.Event) error { return nil },
				reconcile.WithClock(c.clk.Now), reconcile.WithBatchSize(256), reconcile.WithConcurrency(8))
			require.NoError(t, err)
			plan := reconciletest.Plan(n, t0, 11)
			for i := range plan {
				plan[i].Order.ID = longID(i, *sizeIDLen)
			}
			require.NoError(t, reconciletest.Create(ctx, client, sb, c.clk, plan, func(o reconcile.Order) error { return sw.Track(ctx, o) }))
			sum, steps, err := reconciletest.Walk(ctx, c.clk, t0.Add(72*time.Hour), sw.Step)
			require.NoError(t, err)
			if dc.d == sqlstore.Postgres {
				for _, table := range ledgerTables {
					_, err := c.db.ExecContext(ctx, `VACUUM `+table)
					require.NoError(t, err)
				}
			}
			counts, err := c.st.Counts(ctx)
			require.NoError(t, err)
			tracked := 0
			for _, k := range counts {
				tracked += k
			}
			require.Equal(t, n, tracked, "every order kept: %v", counts)
			size := ledgerBytes(t, c.db, dc.d)
			perOrder := float64(size-empty) / float64(tracked)
			t.Logf("%s: %d orders (%d-byte ids) after 72 h of the mix (%d steps, %d checks, %d events): %v; ledger %d bytes (%d empty): %.0f bytes per tracked order",
				dc.name, n, *sizeIDLen, steps, sum.Checked, sum.Paid+sum.Failed+sum.LatePaid+sum.Expired+sum.Mismatch, counts, size, empty, perOrder)
			if *sizeIDLen == 28 {
				assert.LessOrEqual(t, perOrder, maxBytesPerOrder[dc.d], "bytes per tracked order after the mix")
			}
		})
	}
}
