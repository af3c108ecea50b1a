package main

import (
	"fmt"
	"strings"

	"github.com/upicollect/upicollect-go/bench/internal/results"
)

// tables renders the figures as Markdown tables for BENCHMARKS.md.
func tables(samples results.Samples, load *results.Load) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }

	p("### Per call (median of the rounds)\n\n")
	p("| operation | implementation | time/call | B/call | allocs/call | time vs floor | allocs vs floor |\n")
	p("|---|---|---:|---:|---:|---:|---:|\n")
	for _, op := range ops {
		floor, _, okF := samples.Median("Call/" + op + "/floor")
		for _, impl := range callImpls {
			m, _, ok := samples.Median("Call/" + op + "/" + impl)
			if !ok {
				continue
			}
			tr, ar := "", ""
			if okF {
				tr = fmt.Sprintf("%.2f×", m.NsPerOp/floor.NsPerOp)
				ar = fmt.Sprintf("%.2f×", m.AllocsPerOp/floor.AllocsPerOp)
			}
			p("| %s | %s | %.1f µs | %.0f | %.0f | %s | %s |\n", op, seriesName[impl], m.NsPerOp/1e3, m.BytesPerOp, m.AllocsPerOp, tr, ar)
		}
	}

	p("\n### The SDK's own work: encode + decode, no network\n\n")
	p("| operation | time/call | B/call | allocs/call |\n|---|---:|---:|---:|\n")
	for _, op := range ops {
		if m, _, ok := samples.Median("EncodeDecode/" + op); ok {
			p("| %s | %.2f µs | %.0f | %.0f |\n", op, m.NsPerOp/1e3, m.BytesPerOp, m.AllocsPerOp)
		}
	}

	p("\n### Concurrent status checks (%s per run)\n\n", load.Duration)
	p("| callers | implementation | calls/s | p50 | p99 | errors | connections opened | client CPU/call | server CPU/call |\n")
	p("|---:|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, n := range callerCounts(load) {
		for _, impl := range loadImpls {
			for _, r := range load.Runs {
				if r.Impl != impl || r.Callers != n {
					continue
				}
				p("| %d | %s | %.0f | %s | %s | %d | %d | %.1f µs | %.1f µs |\n", n, seriesName[impl], r.PerSecond,
					duration(r.P50Micros), duration(r.P99Micros), r.Errors, r.ConnsOpened, r.ClientCPUMicros, r.ServerCPUMicros)
			}
		}
	}

	if len(load.Waiters) > 0 {
		p("\n### Concurrent WaitForPayment calls on one pending order (in-process sandbox)\n\n")
		p("| waiters | rate limit | poll interval | heap/waiter | stack/waiter | total/waiter | requests in first interval | requests/s after | connections opened |\n")
		p("|---:|---|---|---:|---:|---:|---:|---:|---:|\n")
		for _, w := range load.Waiters {
			p("| %d | %s | %s | %.0f B | %.0f B | %.0f B | %d | %.0f | %d |\n", w.Waiters, w.RateLimit, w.PollInterval,
				w.HeapPerWaiter, w.StackPerWaiter, w.BytesPerWaiter, w.StartupBurst, w.RequestsPerSecond, w.ConnsOpened)
		}
	}
	return b.String()
}

func duration(us float64) string {
	if us >= 1000 {
		return fmt.Sprintf("%.1f ms", us/1000)
	}
	return fmt.Sprintf("%.0f µs", us)
}
