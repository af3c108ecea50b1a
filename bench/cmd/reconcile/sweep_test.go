package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/bench/internal/results"
)

// TestSweepCounts: a round on each store, by one sweeper and by two at
// once, checks every order once and delivers every paid order's event
// once; the figures the budget reads are filled in. Two rounds interleave
// the stores and the counts.
func TestSweepCounts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	e, err := newSweepEnv(ctx, 300)
	require.NoError(t, err)
	defer e.close()
	assert.Len(t, e.paid, 30, "every tenth")
	runs, err := sweepRounds(ctx, e, []string{"memory", "postgres"}, []int{1, 2}, 2, testDBs)
	require.NoError(t, err)
	require.Len(t, runs, 8)
	for i, r := range runs {
		assert.Equal(t, []string{"memory", "postgres"}[i/2%2], r.Store)
		assert.Equal(t, []int{1, 2, 1, 2, 2, 1, 2, 1}[i], r.Count(), "one then two in round 1, two then one in round 2")
		assert.Equal(t, 1+i/4, r.Round)
		assert.Equal(t, 300, r.Orders)
		assert.Equal(t, 30, r.Paid)
		assert.Equal(t, 300, r.Checked, r.Store)
		assert.Equal(t, int64(300), r.Requests, r.Store)
		assert.Equal(t, 30, r.Delivered, r.Store)
		assert.Zero(t, r.Twice+r.Wrong+r.Lost+r.Errors, r.Store)
		assert.Positive(t, r.PerSecond)
		assert.Positive(t, r.ByMethod["Lease"], "the store's calls are timed")
		assert.InDelta(t, r.StoreSeconds/r.Seconds, r.StoreShare, 1e-9)
		assert.Positive(t, r.StoreAloneSeconds, "the last batch's record waits for no check")
		assert.LessOrEqual(t, r.StoreAloneSeconds, r.StoreSeconds, "alone is part of the calls' time")
		assert.InDelta(t, r.StoreAloneSeconds/r.Seconds, r.StoreWaitShare, 1e-9)
		assert.NotEmpty(t, r.Load)
		assert.Contains(t, sweepLine(r), fmt.Sprintf("%s round %d, %d sweeper(s)", r.Store, r.Round, r.Count()))
		if r.Store == "memory" {
			assert.Zero(t, r.BackendSamples+r.LockWaits, "no database sampled")
		} else {
			assert.LessOrEqual(t, r.LockWaits, r.BackendSamples)
		}
	}
	_, err = sweepRounds(ctx, e, []string{"redis"}, []int{1}, 1, testDBs)
	assert.ErrorContains(t, err, `no store "redis"`)
}

// TestCounts: -sweep-sweepers takes one count or more, each 1 or more,
// none twice (each count's rounds have databases of their own).
func TestCounts(t *testing.T) {
	got, err := counts(" 1, 4 ,")
	require.NoError(t, err)
	assert.Equal(t, []int{1, 4}, got)
	for bad, want := range map[string]string{"0": "is not a count of sweepers", "-1": "is not a count of sweepers", "four": "is not a count of sweepers",
		"": "no count of sweepers", " , ": "no count of sweepers", "1,4,1": "1 sweepers twice"} {
		_, err := counts(bad)
		assert.ErrorContains(t, err, want, bad)
	}
}

// TestFields: a comma-separated list, spaces and empty fields left out.
func TestFields(t *testing.T) {
	assert.Equal(t, []string{"memory", "postgres"}, fields(" memory, postgres ,"))
	assert.Empty(t, fields(""))
}

// TestSweepLine: a run as its log line: the store's methods the most time
// first (ties by name), those under half a percent of the wall time left
// out, the database's CPU and lock waits but on the memory store.
func TestSweepLine(t *testing.T) {
	r := results.SweepRun{Store: "postgres", Round: 2, Sweepers: 4, Orders: 1000, Paid: 100, PerSecond: 5000, Seconds: 2,
		StoreWaitShare: 0.04, StoreShare: 0.8,
		ByMethod: map[string]float64{"CommitMany": 1.0, "Lease": 0.5, "LeaseDeliveries": 0.5, "Extend": 0.01, "Now": 0.009},
		GoMicros: 120.5, DBMicros: 30, BackendsMicros: 28, LockWaits: 3, BackendSamples: 200,
		Checked: 1000, Requests: 1001, Delivered: 100, Twice: 1, Wrong: 2, Lost: 3, Errors: 4, Load: "2.5"}
	assert.Equal(t, "postgres round 2, 4 sweeper(s) | 1000 due, 100 paid | 5000 checks/s | waiting for the store alone 4% of the wall time; its calls, summed, 80% (CommitMany 50%, Lease 25%, LeaseDeliveries 25%, Extend 0%) | CPU per check: Go 120.5 µs, database 30.0 µs (backends 28.0, rest 2.0); lock waits 1.5% of 200 backend samples | checked 1000, requests 1001, events 100 (twice 1, unexpected 2, lost 3), errors 4 | load 2.5",
		sweepLine(r))
	assert.Equal(t, "memory round 1, 1 sweeper(s) | 10 due, 1 paid | 100 checks/s | waiting for the store alone 0% of the wall time; its calls, summed, 0% (each method under 0.5 %) | CPU per check: Go 90.0 µs | checked 10, requests 10, events 1 (twice 0, unexpected 0, lost 0), errors 0 | load ?",
		sweepLine(results.SweepRun{Store: "memory", Round: 1, Orders: 10, Paid: 1, PerSecond: 100, Seconds: 0.1, ByMethod: map[string]float64{"Lease": 0.0001},
			GoMicros: 90, Checked: 10, Requests: 10, Delivered: 1, Load: "?"}))
}
