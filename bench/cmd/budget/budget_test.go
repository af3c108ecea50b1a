package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/bench/internal/results"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestParseBench(t *testing.T) {
	t.Parallel()
	in := `goos: linux
cpu: Intel(R) Xeon(R) Processor
BenchmarkCall/status/sdk-2   	    2000	     60392 ns/op	   10120 B/op	     150 allocs/op
BenchmarkCall/status/sdk-2   	    2000	     60000 ns/op	   10100 B/op	     149 allocs/op
BenchmarkCall/status/sdk-2   	    2000	     70000 ns/op	   10000 B/op	     151 allocs/op
BenchmarkCall/status/sdk-2   	    2000	     50000 ns/op	   10000 B/op	     152 allocs/op
BenchmarkCall/status/floor-16	    2000	     49604 ns/op	    5957 B/op	      79 allocs/op
BenchmarkNoMem	    2000	     12.5 ns/op
BenchmarkBroken --- FAIL: something
--- BENCH: BenchmarkCall
PASS
`
	s, err := ParseBench(strings.NewReader(in))
	require.NoError(t, err)
	assert.Len(t, s["Call/status/sdk"], 4)
	assert.Equal(t, []Sample{{NsPerOp: 49604, BytesPerOp: 5957, AllocsPerOp: 79}}, s["Call/status/floor"])
	assert.Equal(t, []Sample{{NsPerOp: 12.5}}, s["NoMem"])
	assert.Len(t, s, 3)

	med, n, ok := s.Median("Call/status/sdk")
	require.True(t, ok)
	assert.Equal(t, 4, n)
	assert.Equal(t, Sample{NsPerOp: 60196, BytesPerOp: 10050, AllocsPerOp: 150.5}, med, "even count: mean of the middle two")
	med, n, ok = s.Median("Call/status/floor")
	require.True(t, ok)
	assert.Equal(t, 1, n)
	assert.Equal(t, 79.0, med.AllocsPerOp)
	_, _, ok = s.Median("Call/link/sdk")
	assert.False(t, ok)
}

func TestParseBenchOddMedian(t *testing.T) {
	t.Parallel()
	s, err := ParseBench(strings.NewReader("BenchmarkX-2 1 30 ns/op\nBenchmarkX-2 1 10 ns/op\nBenchmarkX-2 1 20 ns/op\n"))
	require.NoError(t, err)
	med, n, ok := s.Median("X")
	require.True(t, ok)
	assert.Equal(t, 3, n)
	assert.Equal(t, 20.0, med.NsPerOp)
}

func TestParseBenchErrors(t *testing.T) {
	t.Parallel()
	for name, in := range map[string]string{
		"no ns/op":   "BenchmarkX-2 100 12 B/op 3 allocs/op\n",
		"not number": "BenchmarkX-2 100 abc ns/op\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseBench(strings.NewReader(in))
			assert.Error(t, err)
		})
	}
}

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
			code := run(&out, filepath.Join("testdata", tt.bench), filepath.Join("testdata", tt.load))
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
	assert.Equal(t, 2, run(&out, filepath.Join("testdata", "absent.txt"), filepath.Join("testdata", "load_pass.json")))
	assert.Equal(t, 2, run(&out, filepath.Join("testdata", "bench_pass.txt"), filepath.Join("testdata", "absent.json")))
	assert.Equal(t, 2, run(&out, filepath.Join("testdata", "bench_pass.txt"), filepath.Join("testdata", "bench_pass.txt")))
}

// TestBudgetBoundaries: each deterministic budget passes at its limit and
// fails one step past it; timing never fails the run.
func TestBudgetBoundaries(t *testing.T) {
	t.Parallel()
	samples := func(sdkAllocs, edAllocs, sdkNs float64) Samples {
		s := Samples{}
		for _, op := range ops {
			s["Call/"+op+"/sdk"] = []Sample{{NsPerOp: sdkNs, AllocsPerOp: sdkAllocs}}
			s["Call/"+op+"/floor"] = []Sample{{NsPerOp: 1000, AllocsPerOp: 80}}
			s["EncodeDecode/"+op] = []Sample{{NsPerOp: 2000, AllocsPerOp: edAllocs}}
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

func TestVerdictString(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "PASS  a                            d", Verdict{Name: "a", Pass: true, Detail: "d"}.String())
	assert.Equal(t, "FAIL  a                            d", Verdict{Name: "a", Detail: "d"}.String())
	assert.Equal(t, "INFO  a                            d [within budget]", Verdict{Name: "a", Timing: true, Pass: true, Detail: "d"}.String())
	assert.Equal(t, "INFO  a                            d [over budget]", Verdict{Name: "a", Timing: true, Detail: "d"}.String())
}
