package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/bench/internal/results"
)

// TestEvaluateReconcile: each deterministic reconcile budget passes at its
// limit and fails one step past it; the pace never fails the run.
func TestEvaluateReconcile(t *testing.T) {
	t.Parallel()
	good := func() *results.Reconcile {
		return &results.Reconcile{
			Tracked: 100_000, BytesPerOrder: 1024,
			Mix:        results.MixRun{Orders: 10_000, ChecksPerOrder: 30, Events: 11_000, EarlyPaid: 6_000, MaxDelaySeconds: 30},
			Backlog:    results.BacklogRun{Orders: 10_000, Checked: 10_000, Rate: 500, Burst: 10, PerSecond: 100, Requests: 10_000},
			StoreMixes: []results.MixRun{{Store: "postgres", Orders: 2_000, ChecksPerOrder: 30, Events: 2_200, EarlyPaid: 1_200, MaxDelaySeconds: 30}},
			Sweeps: []results.SweepRun{
				{Store: "memory", Round: 1, Orders: 1_000, Paid: 100, Checked: 1_000, Requests: 1_000, Delivered: 100, PerSecond: 1, StoreShare: 1, StoreWaitShare: 1},
				{Store: "postgres", Round: 1, Orders: 1_000, Paid: 100, Checked: 1_000, Requests: 1_000, Delivered: 100, PerSecond: 1, StoreShare: 1, StoreWaitShare: 1},
			},
		}
	}
	for _, tt := range []struct {
		name  string
		spoil func(*results.Reconcile)
		fail  bool
	}{
		{"at the limits, pace far under", func(*results.Reconcile) {}, false},
		{"a byte more per order", func(r *results.Reconcile) { r.BytesPerOrder = 1025 }, true},
		{"measured at fewer orders", func(r *results.Reconcile) { r.Tracked = 99_999 }, true},
		{"more checks", func(r *results.Reconcile) { r.Mix.ChecksPerOrder = 30.01 }, true},
		{"an event twice", func(r *results.Reconcile) { r.Mix.Twice = 1 }, true},
		{"an event lost", func(r *results.Reconcile) { r.Mix.Lost = 1 }, true},
		{"an unexpected event", func(r *results.Reconcile) { r.Mix.Wrong = 1 }, true},
		{"a slow payment", func(r *results.Reconcile) { r.Mix.SlowPaid = 1 }, true},
		{"no early payment", func(r *results.Reconcile) { r.Mix.EarlyPaid = 0 }, true},
		{"a 429", func(r *results.Reconcile) { r.Backlog.RateLimited = 1 }, true},
		{"an order unchecked", func(r *results.Reconcile) { r.Backlog.Checked = 9_999 }, true},
		{"the mix on PostgreSQL: more checks", func(r *results.Reconcile) { r.StoreMixes[0].ChecksPerOrder = 30.01 }, true},
		{"the mix on PostgreSQL: an event twice", func(r *results.Reconcile) { r.StoreMixes[0].Twice = 1 }, true},
		{"the mix on PostgreSQL: a slow payment", func(r *results.Reconcile) { r.StoreMixes[0].SlowPaid = 1 }, true},
		{"sweep: an order unchecked", func(r *results.Reconcile) { r.Sweeps[1].Checked = 999 }, true},
		{"sweep: a request more", func(r *results.Reconcile) { r.Sweeps[1].Requests = 1_001 }, true},
		{"sweep: an event missing", func(r *results.Reconcile) { r.Sweeps[0].Delivered = 99 }, true},
		{"sweep: an event twice", func(r *results.Reconcile) { r.Sweeps[1].Twice = 1 }, true},
		{"sweep: an unexpected event", func(r *results.Reconcile) { r.Sweeps[1].Wrong = 1 }, true},
		{"sweep: a paid order lost", func(r *results.Reconcile) { r.Sweeps[0].Lost = 1 }, true},
		{"sweep: nothing paid", func(r *results.Reconcile) { r.Sweeps[0].Paid, r.Sweeps[0].Delivered = 0, 0 }, true},
		{"sweep: no orders", func(r *results.Reconcile) { r.Sweeps[0] = results.SweepRun{Store: "memory"} }, true},
		{"sweep: fast and the store quick", func(r *results.Reconcile) { r.Sweeps[1].PerSecond, r.Sweeps[1].StoreWaitShare = 9_000, 0.1 }, false},
		{"no status request in the backlog", func(r *results.Reconcile) { r.Backlog.Requests = 0 }, true},
		{"the mix of no orders", func(r *results.Reconcile) { r.Mix.Orders = 0 }, true},
		{"the mix without events", func(r *results.Reconcile) { r.Mix.Events = 0 }, true},
		{"sweep: no orders due, an event delivered", func(r *results.Reconcile) {
			r.Sweeps[1] = results.SweepRun{Store: "postgres", Paid: 1, Delivered: 1}
		}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := good()
			tt.spoil(r)
			vs := evaluateReconcile(r)
			assert.Equal(t, tt.fail, Failed(vs), "%v", vs)
		})
	}
	assert.True(t, Failed(evaluateReconcile(nil)))
}

