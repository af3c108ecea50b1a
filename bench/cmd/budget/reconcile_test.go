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
			Mix:     results.MixRun{Orders: 10_000, ChecksPerOrder: 30, Events: 11_000, EarlyPaid: 6_000, MaxDelaySeconds: 30},
			Backlog: results.BacklogRun{Orders: 10_000, Checked: 10_000, Rate: 500, Burst: 10, PerSecond: 100, Requests: 10_000},
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
}
