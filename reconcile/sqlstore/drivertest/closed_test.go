package drivertest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
)

// TestUnknownDialectsRefused: New and Migrate take only Postgres and
// SQLite; the zero Dialect and every other number is refused before the
// database is asked, and names itself by its number.
func TestUnknownDialectsRefused(t *testing.T) {
	ctx := testCtx(t)
	_, db := newSQLiteDB(t)
	for _, d := range []sqlstore.Dialect{0, -1, 3, 9} {
		t.Run(fmt.Sprint(int(d)), func(t *testing.T) {
			assert.Equal(t, fmt.Sprintf("Dialect(%d)", int(d)), d.String())
			_, err := sqlstore.New(ctx, db, d)
			require.ErrorContains(t, err, "unknown dialect")
			_, _, err = sqlstore.Migrate(ctx, db, d)
			require.ErrorContains(t, err, "unknown dialect")
		})
	}
	var tables int
	require.NoError(t, db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master`).Scan(&tables))
	assert.Zero(t, tables, "nothing was created")
	assert.Equal(t, 10*time.Second, sqlstore.DefaultStatementTimeout)
}

// TestCommitOnAClosedDatabase: a commit, with an event (its own
// transaction) or without, on a database that is closed returns the
// database's error.
func TestCommitOnAClosedDatabase(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		require.NoError(t, c.st.Track(ctx, ord(1), t0))
		ls, err := c.st.Lease(ctx, t0, 1, time.Minute)
		require.NoError(t, err)
		require.Len(t, ls, 1)
		require.NoError(t, c.db.Close())
		delivered := 0
		err = c.st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.Paid, Checked: true,
			Event: &reconcile.Event{Order: ls[0].Order, Result: reconcile.Paid, At: t0}}, func(context.Context) error {
			delivered++
			return nil
		})
		require.ErrorContains(t, err, "database is closed")
		assert.Zero(t, delivered, "no transaction, no delivery")
		err = c.st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.Pending, Next: t0.Add(time.Hour)}, nil)
		require.ErrorContains(t, err, "database is closed")
	})
}

// TestPruneMoreThanABatch: Prune goes on, batch after batch, until a batch
// is not full: one more finished order than a batch holds is deleted too,
// and an order still checked is kept.
func TestPruneMoreThanABatch(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		n := pruneBatch(t) + 1
		_, err := c.db.ExecContext(ctx, fmt.Sprintf(`WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < %d)
			INSERT INTO %s (order_id, amount_paise, created_ns, state, updated_ns) SELECT 'done-' || i, 100, %d, 'paid', %d FROM seq`,
			n, sqlstore.OrdersTable, t0.UnixNano(), t0.UnixNano()))
		require.NoError(t, err)
		require.NoError(t, c.st.Track(ctx, ord(1), t0))
		deleted, err := c.st.Prune(ctx, t0.Add(time.Hour))
		require.NoError(t, err)
		assert.Equal(t, n, deleted)
		counts, err := c.st.Counts(ctx)
		require.NoError(t, err)
		assert.Equal(t, map[reconcile.State]int{reconcile.Pending: 1}, counts)
	})
}
