package results

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
