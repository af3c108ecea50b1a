package reconcile_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/storetest"
)

func TestMemoryStore(t *testing.T) {
	storetest.Run(t, func(*testing.T) reconcile.Store { return reconcile.NewMemoryStore() })
}

// TestMemoryStoreClocked runs the suite through RunClocked's clock: the
// memory store keeps no clock, so it must pass the same way.
func TestMemoryStoreClocked(t *testing.T) {
	storetest.RunClocked(t, func(*testing.T, func() time.Time) reconcile.Store { return reconcile.NewMemoryStore() })
}

func TestMemoryStoreHasNoClockAndNoTransactions(t *testing.T) {
	st := reconcile.NewMemoryStore()
	now, ok, err := st.Now(context.Background())
	require.NoError(t, err)
	assert.False(t, ok)
	assert.True(t, now.IsZero())
	require.ErrorIs(t, st.TrackTx(context.Background(), &sql.Tx{}, reconcile.Order{ID: "a"}, time.Time{}), reconcile.ErrNoTransactions)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = st.Now(ctx)
	require.ErrorIs(t, err, context.Canceled)
}
