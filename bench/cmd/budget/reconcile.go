package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/upicollect/upicollect-go/bench/internal/results"
)

// The reconciliation budgets.
const (
	reconcileTracked       = 100_000 // orders the memory budget is measured at
	reconcileBytesPerOrder = 1024    // heap a memory store holds per tracked order
	reconcileChecks        = 30.0    // status checks per order over the mix's window, on average
	reconcileBacklogPace   = 0.95    // of the rate limit, on a due backlog
	sweepRate              = 8000.0  // checks a second, end to end, 10 % paid
	sweepStoreShare        = 0.25    // of a step's wall time spent waiting for the store alone
	sweepersCPU            = 1.10    // CPU per check of sweepers stepping at once, × one sweeper's
	sweepersLockWaits      = 0.05    // of the database's backend samples, waiting for a lock
)

// evaluateReconcile checks the reconcile run. Memory, checks, events,
// early payments and 429s are deterministic (heap after collection, counts
// in sandbox time, the sandbox's own counts); the backlog's pace is wall
// time, information only.
func evaluateReconcile(r *results.Reconcile) []Verdict {
	if r == nil {
		return []Verdict{missing("reconcile", "the reconcile program's results")}
	}
	b := r.Backlog
	vs := []Verdict{
		{Name: "reconcile/memory", Pass: r.Tracked >= reconcileTracked && r.BytesPerOrder <= reconcileBytesPerOrder,
			Detail: fmt.Sprintf("%.0f bytes per tracked order in the memory store at %d orders (budget ≤ %d at %d)",
				r.BytesPerOrder, r.Tracked, reconcileBytesPerOrder, reconcileTracked)},
	}
	vs = append(vs, mixVerdicts("reconcile", r.Mix)...)
	vs = append(vs,
		Verdict{Name: "reconcile/backlog/429s", Pass: b.Requests > 0 && b.RateLimited == 0 && b.Checked == b.Orders,
			Detail: fmt.Sprintf("%d of %d due orders checked, %d of %d requests answered 429 by a sandbox limited to %.0f/s (budget 0)",
				b.Checked, b.Orders, b.RateLimited, b.Requests, b.Rate)},
		Verdict{Name: "reconcile/backlog/pace", Timing: true, Pass: b.PerSecond >= reconcileBacklogPace*b.Rate,
			Detail: fmt.Sprintf("%.1f checks/s with WithRateLimit(%.0f, %d) = %.1f%% of the limit (budget ≥ %.0f%%)",
				b.PerSecond, b.Rate, b.Burst, 100*b.PerSecond/b.Rate, 100*reconcileBacklogPace)},
	)
	for _, m := range r.StoreMixes {
		vs = append(vs, mixVerdicts("reconcile/mix/"+m.Store, m)...)
	}
	return append(vs, evaluateSweeps(r.Sweeps)...)
}

// mixVerdicts are the mix's budgets, named under prefix: checks per
// order, its events against the plan, and how soon the early payments
// were reported (all counts in sandbox time).
func mixVerdicts(prefix string, m results.MixRun) []Verdict {
	return []Verdict{
		{Name: prefix + "/checks", Pass: m.Orders > 0 && m.ChecksPerOrder <= reconcileChecks,
			Detail: fmt.Sprintf("%.2f status checks per order over 72 h for the mix of %d orders (budget ≤ %.0f)",
				m.ChecksPerOrder, m.Orders, reconcileChecks)},
		{Name: prefix + "/events", Pass: m.Events > 0 && m.Twice == 0 && m.Lost == 0 && m.Wrong == 0,
			Detail: fmt.Sprintf("%d events: %d twice, %d lost, %d unexpected (budget 0 each)", m.Events, m.Twice, m.Lost, m.Wrong)},
		{Name: prefix + "/early-payments", Pass: m.EarlyPaid > 0 && m.SlowPaid == 0,
			Detail: fmt.Sprintf("%d payments in the first 15 min, %d reported later than 30 s, the slowest after %.0f s of sandbox time (budget 0 later than 30 s)",
				m.EarlyPaid, m.SlowPaid, m.MaxDelaySeconds)},
	}
}

