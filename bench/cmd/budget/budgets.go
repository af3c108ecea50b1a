package main

import (
	"fmt"

	"github.com/upicollect/upicollect-go/bench/internal/results"
)

// The budgets.
const (
	allocRatio        = 1.0  // SDK allocations per call ≤ this × floor's
	timeRatio         = 1.05 // SDK time per call ≤ this × floor's
	minTimeRounds     = 7    // rounds the time budget's median needs
	encodeDecodeNs    = 3000 // SDK's own work per call, ns
	encodeDecodeAlloc = 40
	maxConns          = 256 // connections opened under load
	floorThroughput   = 0.95
	naiveThroughput   = 2.0
	waiterBytes       = 8 << 10 // heap + stack per waiting WaitForPayment
)

var (
	ops         = []string{"status", "intent", "request", "link"}
	loadCallers = []int{256, 1024}
)

// Verdict is one budget's line. Timing lines are information only: shared
// machines are too noisy to fail a build on time.
type Verdict struct {
	Name   string
	Pass   bool
	Timing bool
	Detail string
}

// String is the printed line: PASS or FAIL, or INFO for timing (with the
// would-be verdict in the detail).
func (v Verdict) String() string {
	word := "FAIL"
	switch {
	case v.Timing && v.Pass:
		word, v.Detail = "INFO", v.Detail+" [within budget]"
	case v.Timing:
		word, v.Detail = "INFO", v.Detail+" [over budget]"
	case v.Pass:
		word = "PASS"
	}
	return fmt.Sprintf("%s  %-28s %s", word, v.Name, v.Detail)
}

// Failed reports whether any deterministic budget failed.
func Failed(vs []Verdict) bool {
	for _, v := range vs {
		if !v.Pass && !v.Timing {
			return true
		}
	}
	return false
}

// Evaluate checks every budget against the benchmark samples and the load
// results; a figure that is missing fails its budget.
func Evaluate(s results.Samples, load *results.Load) []Verdict {
	var vs []Verdict
	for _, op := range ops {
		sdk, n, okS := s.Median("Call/" + op + "/sdk")
		floor, _, okF := s.Median("Call/" + op + "/floor")
		if !okS || !okF {
			vs = append(vs, missing("allocs/"+op, "BenchmarkCall/"+op+"/{sdk,floor}"))
			continue
		}
		vs = append(vs, Verdict{
			Name: "allocs/" + op, Pass: sdk.AllocsPerOp <= allocRatio*floor.AllocsPerOp,
			Detail: fmt.Sprintf("sdk %.0f vs floor %.0f allocs/call = %.2f× (budget ≤ %.2f×)",
				sdk.AllocsPerOp, floor.AllocsPerOp, sdk.AllocsPerOp/floor.AllocsPerOp, allocRatio),
		})
		rounds := fmt.Sprintf("median of %d rounds", n)
		if n < minTimeRounds {
			rounds += fmt.Sprintf(", fewer than %d", minTimeRounds)
		}
		detail := fmt.Sprintf("sdk %.1fµs vs floor %.1fµs = %.3f× (budget ≤ %.2f×, %s)",
			sdk.NsPerOp/1e3, floor.NsPerOp/1e3, sdk.NsPerOp/floor.NsPerOp, timeRatio, rounds)
		vs = append(vs, Verdict{Name: "time/" + op, Timing: true,
			Pass: sdk.NsPerOp <= timeRatio*floor.NsPerOp, Detail: detail})
	}
	for _, op := range ops {
		ed, _, ok := s.Median("EncodeDecode/" + op)
		if !ok {
			vs = append(vs, missing("encode+decode/"+op, "BenchmarkEncodeDecode/"+op))
			continue
		}
		vs = append(vs,
			Verdict{Name: "encode+decode/" + op + "/allocs", Pass: ed.AllocsPerOp <= encodeDecodeAlloc,
				Detail: fmt.Sprintf("%.0f allocs/call (budget ≤ %d)", ed.AllocsPerOp, encodeDecodeAlloc)},
			Verdict{Name: "encode+decode/" + op + "/time", Timing: true, Pass: ed.NsPerOp <= encodeDecodeNs,
				Detail: fmt.Sprintf("%.2fµs/call (budget ≤ %.0fµs)", ed.NsPerOp/1e3, float64(encodeDecodeNs)/1e3)})
	}
	vs = append(vs, evaluateLoad(load)...)
	return vs
}

