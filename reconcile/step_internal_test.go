package reconcile

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

// TestNextBatchProbeGivesBackTheBatchLeasedAhead: a probe does not take a
// batch leased ahead (the service was seen failing after it began: by a
// Confirm, between a batch's last answer and the next batch): that batch is
// given back, due as it was, and the probe's one order is leased now.
func TestNextBatchProbeGivesBackTheBatchLeasedAhead(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	st := NewMemoryStore()
	for i := range 3 {
		require.NoError(t, st.Track(ctx, Order{ID: fmt.Sprint("o-", i), Amount: upicollect.Rupees(10), Created: t0}, t0))
	}
	client := sandbox.Start(t).Client()
	t.Cleanup(client.CloseIdleConnections)
	s, err := New(client, st, func(context.Context, Event) error { return nil }, WithBatchSize(2))
	require.NoError(t, err)
	ahead := s.startLeasing(ctx, t0, 2)
	var errs []error
	ls, err := s.nextBatch(ctx, t0, 1, true, ahead, func() error { return nil }, &errs)
	require.NoError(t, err)
	assert.Empty(t, errs)
	assert.Len(t, ls, 1, "the probe's one order")
	again, err := st.Lease(ctx, t0, 10, time.Minute)
	require.NoError(t, err)
	assert.Len(t, again, 2, "the batch leased ahead, given back before the probe returned")
}