// evaluateSweeps checks the end-to-end sweeps, store by store and, in a
// store, by the count of sweepers that stepped at once: the counts (every
// order checked once, one status request each, every paid order's event
// delivered once, no other event) fail the run; the rest, medians over the
// rounds, is printed only: by one sweeper, checks per second and the
// time it waited for the store alone; by more, their CPU per check against
// one sweeper's in the same round and, on a database, the share of its
// backends' samples that waited for a lock.
func evaluateSweeps(runs []results.SweepRun) []Verdict {
	type group struct {
		store    string
		sweepers int
	}
	var groups []group
	by := map[group][]results.SweepRun{}
	for _, r := range runs {
		g := group{r.Store, r.Count()}
		if _, ok := by[g]; !ok {
			groups = append(groups, g)
		}
		by[g] = append(by[g], r)
	}
	cpu := func(r results.SweepRun) float64 { return r.GoMicros + r.DBMicros }
	var vs []Verdict
	for _, g := range groups {
		rs := by[g]
		prefix := "reconcile/sweep/" + g.store
		if g.sweepers > 1 {
			prefix += fmt.Sprintf("/%d-sweepers", g.sweepers)
		}
		ok := true
		var orders, checked, delivered, paid, twice, wrong, lost, samples, locked int
		var requests int64
		rates, shares, sums := make([]float64, len(rs)), make([]float64, len(rs)), make([]float64, len(rs))
		for i, r := range rs {
			ok = ok && r.Orders > 0 && r.Paid > 0 && r.Checked == r.Orders && r.Requests == int64(r.Orders) &&
				r.Delivered == r.Paid && r.Twice == 0 && r.Wrong == 0 && r.Lost == 0
			orders += r.Orders
			checked += r.Checked
			requests += r.Requests
			delivered += r.Delivered
			paid += r.Paid
			twice += r.Twice
			wrong += r.Wrong
			lost += r.Lost
			samples += r.BackendSamples
			locked += r.LockWaits
			rates[i], shares[i], sums[i] = r.PerSecond, r.StoreWaitShare, r.StoreShare
		}
		vs = append(vs, Verdict{Name: prefix + "/counts", Pass: ok,
			Detail: fmt.Sprintf("%d of %d due orders checked in %d requests, %d of %d paid orders' events delivered: %d twice, %d unexpected, %d lost, over %d round(s) (budget: every order once, every paid event once)",
				checked, orders, requests, delivered, paid, twice, wrong, lost, len(rs))})
		if g.sweepers == 1 {
			rate, share := medianOf(rates), medianOf(shares)
			vs = append(vs,
				Verdict{Name: prefix + "/rate", Timing: true, Pass: rate >= sweepRate,
					Detail: fmt.Sprintf("%.0f checks/s, median of %d rounds of %d due orders (%.0f–%.0f; budget ≥ %.0f on a quiet machine)",
						rate, len(rs), rs[0].Orders, minOf(rates), maxOf(rates), sweepRate)},
				Verdict{Name: prefix + "/store-share", Timing: true, Pass: share <= sweepStoreShare,
					Detail: fmt.Sprintf("the step waits for the store alone (a store call in flight, no check) %.0f%% of its wall time, median of %d rounds (budget ≤ %.0f%%); the store's calls, beside the checks, sum to %.0f%% of it",
						100*share, len(rs), 100*sweepStoreShare, 100*medianOf(sums))},
			)
			continue
		}
		// Each round's CPU per check against one sweeper's in the same
		// round, beside it in time: the rounds' load differs more than the
		// budget's 10 %.
		oneIn := map[int]float64{}
		for _, r := range by[group{g.store, 1}] {
			oneIn[r.Round] = cpu(r)
		}
		var ratios, many, ones []float64 // of the paired rounds
		for _, r := range rs {
			if one, ok := oneIn[r.Round]; ok && one > 0 {
				ratios, many, ones = append(ratios, cpu(r)/one), append(many, cpu(r)), append(ones, one)
			}
		}
		if len(ratios) > 0 {
			ratio := medianOf(ratios)
			vs = append(vs, Verdict{Name: prefix + "/cpu", Timing: true, Pass: ratio <= sweepersCPU,
				Detail: fmt.Sprintf("CPU per check (Go and database) %.3f × one sweeper's in the same round, median of %d rounds (%.3f–%.3f; budget ≤ %.2f ×); %.1f µs against %.1f µs, medians of those rounds",
					ratio, len(ratios), minOf(ratios), maxOf(ratios), sweepersCPU, medianOf(many), medianOf(ones))})
		}
		switch {
		case samples > 0:
			share := float64(locked) / float64(samples)
			vs = append(vs, Verdict{Name: prefix + "/lock-waits", Timing: true, Pass: share <= sweepersLockWaits,
				Detail: fmt.Sprintf("%.1f%% of %d samples of the database's active backends waited for a lock, over %d round(s) (budget ≤ %.0f%%)",
					100*share, samples, len(rs), 100*sweepersLockWaits)})
		case g.store != "memory":
			vs = append(vs, Verdict{Name: prefix + "/lock-waits", Timing: true,
				Detail: fmt.Sprintf("no sample of the database's backends over %d round(s) (budget ≤ %.0f%% of them waiting for a lock)", len(rs), 100*sweepersLockWaits)})
		}
	}
	return vs
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

// medianOf is the median of xs (the mean of the two middle ones for an
// even count); 0 for none.
func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// minOf and maxOf are the least and greatest of xs (non-empty).
func minOf(xs []float64) float64 { return slices.Min(xs) }
func maxOf(xs []float64) float64 { return slices.Max(xs) }
