package drivertest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
)

// TestNothingAskedAsksNothing: a lease of at most zero (or fewer) orders
// or deliveries, and a commit or release of none, is empty and sends no
// statement, so it succeeds on a closed database; a lease of one does ask
// it, and fails there.
func TestNothingAskedAsksNothing(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		require.NoError(t, c.db.Close())
		for _, limit := range []int{0, -1} {
			ls, err := c.st.Lease(ctx, t0, limit, time.Minute)
			require.NoError(t, err, "Lease, limit %d", limit)
			assert.Empty(t, ls, "limit %d", limit)
			ds, err := c.st.LeaseDeliveries(ctx, "books", t0, limit, time.Minute)
			require.NoError(t, err, "LeaseDeliveries, limit %d", limit)
			assert.Empty(t, ds, "limit %d", limit)
		}
		errs, err := c.st.CommitMany(ctx, nil, nil)
		require.NoError(t, err, "CommitMany")
		assert.Empty(t, errs)
		errs, err = c.st.CommitDeliveries(ctx, nil, nil)
		require.NoError(t, err, "CommitDeliveries")
		assert.Empty(t, errs)
		require.NoError(t, c.st.Release(ctx), "Release")
		_, err = c.st.Lease(ctx, t0, 1, time.Minute)
		assert.Error(t, err, "a lease of one order asks the closed database")
		_, err = c.st.LeaseDeliveries(ctx, "books", t0, 1, time.Minute)
		assert.Error(t, err, "a lease of one delivery asks the closed database")
	})
}

// TestReleaseReportsTheDatabasesError: Release on a database that fails
// returns its error, on both databases.
func TestReleaseReportsTheDatabasesError(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		require.NoError(t, c.st.Track(ctx, ord(1), t0))
		ls, err := c.st.Lease(ctx, t0, 1, time.Minute)
		require.NoError(t, err)
		require.Len(t, ls, 1)
		require.NoError(t, c.db.Close())
		assert.Error(t, c.st.Release(ctx, ls...))
	})
}

// TestLeaseAloneSkipsTheFlush: on PostgreSQL a lease's own transaction
// does not wait for its WAL flush, and only its own: the connection it ran
// on (the pool's only one) is back on the durable default, so the commit
// of the outcomes waits for its flush.
func TestLeaseAloneSkipsTheFlush(t *testing.T) {
	ctx := testCtx(t)
	c := newClocked(t, sqlstore.Postgres, newPostgresDB)
	c.db.SetMaxOpenConns(1)
	require.NoError(t, c.st.Track(ctx, ord(1), t0))
	ls, err := c.st.Lease(ctx, t0, 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, ls, 1)
	var setting string
	require.NoError(t, c.db.QueryRowContext(ctx, `SHOW synchronous_commit`).Scan(&setting))
	assert.Equal(t, "on", setting, "the lease's setting ended with its transaction")
	errs, err := c.st.CommitMany(ctx, []reconcile.LeasedUpdate{{Lease: ls[0], Update: reconcile.Update{State: reconcile.Pending, Next: t0.Add(time.Hour)}}}, nil)
	require.NoError(t, err)
	require.NoError(t, errs[0])
	var async int
	require.NoError(t, c.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_settings WHERE name = 'synchronous_commit' AND setting <> 'on'`).Scan(&async))
	assert.Zero(t, async)
}
