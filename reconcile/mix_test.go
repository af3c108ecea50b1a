package reconcile_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/reconciletest"
)

// TestMixInSandboxTime runs the mix, 1,000 orders of it (200
// under -race; bench/cmd/reconcile runs all 10,000, and sqlstore's
// TestThreeSweeperProcesses runs them through three processes), through
// one sweeper on a memory store, over 72 hours of sandbox time, and holds
// the budgets: every final state reported, no event twice, at most 30
// status checks per order on average, and every payment of the first 15
// minutes reported within 30 s.
func TestMixInSandboxTime(t *testing.T) {
	n := 1_000
	if raceEnabled {
		n = 200
	}
	e := newEnv(t)
	ctx := boundedCtx(t)
	plan := reconciletest.Plan(n, t0, 42)
	rec := &reconciletest.Recorder{}
	sw, err := reconcile.New(e.client, reconcile.NewMemoryStore(), rec.Handle, reconcile.WithConcurrency(16))
	require.NoError(t, err)
	require.NoError(t, reconciletest.Create(ctx, e.client, e.sb, e.clk, plan, func(o reconcile.Order) error { return sw.Track(ctx, o) }))
	sum, steps, err := reconciletest.Walk(ctx, e.clk, t0.Add(100*time.Hour), sw.Step)
	require.NoError(t, err)
	r := reconciletest.Check(plan, rec.Deliveries())
	perOrder := float64(sum.Checked) / float64(n)
	t.Logf("%d orders, %d steps: %d checks (%.2f per order), events %v, %d payments in the first 15 min reported at most %v after",
		n, steps, sum.Checked, perOrder, r.ByResult, r.EarlyPaid, r.MaxDelay)
	assert.Zero(t, r.Twice, "%v", r.Problems)
	assert.Zero(t, r.Lost, "%v", r.Problems)
	assert.Zero(t, r.Wrong, "%v", r.Problems)
	assert.Zero(t, r.SlowPaid, "%v", r.Problems)
	assert.Zero(t, sum.Errors)
	assert.LessOrEqual(t, perOrder, 30.0, "status checks per order")
	assert.Equal(t, n*60/100, r.EarlyPaid)
	assert.Equal(t, map[reconcile.Result]int{reconcile.Paid: n * 60 / 100, reconcile.Failed: n * 20 / 100,
		reconcile.LatePaid: n * 10 / 100, reconcile.Expired: n * 20 / 100}, r.ByResult)
}
