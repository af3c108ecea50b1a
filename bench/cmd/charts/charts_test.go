package main

import (
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/bench/internal/results"
)

// TestChartsFromFixtures: every chart is well-formed SVG naming each series
// and carrying a mark per figure.
func TestChartsFromFixtures(t *testing.T) {
	t.Parallel()
	testdata := filepath.Join("..", "budget", "testdata")
	f, err := os.Open(filepath.Join(testdata, "bench_fail.txt"))
	require.NoError(t, err)
	defer f.Close()
	samples, err := results.ParseBench(f)
	require.NoError(t, err)
	load, err := results.Read(filepath.Join(testdata, "load_fail.json"))
	require.NoError(t, err)

	got := charts(samples, load)
	require.Len(t, got, 4)
	marks := map[string]struct {
		element string
		count   int
	}{
		"time_per_call.svg":   {"<rect x=", 4*4 + 4}, // bars and legend
		"allocs_per_call.svg": {"<rect x=", 4*4 + 4},
		"throughput.svg":      {"<circle", 3 * 4},
		"connections.svg":     {"<circle", 3 * 4},
	}
	for name, svg := range got {
		d := xml.NewDecoder(strings.NewReader(svg))
		for {
			_, err := d.Token()
			if err == io.EOF {
				break
			}
			require.NoError(t, err, name)
		}
		assert.Contains(t, svg, "SDK", name)
		assert.Contains(t, svg, "floor (net/http)", name)
		m := marks[name]
		assert.Equal(t, m.count, strings.Count(svg, m.element), name)
	}
	assert.Contains(t, got["connections.svg"], "SDK at 1024: 1k</title>", "the SDK's 1,024 connections at 1,024 callers")
}

func TestNiceCeilAndShortNumber(t *testing.T) {
	t.Parallel()
	for in, want := range map[float64]float64{0: 1, 0.3: 0.5, 1: 1, 1.2: 2, 3: 5, 7: 10, 180: 200, 60000: 100000} {
		assert.InDelta(t, want, niceCeil(in), 1e-9, "niceCeil(%v)", in)
	}
	for in, want := range map[float64]string{0: "0", 0.25: "0.25", 12: "12", 1234: "1.2k", 1000: "1k", 2500000: "2.5M"} {
		assert.Equal(t, want, shortNumber(in), "shortNumber(%v)", in)
	}
}

// TestTablesFromFixtures: the Markdown tables carry a row per figure.
func TestTablesFromFixtures(t *testing.T) {
	t.Parallel()
	testdata := filepath.Join("..", "budget", "testdata")
	f, err := os.Open(filepath.Join(testdata, "bench_pass.txt"))
	require.NoError(t, err)
	defer f.Close()
	samples, err := results.ParseBench(f)
	require.NoError(t, err)
	load, err := results.Read(filepath.Join(testdata, "load_pass.json"))
	require.NoError(t, err)

	md := tables(samples, load)
	assert.Contains(t, md, "| status | SDK | 50.8 µs | 6000 | 76 | 1.01× | 0.96× |")
	assert.Contains(t, md, "| status | 2.53 µs | 3000 | 38 |")
	assert.Contains(t, md, "| 256 | SDK | 49000 | 840 µs | 2.0 ms | 0 | 256 | 30.0 µs | 25.0 µs |")
	assert.Contains(t, md, "| 10000 | 1000/s burst 100 | 2s | 3000 B | 4300 B | 7300 B | 2100 | 1000 | 60 |")
	assert.Equal(t, 4*4+4+4*3+2, strings.Count(md, "\n|")-4*2, "rows: per call, encode+decode, load, waiters")
}