func evaluateLoad(load *results.Load) []Verdict {
	var vs []Verdict
	if load == nil {
		return append(vs, missing("load", "the load program's results"))
	}
	for _, n := range loadCallers {
		at := fmt.Sprintf("@%d", n)
		sdk, okS := findRun(load, "sdk", n)
		floor, okF := findRun(load, "floor", n)
		naive, okN := findRun(load, "naive", n)
		if !okS {
			vs = append(vs, missing("load"+at, fmt.Sprintf("the sdk's run at %d callers", n)))
			continue
		}
		errDetail := fmt.Sprintf("sdk: %d errors in %d calls (budget 0)", sdk.Errors, sdk.Calls)
		if sdk.FirstError != "" {
			errDetail += "; first: " + sdk.FirstError
		}
		vs = append(vs,
			Verdict{Name: "errors" + at, Pass: sdk.Errors == 0 && sdk.Calls > 0, Detail: errDetail},
			Verdict{Name: "conns" + at, Pass: sdk.ConnsOpened <= maxConns,
				Detail: fmt.Sprintf("sdk opened %d connections for %d calls (budget ≤ %d)", sdk.ConnsOpened, sdk.Calls, maxConns)})
		if okF {
			vs = append(vs, Verdict{Name: "throughput/floor" + at, Timing: true,
				Pass: sdk.PerSecond >= floorThroughput*floor.PerSecond,
				Detail: fmt.Sprintf("sdk %.0f vs floor %.0f calls/s = %.2f× (budget ≥ %.2f×)",
					sdk.PerSecond, floor.PerSecond, sdk.PerSecond/floor.PerSecond, floorThroughput)})
		} else {
			vs = append(vs, missing("throughput/floor"+at, "the floor's run"))
		}
		if okN {
			vs = append(vs, Verdict{Name: "throughput/naive" + at, Timing: true,
				Pass: sdk.PerSecond >= naiveThroughput*naive.PerSecond,
				Detail: fmt.Sprintf("sdk %.0f vs naive %.0f calls/s = %.2f× (budget ≥ %.1f×)",
					sdk.PerSecond, naive.PerSecond, sdk.PerSecond/naive.PerSecond, naiveThroughput)})
		} else {
			vs = append(vs, missing("throughput/naive"+at, "the naive run"))
		}
	}
	if len(load.Waiters) == 0 {
		vs = append(vs, missing("waiter-memory", "the WaitForPayment runs"))
	}
	for _, w := range load.Waiters {
		vs = append(vs, Verdict{Name: "waiter-memory/" + waiterMode(w), Pass: w.BytesPerWaiter <= waiterBytes,
			Detail: fmt.Sprintf("%.0f B per waiting WaitForPayment (live heap %.0f + stack %.0f; heap spans %.0f; %d waiters, rate limit %s; budget ≤ %d)",
				w.BytesPerWaiter, w.HeapPerWaiter, w.StackPerWaiter, w.HeapSpansPerWaiter, w.Waiters, w.RateLimit, waiterBytes)})
	}
	return vs
}

func waiterMode(w results.Waiters) string {
	if w.RateLimit == "none" {
		return "unlimited"
	}
	return "ratelimited"
}

func findRun(load *results.Load, impl string, callers int) (results.Run, bool) {
	for _, r := range load.Runs {
		if r.Impl == impl && r.Callers == callers {
			return r, true
		}
	}
	return results.Run{}, false
}

func missing(name, what string) Verdict {
	return Verdict{Name: name, Detail: "missing: no figures for " + what}
}