// TestReconcileTimingAtTheirLimits: a printed budget is within budget exactly at
// its limit and over it one step past, and prints its figures.
func TestReconcileTimingAtTheirLimits(t *testing.T) {
	t.Parallel()
	verdict := func(vs []Verdict, name string) string {
		for _, v := range vs {
			if v.Name == name {
				return v.String()
			}
		}
		t.Fatalf("no verdict %s in %v", name, vs)
		return ""
	}
	r := &results.Reconcile{Backlog: results.BacklogRun{Orders: 1, Checked: 1, Requests: 1, Rate: 200, Burst: 10, PerSecond: 190}}
	pace := verdict(evaluateReconcile(r), "reconcile/backlog/pace")
	assert.Contains(t, pace, "190.0 checks/s with WithRateLimit(200, 10) = 95.0% of the limit (budget ≥ 95%) [within budget]")
	r.Backlog.PerSecond = 189.9
	assert.Contains(t, verdict(evaluateReconcile(r), "reconcile/backlog/pace"), "[over budget]")

	run := func(k int, rate, share, cpu float64) results.SweepRun {
		return results.SweepRun{Store: "postgres", Sweepers: k, Orders: 100, Paid: 10, Checked: 100, Requests: 100, Delivered: 10,
			PerSecond: rate, StoreWaitShare: share, GoMicros: cpu}
	}
	at := []results.SweepRun{run(1, sweepRate, sweepStoreShare, 80), run(4, 1, 1, 88)}
	vs := evaluateSweeps(at)
	assert.Contains(t, verdict(vs, "reconcile/sweep/postgres/rate"), "[within budget]")
	assert.Contains(t, verdict(vs, "reconcile/sweep/postgres/store-share"), "[within budget]")
	assert.Contains(t, verdict(vs, "reconcile/sweep/postgres/4-sweepers/cpu"), "1.100 × one sweeper's in the same round")
	assert.Contains(t, verdict(vs, "reconcile/sweep/postgres/4-sweepers/cpu"), "[within budget]")
	past := []results.SweepRun{run(1, sweepRate-1, sweepStoreShare+0.001, 80), run(4, 1, 1, 88.1)}
	vs = evaluateSweeps(past)
	assert.Contains(t, verdict(vs, "reconcile/sweep/postgres/rate"), "[over budget]")
	assert.Contains(t, verdict(vs, "reconcile/sweep/postgres/store-share"), "[over budget]")
	assert.Contains(t, verdict(vs, "reconcile/sweep/postgres/4-sweepers/cpu"), "[over budget]")
}

