package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/bench/internal/results"
)

// runMain, set in a test binary's environment, makes it the program: it
// runs main with its arguments instead of the tests (TestProgram).
const runMain = "RECONCILE_TEST_MAIN"

// testDBs is the tests' PostgreSQL, started by the first test that needs
// it and stopped after the last.
var testDBs = &databases{}

// TestMain runs the program instead of the tests when runMain is set, and
// stops testDBs after the tests.
func TestMain(m *testing.M) {
	if os.Getenv(runMain) == "1" {
		main()
		os.Exit(0)
	}
	code := m.Run()
	testDBs.close()
	os.Exit(code)
}

// TestProgram: the program measures what its flags ask for and writes the
// results; a bad count of sweepers, or a run that fails, ends it with the
// error.
func TestProgram(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		args []string
		err  string // in the output of a failed run; "" for success
	}{
		{name: "tiny", args: []string{"-sweep", "10", "-sweep-stores", "memory", "-sweep-sweepers", "1", "-sweep-rounds", "1"}},
		{name: "no count of sweepers", args: []string{"-sweep-sweepers", "0"}, err: `-sweep-sweepers: "0" is not a count of sweepers`},
		{name: "a store that is not", args: []string{"-mix-stores", "redis"}, err: `the mix on redis: no store "redis"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			out := filepath.Join(t.TempDir(), "reconcile.json")
			args := append([]string{"-tracked", "100", "-orders", "10", "-mix-stores", "", "-backlog", "10", "-rate", "1000", "-sweep", "0", "-out", out}, tc.args...)
			cmd := exec.CommandContext(ctx, exe, args...)
			cmd.Env = append(os.Environ(), runMain+"=1")
			output, err := cmd.CombinedOutput()
			if tc.err != "" {
				assert.Error(t, err)
				assert.Contains(t, string(output), tc.err)
				assert.NoFileExists(t, out)
				return
			}
			require.NoError(t, err, "%s", output)
			r, err := results.ReadReconcile(out)
			require.NoError(t, err)
			assert.Equal(t, 100, r.Tracked)
			assert.Equal(t, 10, r.Mix.Orders)
			assert.Equal(t, 10, r.Backlog.Checked)
			require.Len(t, r.Sweeps, 1)
			assert.Equal(t, 10, r.Sweeps[0].Checked)
		})
	}
}

// TestRun: a run measures the memory store, the mix on the memory store
// and on each of the mix's stores, the backlog, and the sweep when asked
// for, and writes them out; the first failure is its error.
func TestRun(t *testing.T) {
	base := config{tracked: 200, orders: 20, backlog: 10, rate: 1000, burst: 10, sweepStores: []string{"memory"}, sweepSweepers: []int{1, 2}, sweepRounds: 1}
	for _, tc := range []struct {
		name   string
		change func(*config)
		sweeps int
		err    string // "" for none
	}{
		{name: "no sweep", change: func(*config) {}},
		{name: "a sweep by one sweeper, then two", change: func(c *config) { c.sweep = 20 }, sweeps: 2},
		{name: "a mix store that is not", change: func(c *config) { c.mixStores = []string{"redis"} }, err: `the mix on redis: no store "redis"`},
		{name: "a sweep store that is not", change: func(c *config) { c.sweep, c.sweepStores = 20, []string{"redis"} }, err: `no store "redis"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cfg := base
			tc.change(&cfg)
			out := filepath.Join(t.TempDir(), "reconcile.json")
			err := run(ctx, cfg, out)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				assert.NoFileExists(t, out)
				return
			}
			require.NoError(t, err)
			r, err := results.ReadReconcile(out)
			require.NoError(t, err)
			assert.Equal(t, 200, r.Tracked)
			assert.Positive(t, r.BytesPerOrder)
			assert.Equal(t, 20, r.Mix.Orders)
			assert.Empty(t, r.Mix.Store, "the memory store's mix")
			assert.Empty(t, r.StoreMixes)
			assert.Equal(t, 10, r.Backlog.Checked)
			require.Len(t, r.Sweeps, tc.sweeps)
			for i, s := range r.Sweeps {
				assert.Equal(t, "memory", s.Store)
				assert.Equal(t, i+1, s.Count())
				assert.Equal(t, 20, s.Checked)
				assert.Equal(t, 2, s.Paid)
			}
		})
	}
	assert.Error(t, run(context.Background(), base, filepath.Join(t.TempDir(), "no such directory", "reconcile.json")), "the results cannot be written")
}

