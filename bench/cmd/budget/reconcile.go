package main

import (
	"fmt"
	"io"

	"github.com/upicollect/upicollect-go/bench/internal/results"
)

// The reconciliation budgets.
const (
	reconcileTracked       = 100_000 // orders the memory budget is measured at
	reconcileBytesPerOrder = 1024    // heap a memory store holds per tracked order
	reconcileChecks        = 30.0    // status checks per order over the mix's window, on average
	reconcileBacklogPace   = 0.95    // of the rate limit, on a due backlog
)

// evaluateReconcile checks the reconcile run. Memory, checks, events,
// early payments and 429s are deterministic (heap after collection, counts
// in sandbox time, the sandbox's own counts); the backlog's pace is wall
// time, information only.
func evaluateReconcile(r *results.Reconcile) []Verdict {
	if r == nil {
		return []Verdict{missing("reconcile", "the reconcile program's results")}
	}
	m, b := r.Mix, r.Backlog
	return []Verdict{
		{Name: "reconcile/memory", Pass: r.Tracked >= reconcileTracked && r.BytesPerOrder <= reconcileBytesPerOrder,
			Detail: fmt.Sprintf("%.0f bytes per tracked order in the memory store at %d orders (budget ≤ %d at %d)",
				r.BytesPerOrder, r.Tracked, reconcileBytesPerOrder, reconcileTracked)},
		{Name: "reconcile/checks", Pass: m.Orders > 0 && m.ChecksPerOrder <= reconcileChecks,
			Detail: fmt.Sprintf("%.2f status checks per order over 72 h for the mix of %d orders (budget ≤ %.0f)",
				m.ChecksPerOrder, m.Orders, reconcileChecks)},
		{Name: "reconcile/events", Pass: m.Events > 0 && m.Twice == 0 && m.Lost == 0 && m.Wrong == 0,
			Detail: fmt.Sprintf("%d events: %d twice, %d lost, %d unexpected (budget 0 each)", m.Events, m.Twice, m.Lost, m.Wrong)},
		{Name: "reconcile/early-payments", Pass: m.EarlyPaid > 0 && m.SlowPaid == 0,
			Detail: fmt.Sprintf("%d payments in the first 15 min, %d reported later than 30 s, the slowest after %.0f s of sandbox time (budget 0 later than 30 s)",
				m.EarlyPaid, m.SlowPaid, m.MaxDelaySeconds)},
		{Name: "reconcile/backlog/429s", Pass: b.Requests > 0 && b.RateLimited == 0 && b.Checked == b.Orders,
			Detail: fmt.Sprintf("%d of %d due orders checked, %d of %d requests answered 429 by a sandbox limited to %.0f/s (budget 0)",
				b.Checked, b.Orders, b.RateLimited, b.Requests, b.Rate)},
		{Name: "reconcile/backlog/pace", Timing: true, Pass: b.PerSecond >= reconcileBacklogPace*b.Rate,
			Detail: fmt.Sprintf("%.1f checks/s with WithRateLimit(%.0f, %d) = %.1f%% of the limit (budget ≥ %.0f%%)",
				b.PerSecond, b.Rate, b.Burst, 100*b.PerSecond/b.Rate, 100*reconcileBacklogPace)},
	}
}

// runReconcile prints the reconcile verdicts of path to w and returns the
// exit code: 0, 1 when a deterministic budget fails, 2 when path cannot be
// read.
func runReconcile(w io.Writer, path string) int {
	r, err := results.ReadReconcile(path)
	if err != nil {
		fmt.Fprintln(w, "budget:", err)
		return 2
	}
	vs := evaluateReconcile(r)
	for _, v := range vs {
		fmt.Fprintln(w, v)
	}
	if Failed(vs) {
		fmt.Fprintln(w, "budget: reconcile FAIL (a deterministic budget is exceeded)")
		return 1
	}
	fmt.Fprintln(w, "budget: reconcile ok")
	return 0
}