// TestEvaluateSweeps: one line of each kind per store, in the order the
// stores came; the rate and the store's share are medians, printed as
// within or over budget.
func TestEvaluateSweeps(t *testing.T) {
	t.Parallel()
	run := func(store string, rate, share float64) results.SweepRun {
		return results.SweepRun{Store: store, Orders: 100, Paid: 10, Checked: 100, Requests: 100, Delivered: 10, PerSecond: rate,
			StoreWaitShare: share, StoreShare: 2 * share}
	}
	vs := evaluateSweeps([]results.SweepRun{
		run("memory", 14_000, 0.03), run("postgres", 3_000, 0.7),
		run("memory", 12_000, 0.02), run("postgres", 9_000, 0.2),
		run("memory", 13_000, 0.04), run("postgres", 8_500, 0.24),
	})
	var lines []string
	for _, v := range vs {
		lines = append(lines, v.String())
	}
	require.Len(t, lines, 6)
	assert.Contains(t, lines[0], "PASS  reconcile/sweep/memory/counts")
	assert.Contains(t, lines[1], "13000 checks/s, median of 3 rounds of 100 due orders (12000–14000; budget ≥ 8000 on a quiet machine) [within budget]")
	assert.Contains(t, lines[2], "alone (a store call in flight, no check) 3% of its wall time, median of 3 rounds (budget ≤ 25%); the store's calls, beside the checks, sum to 6% of it [within budget]")
	assert.Contains(t, lines[3], "PASS  reconcile/sweep/postgres/counts")
	assert.Contains(t, lines[4], "8500 checks/s, median of 3 rounds of 100 due orders (3000–9000; budget ≥ 8000 on a quiet machine) [within budget]")
	assert.Contains(t, lines[5], "alone (a store call in flight, no check) 24% of its wall time, median of 3 rounds (budget ≤ 25%); the store's calls, beside the checks, sum to 48% of it [within budget]")
	vs = evaluateSweeps([]results.SweepRun{run("postgres", 7_999, 0.26)})
	assert.Contains(t, vs[1].String(), "[over budget]")
	assert.Contains(t, vs[2].String(), "[over budget]")
	assert.False(t, Failed(vs), "timing never fails the run")

	// Four sweepers at once: their counts, their CPU per check against
	// one sweeper's on the same store, and (on a database) lock waits.
	four := func(store string, cpu float64, samples, locked int) results.SweepRun {
		r := run(store, 9_000, 0.3)
		r.Sweepers, r.GoMicros, r.DBMicros, r.BackendSamples, r.LockWaits = 4, cpu/4, 3*cpu/4, samples, locked
		return r
	}
	one := run("postgres", 9_000, 0.2)
	one.GoMicros, one.DBMicros = 20, 60
	memOne := run("memory", 14_000, 0.02)
	memOne.GoMicros = 40
	vs = evaluateSweeps([]results.SweepRun{one, four("postgres", 84, 1000, 40), memOne, four("memory", 48, 0, 0), four("postgres", 90, 1000, 60)})
	lines = lines[:0]
	for _, v := range vs {
		lines = append(lines, v.String())
	}
	require.Len(t, lines, 11, "%v", lines)
	assert.Contains(t, lines[3], "PASS  reconcile/sweep/postgres/4-sweepers/counts")
	assert.Contains(t, lines[4], "reconcile/sweep/postgres/4-sweepers/cpu")
	assert.Contains(t, lines[4], "CPU per check (Go and database) 1.087 × one sweeper's in the same round, median of 2 rounds (1.050–1.125; budget ≤ 1.10 ×); 87.0 µs against 80.0 µs, medians of those rounds [within budget]")
	assert.Contains(t, lines[5], "5.0% of 2000 samples of the database's active backends waited for a lock, over 2 round(s) (budget ≤ 5%) [within budget]")
	assert.Contains(t, lines[10], "reconcile/sweep/memory/4-sweepers/cpu")
	assert.Contains(t, lines[10], "1.200 × one sweeper's in the same round, median of 1 rounds (1.200–1.200; budget ≤ 1.10 ×); 48.0 µs against 40.0 µs")
	assert.Contains(t, lines[10], "[over budget]")
	// Rounds pair by number: a busy round (both slower) and a quiet one
	// give 1.00 each, where the medians alone would not.
	inRound := func(r results.SweepRun, round int) results.SweepRun { r.Round = round; return r }
	busyOne, quietOne := one, one
	busyOne.GoMicros, busyOne.DBMicros = 50, 150
	vs = evaluateSweeps([]results.SweepRun{inRound(busyOne, 1), inRound(four("postgres", 200, 1000, 0), 1),
		inRound(quietOne, 2), inRound(four("postgres", 80, 1000, 0), 2), inRound(four("postgres", 500, 1000, 0), 3),
		inRound(func() results.SweepRun { r := one; r.GoMicros, r.DBMicros = 0, 0; return r }(), 4), inRound(four("postgres", 90, 1000, 0), 4)})
	require.Len(t, vs, 6, "%v", vs)
	assert.Contains(t, vs[4].String(), "1.000 × one sweeper's in the same round, median of 2 rounds (1.000–1.000; budget ≤ 1.10 ×); 140.0 µs against 140.0 µs, medians of those rounds", "round 3 has no one-sweeper run, round 4's took no CPU")
	vs = evaluateSweeps([]results.SweepRun{four("postgres", 90, 0, 0)})
	require.Len(t, vs, 2)
	assert.Contains(t, vs[1].String(), "no sample of the database's backends over 1 round(s) (budget ≤ 5% of them waiting for a lock) [over budget]")
	vs = evaluateSweeps([]results.SweepRun{four("postgres", 90, 1000, 51)})
	require.Len(t, vs, 2, "no one-sweeper run: no CPU line")
	assert.Contains(t, vs[1].String(), "5.1% of 1000 samples")
	assert.Contains(t, vs[1].String(), "[over budget]")
	vs = evaluateSweeps([]results.SweepRun{run("postgres", 7_999, 0.26)})
	assert.Contains(t, vs[1].String(), "[over budget]")
	assert.Contains(t, vs[2].String(), "[over budget]")
	assert.False(t, Failed(vs), "timing never fails the run")
	assert.Empty(t, evaluateSweeps(nil))
	assert.Equal(t, 2.5, medianOf([]float64{4, 1, 3, 2}))
	assert.Zero(t, medianOf(nil))
}

