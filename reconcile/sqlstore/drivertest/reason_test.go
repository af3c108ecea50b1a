package drivertest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
)

// TestCommitRecordsTheReason: a commit's reason is kept as given, and no
// reason is kept as NULL, not as an empty text.
func TestCommitRecordsTheReason(t *testing.T) {
	eachDialect(t, func(t *testing.T, c clocked) {
		ctx := testCtx(t)
		for i, tc := range []struct {
			reason string
			null   bool
		}{
			{"checks kept failing", false},
			{"", true},
		} {
			o := ord(i)
			require.NoError(t, c.st.Track(ctx, o, t0))
			l, err := c.st.LeaseOrder(ctx, o.ID, t0, time.Minute)
			require.NoError(t, err)
			require.NoError(t, c.st.Commit(ctx, l, reconcile.Update{State: reconcile.Expired, Reason: tc.reason}, nil))
			st, err := c.st.Lookup(ctx, o.ID)
			require.NoError(t, err)
			assert.Equal(t, tc.reason, st.Reason)
			var null bool
			q := `SELECT reason IS NULL FROM ` + sqlstore.OrdersTable + ` WHERE order_id = ?`
			if c.d == sqlstore.Postgres {
				q = `SELECT reason IS NULL FROM ` + sqlstore.OrdersTable + ` WHERE order_id = $1`
			}
			require.NoError(t, c.db.QueryRowContext(ctx, q, o.ID).Scan(&null))
			assert.Equal(t, tc.null, null, "reason %q", tc.reason)
		}
	})
}
