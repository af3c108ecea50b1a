package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/bench/internal/results"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestRunGolden: the printed verdicts and the exit code for fixtures that
// meet every budget and fixtures that break most.
func TestRunGolden(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, bench, load string
		code              int
	}{
		{"pass", "bench_pass.txt", "load_pass.json", 0},
		{"fail", "bench_fail.txt", "load_fail.json", 1},
		{"missing", "bench_empty.txt", "load_empty.json", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			code := run(&out, filepath.Join("testdata", tt.bench), filepath.Join("testdata", tt.load), "")
			assert.Equal(t, tt.code, code, out.String())
			golden := filepath.Join("testdata", tt.name+".golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), out.String())
		})
	}
}

func TestRunUnreadableInput(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	assert.Equal(t, 2, run(&out, filepath.Join("testdata", "absent.txt"), filepath.Join("testdata", "load_pass.json"), ""))
	assert.Equal(t, 2, run(&out, filepath.Join("testdata", "bench_pass.txt"), filepath.Join("testdata", "absent.json"), ""))
	assert.Equal(t, 2, run(&out, filepath.Join("testdata", "bench_pass.txt"), filepath.Join("testdata", "bench_pass.txt"), ""))
	assert.Equal(t, 2, run(&out, filepath.Join("testdata", "bench_pass.txt"), filepath.Join("testdata", "load_pass.json"), filepath.Join("testdata", "absent.json")))
}

// TestBudgetBoundaries: each deterministic budget passes at its limit and
// fails one step past it; timing never fails the run.
func TestBudgetBoundaries(t *testing.T) {
	t.Parallel()
	samples := func(sdkAllocs, edAllocs, sdkNs float64) results.Samples {
		s := results.Samples{}
		for _, op := range ops {
			s["Call/"+op+"/sdk"] = []results.Sample{{NsPerOp: sdkNs, AllocsPerOp: sdkAllocs}}
			s["Call/"+op+"/floor"] = []results.Sample{{NsPerOp: 1000, AllocsPerOp: 80}}
			s["EncodeDecode/"+op] = []results.Sample{{NsPerOp: 2000, AllocsPerOp: edAllocs}}
		}
		return s
	}
	load := func(conns, errs int64, waiter float64) *results.Load {
		l := &results.Load{Waiters: []results.Waiters{{RateLimit: "none", BytesPerWaiter: waiter}}}
		for _, n := range loadCallers {
			l.Runs = append(l.Runs,
				results.Run{Impl: "sdk", Callers: n, Calls: 100, Errors: errs, ConnsOpened: conns, PerSecond: 10},
				results.Run{Impl: "floor", Callers: n, Calls: 100, PerSecond: 100},
				results.Run{Impl: "naive", Callers: n, Calls: 100, PerSecond: 100})
		}
		return l
	}
	failing := func(vs []Verdict) []string {
		var names []string
		for _, v := range vs {
			if !v.Pass && !v.Timing {
				names = append(names, v.Name)
			}
		}
		return names
	}
	atLimit := Evaluate(samples(80, 40, 5000), load(256, 0, 8192))
	assert.Empty(t, failing(atLimit), "at every limit, with timing far over budget")
	assert.False(t, Failed(atLimit))

	tests := []struct {
		name string
		vs   []Verdict
		want []string
	}{
		{"one alloc over the floor", Evaluate(samples(81, 40, 1000), load(256, 0, 8192)),
			[]string{"allocs/status", "allocs/intent", "allocs/request", "allocs/link"}},
		{"encode+decode at 41", Evaluate(samples(80, 41, 1000), load(256, 0, 8192)),
			[]string{"encode+decode/status/allocs", "encode+decode/intent/allocs", "encode+decode/request/allocs", "encode+decode/link/allocs"}},
		{"257 connections", Evaluate(samples(80, 40, 1000), load(257, 0, 8192)), []string{"conns@256", "conns@1024"}},
		{"one error", Evaluate(samples(80, 40, 1000), load(256, 1, 8192)), []string{"errors@256", "errors@1024"}},
		{"one byte over per waiter", Evaluate(samples(80, 40, 1000), load(256, 0, 8193)), []string{"waiter-memory/unlimited"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, failing(tt.vs), tt.name)
		assert.True(t, Failed(tt.vs), tt.name)
	}
}

// TestCallTimingAtTheirLimits: a printed budget is within budget exactly
// at its limit and over it one step past; an sdk run of no calls fails.
func TestCallTimingAtTheirLimits(t *testing.T) {
	t.Parallel()
	evaluate := func(sdkNs, edNs, sdkRate, naiveRate float64, calls int64) map[string]string {
		s := results.Samples{}
		for _, op := range ops {
			s["Call/"+op+"/sdk"] = []results.Sample{{NsPerOp: sdkNs, AllocsPerOp: 80}}
			s["Call/"+op+"/floor"] = []results.Sample{{NsPerOp: 1000, AllocsPerOp: 80}}
			s["EncodeDecode/"+op] = []results.Sample{{NsPerOp: edNs, AllocsPerOp: 40}}
		}
		l := &results.Load{Waiters: []results.Waiters{{RateLimit: "none", BytesPerWaiter: 8192}}}
		for _, n := range loadCallers {
			l.Runs = append(l.Runs,
				results.Run{Impl: "sdk", Callers: n, Calls: calls, PerSecond: sdkRate},
				results.Run{Impl: "floor", Callers: n, Calls: 100, PerSecond: 100},
				results.Run{Impl: "naive", Callers: n, Calls: 100, PerSecond: naiveRate})
		}
		out := map[string]string{}
		for _, v := range Evaluate(s, l) {
			out[v.Name] = v.String()
		}
		return out
	}
	at := evaluate(1050, 3000, 95, 47.5, 100)
	past := evaluate(1051, 3001, 94.9, 47.5, 100)
	for _, name := range []string{"time/status", "encode+decode/status/time", "throughput/floor@256"} {
		assert.Contains(t, at[name], "[within budget]", name)
		assert.Contains(t, past[name], "[over budget]", name)
	}
	assert.Contains(t, at["throughput/naive@256"], "sdk 95 vs naive 48 calls/s = 2.00× (budget ≥ 2.0×) [within budget]")
	assert.Contains(t, evaluate(1050, 3000, 95, 47.6, 100)["throughput/naive@256"], "[over budget]")
	assert.Contains(t, evaluate(1050, 3000, 95, 47.5, 0)["errors@256"], "FAIL  errors@256", "no call made")
}

func TestVerdictString(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "PASS  a                            d", Verdict{Name: "a", Pass: true, Detail: "d"}.String())
	assert.Equal(t, "FAIL  a                            d", Verdict{Name: "a", Detail: "d"}.String())
	assert.Equal(t, "INFO  a                            d [within budget]", Verdict{Name: "a", Timing: true, Pass: true, Detail: "d"}.String())
	assert.Equal(t, "INFO  a                            d [over budget]", Verdict{Name: "a", Timing: true, Detail: "d"}.String())
}