func TestRunReconcile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "reconcile.json")
	require.NoError(t, results.WriteReconcile(path, &results.Reconcile{
		Tracked: 100_000, BytesPerOrder: 173,
		Mix:     results.MixRun{Orders: 10_000, ChecksPerOrder: 25.7, Events: 11_000, EarlyPaid: 6_000, MaxDelaySeconds: 29},
		Backlog: results.BacklogRun{Orders: 10_000, Checked: 10_000, Rate: 500, Burst: 10, PerSecond: 499, Requests: 10_000},
	}))
	var out bytes.Buffer
	assert.Equal(t, 0, runReconcile(&out, path), out.String())
	assert.Contains(t, out.String(), "PASS  reconcile/memory")
	assert.Contains(t, out.String(), "INFO  reconcile/backlog/pace")
	assert.Equal(t, 2, runReconcile(&out, filepath.Join(dir, "absent.json")))

	// With the bench and load files: the worst code of all, and no
	// reconcile verdicts without a reconcile file.
	bench, load := filepath.Join("testdata", "bench_pass.txt"), filepath.Join("testdata", "load_pass.json")
	out.Reset()
	assert.Equal(t, 0, runAll(&out, bench, load, "", path), out.String())
	assert.Contains(t, out.String(), "PASS  reconcile/memory")
	out.Reset()
	assert.Equal(t, 0, runAll(&out, bench, load, "", ""), out.String())
	assert.NotContains(t, out.String(), "reconcile/")
	assert.Equal(t, 2, runAll(&out, bench, load, "", filepath.Join(dir, "absent.json")))
}
