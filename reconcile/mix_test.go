package reconcile_test

import (
	"sort"
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

// TestMixWithConfirm runs the mix of TestMixInSandboxTime with the return
// page: 70 % of the orders paid within 10 minutes (every tenth's first
// seven, in plan order) have their payer back on the return page 1–20 s
// after paying, and the page calls Confirm; one sweeper steps as before.
// All of it on the sandbox's manual clock, so every count is exact. It
// holds the same budgets (at most 30 checks per order on average, every
// payment of the first 15 minutes reported within 30 s), and what the
// return page promises: each confirmed payment is recorded by the time
// Confirm returns (by Confirm's own check or by a sweeper's before it),
// and not one status check is made for it after the return.
func TestMixWithConfirm(t *testing.T) {
	n := 1_000
	if raceEnabled {
		n = 200
	}
	e := newEnv(t)
	ctx := boundedCtx(t)
	plan := reconciletest.Plan(n, t0, 42)
	rec := &reconciletest.Recorder{}
	sw, err := reconcile.New(e.client, reconcile.NewMemoryStore(), rec.Handle,
		reconcile.WithConcurrency(16), reconcile.WithClock(e.clk.Now))
	require.NoError(t, err)
	require.NoError(t, reconciletest.Create(ctx, e.client, e.sb, e.clk, plan, func(o reconcile.Order) error { return sw.Track(ctx, o) }))

	type visit struct {
		at time.Time
		id string
	}
	var returns []visit
	onTime := 0
	for _, p := range plan {
		if p.Kind != reconciletest.PaidEarly {
			continue
		}
		if onTime%10 < 7 {
			returns = append(returns, visit{at: p.PaidAt.Add(time.Duration(1+onTime*7%20) * time.Second), id: p.Order.ID})
		}
		onTime++
	}
	sort.Slice(returns, func(i, j int) bool { return returns[i].at.Before(returns[j].at) })

	var (
		sum                  reconcile.Stats
		steps                int
		byConfirm, bySweeper int // confirmed payments recorded by Confirm's check, and by a step before the return
		notRecorded          int // returns after which the payment was still not recorded
		checksAtReturn       = map[string]int{}
		returnedAt           = map[string]time.Time{}
		until                = t0.Add(100 * time.Hour)
		stepAt               = e.clk.Now()
		stepping             = true
	)
	for stepping || len(returns) > 0 {
		if len(returns) > 0 && (!stepping || returns[0].at.Before(stepAt)) {
			v := returns[0]
			returns = returns[1:]
			if v.at.After(e.clk.Now()) {
				e.clk.Set(v.at)
			}
			before, err := sw.Lookup(ctx, v.id)
			require.NoError(t, err)
			st, err := sw.Confirm(ctx, v.id)
			require.NoError(t, err, v.id)
			switch {
			case st.State != reconcile.Paid:
				notRecorded++
			case before.State == reconcile.Paid:
				bySweeper++
			default:
				byConfirm++
			}
			checksAtReturn[v.id], returnedAt[v.id] = st.Checks, v.at
			continue
		}
		e.clk.Set(stepAt)
		st, err := sw.Step(ctx, stepAt)
		require.NoError(t, err)
		steps++
		reconciletest.Add(&sum, st)
		next := st.NextDue
		if next.IsZero() || next.After(until) {
			stepping = false
			continue
		}
		if !next.After(stepAt) {
			next = stepAt.Add(time.Second)
		}
		stepAt = next
	}

	checks, most, afterReturn := 0, 0, 0
	for _, p := range plan {
		st, err := sw.Lookup(ctx, p.Order.ID)
		require.NoError(t, err)
		checks += st.Checks
		most = max(most, st.Checks)
		if at, ok := checksAtReturn[p.Order.ID]; ok {
			afterReturn += st.Checks - at
		}
	}
	deliveries := rec.Deliveries()
	r := reconciletest.Check(plan, deliveries)
	// The confirmed payments: seen at the latest at the return.
	paidAt := map[string]time.Time{}
	for _, p := range plan {
		paidAt[p.Order.ID] = p.PaidAt
	}
	var seenAfterReturn int
	var slowestConfirmed time.Duration
	for _, d := range deliveries {
		if at, ok := returnedAt[d.OrderID]; ok && d.Result == reconcile.Paid {
			slowestConfirmed = max(slowestConfirmed, d.At.Sub(paidAt[d.OrderID]))
			if d.At.After(at) {
				seenAfterReturn++
			}
		}
	}
	confirmed := len(checksAtReturn)
	perOrder := float64(checks) / float64(n)
	t.Logf("%d orders, %d steps, %d returns with Confirm (%d recorded by Confirm's check, %d by a step before the return, %d not recorded): "+
		"%d checks (%d by steps), %.2f per order, at most %d for one; %d checks after a confirmed return; confirmed payments seen at most %v after paying, %d after the return; events %v; "+
		"%d payments in the first 15 min reported at most %v after",
		n, steps, confirmed, byConfirm, bySweeper, notRecorded, checks, sum.Checked, perOrder, most, afterReturn, slowestConfirmed, seenAfterReturn, r.ByResult, r.EarlyPaid, r.MaxDelay)
	assert.Equal(t, n*60/100*7/10, confirmed, "returns")
	assert.Zero(t, notRecorded, "confirmed payments not recorded at the return")
	assert.Zero(t, afterReturn, "status checks after a confirmed return")
	assert.Zero(t, seenAfterReturn, "confirmed payments delivered after the return")
	assert.Equal(t, checks-sum.Checked, byConfirm, "Confirm checks once, and only what no step recorded")
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
