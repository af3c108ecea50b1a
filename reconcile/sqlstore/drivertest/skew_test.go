package drivertest_test

import (
	"context"
	"database/sql"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/reconciletest"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
	"github.com/upicollect/upicollect-go/sandbox"
)

// skewRun runs the mix of n orders through three sweepers on one
// PostgreSQL database, each with its own connection pool and store, the
// stores' clock being the database's (here sandbox time: WithClock of the
// sandbox's clock, as every process reads one database clock). The
// sweeper "ahead" has a clock skew ahead of the others: it steps at
// now+skew. It returns what the handlers saw, at the sandbox time they saw
// it, and the steps' stats.
func skewRun(t *testing.T, n int, skew time.Duration) (reconciletest.Report, reconcile.Stats) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	dsn, db := newPostgresDB(t)
	clk := reconciletest.NewClock(t0)
	sb := sandbox.Start(t, sandbox.WithClock(clk.Now))
	c := sb.Client()
	defer c.CloseIdleConnections()
	st, err := sqlstore.New(ctx, db, sqlstore.Postgres, sqlstore.WithClock(clk.Now))
	require.NoError(t, err)
	var (
		mu sync.Mutex
		ds []reconciletest.Delivery
	)
	handle := func(_ context.Context, e reconcile.Event) error {
		mu.Lock()
		defer mu.Unlock()
		ds = append(ds, reconciletest.Delivery{OrderID: e.Order.ID, Result: e.Result, At: clk.Now()})
		return nil
	}
	type sweeper struct {
		sw   *reconcile.Sweeper
		skew time.Duration
	}
	var sweepers []sweeper
	for i, s := range []time.Duration{0, 0, skew} {
		other, err := sql.Open("pgx", dsn)
		require.NoError(t, err)
		t.Cleanup(func() { other.Close() })
		ost, err := sqlstore.New(ctx, other, sqlstore.Postgres, sqlstore.WithClock(clk.Now))
		require.NoError(t, err)
		sw, err := reconcile.New(c, ost, handle, reconcile.WithConcurrency(4), reconcile.WithBatchSize(32),
			reconcile.WithClock(func() time.Time { return clk.Now().Add(s) }))
		require.NoError(t, err, "sweeper %d", i)
		sweepers = append(sweepers, sweeper{sw: sw, skew: s})
	}
	tracker, err := reconcile.New(c, st, handle)
	require.NoError(t, err)
	plan := reconciletest.Plan(n, t0, 7)
	require.NoError(t, reconciletest.Create(ctx, c, sb, clk, plan, func(o reconcile.Order) error { return tracker.Track(ctx, o) }))
	sum, _, err := reconciletest.Walk(ctx, clk, t0.Add(100*time.Hour), func(ctx context.Context, now time.Time) (reconcile.Stats, error) {
		var round reconcile.Stats
		for _, s := range sweepers {
			stats, err := s.sw.Step(ctx, now.Add(s.skew))
			if err != nil {
				return round, err
			}
			reconciletest.Add(&round, stats)
			next := stats.NextDue
			if s.skew != 0 && !next.IsZero() {
				next = next.Add(-s.skew) // its time, back in sandbox time
			}
			if round.NextDue.IsZero() || (!next.IsZero() && next.Before(round.NextDue)) {
				round.NextDue = next
			}
		}
		return round, nil
	})
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	return reconciletest.Check(plan, ds), sum
}

// TestTenMinuteClockSkew runs the mix through three sweeper processes' worth
// of sweepers on one PostgreSQL, once with every clock in step and once with
// one sweeper's clock 10 minutes ahead: leases and windows are judged on
// the store's clock, so both runs deliver the same events, none twice, none
// lost, none wrong (with each sweeper on its own clock, 2,000 orders lost
// 815 events and got 1,421 wrong).
func TestTenMinuteClockSkew(t *testing.T) {
	// The sweeper ahead leases and judges on the store's clock, not its
	// own: it checks nothing early, so both runs make the same checks.
	n := 100
	if raceEnabled {
		n = 50
	}
	inStep, sumInStep := skewRun(t, n, 0)
	skewed, sumSkewed := skewRun(t, n, 10*time.Minute)
	for _, r := range []struct {
		name string
		r    reconciletest.Report
		sum  reconcile.Stats
	}{{"in step", inStep, sumInStep}, {"one 10 min ahead", skewed, sumSkewed}} {
		t.Logf("%d orders, 3 sweepers on one PostgreSQL, %s: %d events %v; twice %d, lost %d, wrong %d; %d checks; errors %d",
			n, r.name, r.r.Events, r.r.ByResult, r.r.Twice, r.r.Lost, r.r.Wrong, r.sum.Checked, r.sum.Errors)
		assert.Zero(t, r.r.Twice, "%s: %v", r.name, r.r.Problems)
		assert.Zero(t, r.r.Lost, "%s: %v", r.name, r.r.Problems)
		assert.Zero(t, r.r.Wrong, "%s: %v", r.name, r.r.Problems)
	}
	assert.Equal(t, inStep.ByResult, skewed.ByResult, "the same events")
	assert.Equal(t, inStep.Events, skewed.Events)
	assert.Equal(t, sumInStep.Checked, sumSkewed.Checked, "the sweeper ahead checks nothing early")
}
