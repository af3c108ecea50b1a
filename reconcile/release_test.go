package reconcile_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

// releaseCounting is a memory store that counts the Release calls that
// give back no lease.
type releaseCounting struct {
	reconcile.Store
	empty atomic.Int32
}

func (s *releaseCounting) Release(ctx context.Context, ls ...reconcile.Lease) error {
	if len(ls) == 0 {
		s.empty.Add(1)
	}
	return s.Store.Release(ctx, ls...)
}

// TestStepGivesBackNothingWhenAllIsChecked: a step that checked and
// recorded every order it leased makes no Release call (one round trip to
// the store saved per batch), paid orders and pending ones alike.
func TestStepGivesBackNothingWhenAllIsChecked(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	st := &releaseCounting{Store: reconcile.NewMemoryStore()}
	sw, err := reconcile.New(e.client, st, (&events{}).handle, reconcile.WithBatchSize(2))
	require.NoError(t, err)
	for i := range 3 {
		o := e.intent(t, fmt.Sprint("rc-", i), upicollect.Rupees(10))
		if i == 0 {
			_, err := e.sb.Pay(o.ID)
			require.NoError(t, err)
		}
		require.NoError(t, sw.Track(ctx, o))
	}
	stats, err := sw.Step(ctx, t0.Add(10*time.Second))
	require.NoError(t, err)
	assert.Equal(t, 3, stats.Checked)
	assert.Equal(t, 1, stats.Paid)
	assert.Zero(t, st.empty.Load(), "Release called with no lease")
}
