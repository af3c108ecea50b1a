package reconcile_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

// finals records the final states a client's Observer is given.
type finals struct {
	upicollect.NopObserver
	mu  sync.Mutex
	got []upicollect.FinalState
}

func (f *finals) FinalState(_ context.Context, s upicollect.FinalState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, s)
}

// TestSweeperObservesFinalStates: each event the sweeper delivers reaches
// the client's Observer as a final state, timed from the order's creation.
func TestSweeperObservesFinalStates(t *testing.T) {
	e := newEnv(t)
	obs := &finals{}
	e.client = e.sb.Client(upicollect.WithObserver(obs))
	t.Cleanup(e.client.CloseIdleConnections)
	ctx := boundedCtx(t)
	rec := &events{}
	sw, err := reconcile.New(e.client, reconcile.NewMemoryStore(), rec.handle)
	require.NoError(t, err)
	paid := e.intent(t, "paid-2m", upicollect.Rupees(10))
	require.NoError(t, e.sb.Settle(paid.ID, upicollect.TxnSuccess, paid.Created.Add(2*time.Minute)))
	require.NoError(t, sw.Track(ctx, paid))
	failed := e.intent(t, "failed-1m", upicollect.Rupees(10))
	require.NoError(t, e.sb.Settle(failed.ID, upicollect.TxnFail, failed.Created.Add(time.Minute)))
	require.NoError(t, sw.Track(ctx, failed))

	walk(t, e, sw, t0.Add(time.Hour))
	p, f := rec.get(paid.ID, reconcile.Paid), rec.get(failed.ID, reconcile.Failed)
	assert.ElementsMatch(t, []upicollect.FinalState{
		{Source: "reconcile", OrderID: paid.ID, Status: upicollect.TxnSuccess, Result: "paid", Elapsed: p.At.Sub(paid.Created)},
		{Source: "reconcile", OrderID: failed.ID, Status: upicollect.TxnFail, Result: "failed", Elapsed: f.At.Sub(failed.Created)},
	}, obs.got)
}