// TestShopOrderID: the memory measurement's ids: a millisecond timestamp
// from 1 March 2026 10:00 UTC on, then i times 2654435761 in hex, eight
// digits or more.
func TestShopOrderID(t *testing.T) {
	for i, want := range map[int]string{
		0:    "ORDER_1772359200000_00000000",
		1:    "ORDER_1772359200001_9e3779b1",
		2:    "ORDER_1772359200002_13c6ef362",
		1000: fmt.Sprintf("ORDER_1772359201000_%08x", 2654435761000),
	} {
		assert.Equal(t, want, shopOrderID(i), i)
	}
}

// TestPerOrder: the heap that grew, over the orders.
func TestPerOrder(t *testing.T) {
	for _, tc := range []struct {
		before, after uint64
		n             int
		want          float64
	}{
		{before: 1000, after: 3000, n: 10, want: 200},
		{before: 5 << 20, after: 5<<20 + 300_000, n: 1000, want: 300},
		{before: 0, after: 0, n: 1, want: 0},
		{before: 3000, after: 1000, n: 10, want: -200},
	} {
		assert.Equal(t, tc.want, perOrder(tc.before, tc.after, tc.n), "%+v", tc)
	}
}

// TestBytesPerOrder: a tracked order holds some heap, and far from a
// megabyte.
func TestBytesPerOrder(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := bytesPerOrder(ctx, 5000)
	require.NoError(t, err)
	assert.Positive(t, b)
	assert.Less(t, b, 1e6)
}

// TestMix: the mix on the memory store and on PostgreSQL: every order
// checked, every planned event delivered once and no other, the checks per
// order; the memory store's run is the mix's own line (no store named).
func TestMix(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct {
		kind, store string
		n           int
	}{
		{kind: "memory", store: "", n: 20},
		{kind: "postgres", store: "postgres", n: 1},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			m, err := mix(ctx, tc.n, tc.kind, testDBs)
			require.NoError(t, err)
			assert.Equal(t, tc.store, m.Store)
			assert.Equal(t, tc.n, m.Orders)
			assert.Positive(t, m.Steps)
			assert.GreaterOrEqual(t, m.Checks, tc.n)
			assert.Equal(t, float64(m.Checks)/float64(tc.n), m.ChecksPerOrder)
			assert.Positive(t, m.Events)
			assert.Zero(t, m.Twice+m.Lost+m.Wrong)
			assert.Positive(t, m.EarlyPaid)
			assert.Positive(t, m.MaxDelaySeconds)
		})
	}
	_, err := mix(ctx, 1, "redis", testDBs)
	assert.ErrorContains(t, err, `no store "redis" (memory, postgres)`)
}

// TestBacklogRun: one step checks the whole backlog, one status request
// an order, at Checked over Seconds a second.
func TestBacklogRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := backlogRun(ctx, 30, 1000, 10)
	require.NoError(t, err)
	assert.Equal(t, 30, b.Orders)
	assert.Equal(t, 1000.0, b.Rate)
	assert.Equal(t, 10, b.Burst)
	assert.Equal(t, 30, b.Checked)
	assert.Equal(t, int64(30), b.Requests)
	assert.Positive(t, b.Seconds)
	assert.InEpsilon(t, float64(b.Checked)/b.Seconds, b.PerSecond, 1e-9)
}
