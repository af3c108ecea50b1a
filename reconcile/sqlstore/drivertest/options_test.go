package drivertest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
)

// TestOptionsKeepDefaults: a nil clock and a timeout not above zero are
// ignored (the store keeps its clock and its 10 s bound), and a lease of
// no orders asks nothing.
func TestOptionsKeepDefaults(t *testing.T) {
	ctx := testCtx(t)
	_, db := newSQLiteDB(t)
	before := time.Now()
	st, err := sqlstore.New(ctx, db, sqlstore.SQLite, sqlstore.WithClock(nil), sqlstore.WithStatementTimeout(0), sqlstore.WithStatementTimeout(-time.Second))
	require.NoError(t, err)
	now, ok, err := st.Now(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	assert.False(t, now.Before(before.Truncate(0)), "the process clock")
	require.NoError(t, st.Track(ctx, ord(1), t0), "a zero timeout was not taken")
	ls, err := st.Lease(ctx, t0, 0, time.Minute)
	require.NoError(t, err)
	assert.Empty(t, ls)
	ls, err = st.Lease(ctx, t0, 1, time.Minute)
	require.NoError(t, err)
	assert.Len(t, ls, 1)
	assert.Equal(t, "Dialect(9)", fmt.Sprint(sqlstore.Dialect(9)))
}

// TestNextDueWhenManyAreLeased: a leased order is due at its lease's end,
// so NextDue reads one order when all are leased; a sweeper ahead of the
// store's clock (the leases ended in its time, not on the store's clock)
// walks at most 512 orders in due order, and when they are all leased it
// answers the last one's due time (early, never late); otherwise the
// first free order's due time.
func TestNextDueWhenManyAreLeased(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		const n = 600
		for i := range n {
			require.NoError(t, c.st.Track(ctx, ord(i), t0.Add(time.Duration(i)*time.Second)))
		}
		ls, err := c.st.Lease(ctx, t0.Add(time.Duration(n-1)*time.Second), n, time.Hour)
		require.NoError(t, err)
		require.Len(t, ls, n)
		next, ok, err := c.st.NextDue(ctx, c.clk.Now())
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, t0.Add(time.Hour), next, "every lease ends at store time 1 h")
		next, ok, err = c.st.NextDue(ctx, c.clk.Now().Add(2*time.Hour))
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, t0.Add(time.Hour), next, "2 h ahead: the 512th order's due time stands in for the rest")
		// The orders after the first 500 given back: the first free one is
		// the 501st, due at 500 s, before every expiry.
		require.NoError(t, c.st.Release(ctx, ls[500:]...))
		next, _, err = c.st.NextDue(ctx, c.clk.Now())
		require.NoError(t, err)
		assert.Equal(t, t0.Add(500*time.Second), next)
		// All but the 100th given back: the first order is free, due at 0.
		require.NoError(t, c.st.Release(ctx, ls[:99]...))
		next, _, err = c.st.NextDue(ctx, c.clk.Now())
		require.NoError(t, err)
		assert.Equal(t, t0, next)
	})
}
