package drivertest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLeaseOfNothingAsksNothing: a lease of at most zero (or fewer) orders
// is empty and sends no statement, so it succeeds on a closed database; a
// lease of one does ask it, and fails there.
func TestLeaseOfNothingAsksNothing(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		require.NoError(t, c.db.Close())
		for _, limit := range []int{0, -1} {
			ls, err := c.st.Lease(ctx, t0, limit, time.Minute)
			require.NoError(t, err, "limit %d", limit)
			assert.Empty(t, ls, "limit %d", limit)
		}
		_, err := c.st.Lease(ctx, t0, 1, time.Minute)
		assert.Error(t, err, "a lease of one order asks the closed database")
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
