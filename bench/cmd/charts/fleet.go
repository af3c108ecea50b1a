package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/upicollect/upicollect-go/bench/internal/results"
)

// fleetLimiters are the fleet runs, in the charts' order.
var fleetLimiters = []string{"redisrate", "WithRateLimit"}

var fleetSeries = map[string]string{"redisrate": "redisrate (shared)", "WithRateLimit": "WithRateLimit (per process)"}

// fleetChart draws, for both limiters, the calls each process completed
// per second, the requests the sandbox accepted per second in all, and the
// quota's 429s and the failed calls per second.
func fleetChart(f *results.Fleet) string {
	secs := 1.0
	if d, err := time.ParseDuration(f.Duration); err == nil && d > 0 {
		secs = d.Seconds()
	}
	groups := make([]string, 0, f.Processes+3)
	for i := 1; i <= f.Processes; i++ {
		groups = append(groups, fmt.Sprintf("process %d", i))
	}
	groups = append(groups, "accepted", "429s", "failed")
	series := make([]string, len(fleetLimiters))
	values := make([][]float64, len(groups))
	for g := range values {
		values[g] = make([]float64, len(fleetLimiters))
	}
	for si, name := range fleetLimiters {
		series[si] = fleetSeries[name]
		r, _ := f.Run(name)
		for i := 0; i < f.Processes && i < len(r.Members); i++ {
			values[i][si] = r.Members[i].PerSecond
		}
		values[f.Processes][si] = r.AcceptedPerSecond
		values[f.Processes+1][si] = float64(r.RateLimited) / secs
		values[f.Processes+2][si] = float64(r.Failed) / secs
	}
	title := fmt.Sprintf("%d processes × %d callers, quota %.0f/s: per second", f.Processes, f.Callers, f.Limit)
	return barChart(title, "calls, requests or 429s per second", groups, series, values)
}

// fleetTable is the fleet's figures as Markdown.
func fleetTable(f *results.Fleet) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("\n### A fleet sharing one quota (%d processes × %d callers, quota and limit %.0f/s, limiter burst %d, quota burst %d, %s per run)\n\n",
		f.Processes, f.Callers, f.Limit, f.Burst, f.QuotaBurst, f.Duration)
	p("| limiter | calls/s per process | accepted/s (vs limit) | 429s / requests | calls ok | calls failed |\n")
	p("|---|---|---:|---:|---:|---:|\n")
	for _, name := range fleetLimiters {
		r, ok := f.Run(name)
		if !ok {
			continue
		}
		per := make([]string, len(r.Members))
		for i, m := range r.Members {
			per[i] = fmt.Sprintf("%.1f", m.PerSecond)
		}
		p("| %s | %s | %.1f (%+.1f%%) | %d / %d | %d | %d |\n", fleetSeries[name], strings.Join(per, ", "),
			r.AcceptedPerSecond, 100*r.Deviation(f.Limit), r.RateLimited, r.Requests, r.Calls, r.Failed)
	}
	p("\n| limiter | time per status check | allocs per status check |\n|---|---:|---:|\n")
	for _, c := range f.Cost {
		p("| %s | %.0f µs | %.0f |\n", c.Limiter, c.NsPerCall/1e3, c.AllocsPerCall)
	}
	return b.String()
}
