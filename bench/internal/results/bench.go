package results

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Sample is one line of `go test -bench` output.
type Sample struct {
	NsPerOp     float64
	BytesPerOp  float64
	AllocsPerOp float64
}

// Samples holds every round of each benchmark, by name without the
// GOMAXPROCS suffix ("Call/status/sdk").
type Samples map[string][]Sample

// gomaxprocsSuffix is the "-2" go test appends to a benchmark's name.
var gomaxprocsSuffix = regexp.MustCompile(`-\d+$`)

// ParseBench reads `go test -bench -benchmem` output. Lines that are not
// benchmark results are skipped; a result line without ns/op is an error.
func ParseBench(r io.Reader) (Samples, error) {
	out := Samples{}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue // "BenchmarkX ... FAIL" and the like
		}
		name := gomaxprocsSuffix.ReplaceAllString(strings.TrimPrefix(f[0], "Benchmark"), "")
		var s Sample
		seen := false
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %q is not a number", line, f[i])
			}
			switch f[i+1] {
			case "ns/op":
				s.NsPerOp, seen = v, true
			case "B/op":
				s.BytesPerOp = v
			case "allocs/op":
				s.AllocsPerOp = v
			}
		}
		if !seen {
			return nil, fmt.Errorf("line %d: no ns/op", line)
		}
		out[name] = append(out[name], s)
	}
	return out, sc.Err()
}

// Median is the median of each figure of name's rounds, and how many there were.
func (s Samples) Median(name string) (Sample, int, bool) {
	rounds := s[name]
	if len(rounds) == 0 {
		return Sample{}, 0, false
	}
	pick := func(get func(Sample) float64) float64 {
		v := make([]float64, len(rounds))
		for i, r := range rounds {
			v[i] = get(r)
		}
		sort.Float64s(v)
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return Sample{
		NsPerOp:     pick(func(s Sample) float64 { return s.NsPerOp }),
		BytesPerOp:  pick(func(s Sample) float64 { return s.BytesPerOp }),
		AllocsPerOp: pick(func(s Sample) float64 { return s.AllocsPerOp }),
	}, len(rounds), true
}
