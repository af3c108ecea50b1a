package sidebyside

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// The budgets for the Step store loop against River's burn-down.
const (
	// BudgetStepOverQuiet: the step loop's CPU per order ≤ 1.3 × the quiet
	// loop's.
	BudgetStepOverQuiet = 1.3
	// BudgetCPUOverRiver: the step loop's CPU per order ≤ 0.4 × River's
	// CPU per job.
	BudgetCPUOverRiver = 0.4
	// BudgetRateOverRiver: the step loop's rate ≥ 2 × River's (median of
	// the pairs).
	BudgetRateOverRiver = 2.0
	// BudgetEventCPU: CPU per event ≤ 150 µs.
	BudgetEventCPU = 150 * time.Microsecond
	// BudgetEventWAL: the events add ≤ 1 WAL flush per batch.
	BudgetEventWAL = 1.0
)

// Pair is one interleaved River run, step loop run and quiet loop run,
// over the same number of items.
type Pair struct {
	River, Step, Quiet Run
}

// RateRatio is the step loop's rate over River's.
func (p Pair) RateRatio() float64 { return p.Step.Rate() / p.River.Rate() }

// CPURatio is the step loop's CPU per order over River's CPU per job.
func (p Pair) CPURatio() float64 {
	return float64(p.Step.PerItem(p.Step.CPU.Total())) / float64(p.River.PerItem(p.River.CPU.Total()))
}

// StepOverQuiet is the step loop's CPU per order over the quiet loop's.
func (p Pair) StepOverQuiet() float64 {
	return float64(p.Step.PerItem(p.Step.CPU.Total())) / float64(p.Quiet.PerItem(p.Quiet.CPU.Total()))
}

// EventCPU estimates an event's CPU: what the step loop used beyond the
// quiet loop's, over its events (the runs have the same orders).
func (p Pair) EventCPU() time.Duration {
	if p.Step.Events == 0 {
		return 0
	}
	extra := p.Step.PerItem(p.Step.CPU.Total()) - p.Quiet.PerItem(p.Quiet.CPU.Total())
	return extra * time.Duration(p.Step.Items) / time.Duration(p.Step.Events)
}

// EventWAL is the WAL flushes per batch the step loop made beyond the
// quiet loop's.
func (p Pair) EventWAL() float64 {
	return perBatch(p.Step.WALSyncs, p.Step) - perBatch(p.Quiet.WALSyncs, p.Quiet)
}

// EventTrips is the database round trips per event the step loop made
// beyond the quiet loop's.
func (p Pair) EventTrips() float64 {
	if p.Step.Events == 0 {
		return 0
	}
	return float64(p.Step.Calls.RoundTrips-p.Quiet.Calls.RoundTrips) / float64(p.Step.Events)
}

func perBatch(v int64, r Run) float64 {
	if r.Batches == 0 {
		return 0
	}
	return float64(v) / float64(r.Batches)
}

// Series is the pairs run at one number of items.
type Series struct {
	N     int
	Pairs []Pair
}

// kinds is the order of a pair's runs; pair p starts p places on, so that
// no kind always runs first (after the load of another) or last.
var kinds = []string{"river", "step", "quiet"}

// Interleave runs pairs pairs at each n of ns, printing each run to w as
// it ends. It stops at the first error; a run whose checks fail is kept
// (Verdict reports it).
func Interleave(ctx context.Context, b *Bench, ns []int, pairs int, w io.Writer) ([]Series, error) {
	var out []Series
	for _, n := range ns {
		s := Series{N: n}
		for p := range pairs {
			var pair Pair
			for k := range kinds {
				kind := kinds[(k+p)%len(kinds)]
				var r Run
				var err error
				switch kind {
				case "river":
					r, err = b.River(ctx, n)
					pair.River = r
				case "step":
					r, err = b.Ledger(ctx, n, true)
					pair.Step = r
				case "quiet":
					r, err = b.Ledger(ctx, n, false)
					pair.Quiet = r
				}
				if err != nil {
					return append(out, s), fmt.Errorf("n=%d pair %d, %s: %w", n, p+1, kind, err)
				}
				fmt.Fprintf(w, "n=%d pair %d/%d %s\n", n, p+1, pairs, runLine(r))
			}
			s.Pairs = append(s.Pairs, pair)
			fmt.Fprintf(w, "n=%d pair %d/%d: %s\n", n, p+1, pairs, pairLine(pair))
		}
		out = append(out, s)
	}
	return out, nil
}

// µs formats d in microseconds.
func µs(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Microsecond)) }

// runLine says what a run did.
func runLine(r Run) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-5s %8.0f items/s in %v; CPU per item %s µs (Go %s, backends %s, rest %s)",
		r.Kind, r.Rate(), r.Wall.Round(time.Millisecond), µs(r.PerItem(r.CPU.Total())),
		µs(r.PerItem(r.CPU.Go)), µs(r.PerItem(r.CPU.Backends)), µs(r.PerItem(r.CPU.Rest)))
	if r.Batches > 0 {
		fmt.Fprintf(&b, "; per batch of %d: %.2f WAL flushes, %.2f round trips, %.2f transactions",
			LedgerBatch, perBatch(r.WALSyncs, r), perBatch(r.Calls.RoundTrips, r), perBatch(r.Calls.Transactions, r))
	} else {
		fmt.Fprintf(&b, "; WAL flushes per 1,000 jobs %.2f", float64(r.WALSyncs)*1000/float64(max(r.Items, 1)))
	}
	if r.Events > 0 {
		fmt.Fprintf(&b, "; %d events", r.Events)
	}
	fmt.Fprintf(&b, "; load %s", r.Load)
	for _, c := range r.Failed() {
		fmt.Fprintf(&b, "\n  FAIL %s: %s", c.Name, c.Detail)
	}
	return b.String()
}

// pairLine says a pair's ratios.
func pairLine(p Pair) string {
	return fmt.Sprintf("ledger÷River rate %.2f, CPU per item %.2f; step÷quiet CPU %.2f; per event %s µs CPU, %+.2f WAL flushes per batch, %+.2f round trips",
		p.RateRatio(), p.CPURatio(), p.StepOverQuiet(), µs(p.EventCPU()), p.EventWAL(), p.EventTrips())
}

// Spread is the min, median and max of some values.
type Spread struct{ Min, Median, Max float64 }

// spread of vs (not empty): the median of an even count is the mean of
// the middle two.
func spread(vs []float64) Spread {
	s := slices.Clone(vs)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Spread{Min: s[0], Median: m, Max: s[len(s)-1]}
}

// over is f over the pairs of s.
func (s Series) over(f func(Pair) float64) Spread {
	vs := make([]float64, len(s.Pairs))
	for i, p := range s.Pairs {
		vs[i] = f(p)
	}
	return spread(vs)
}

// Verdict prints the min/median/max of each series' ratios and the
// budgets: PASS when the median meets one, INFO when not (rates and CPU
// depend on the machine and on what else runs on it: never a failure),
// FAIL for a run whose counts did not hold (a job or an order not done, or
// done twice; an event not delivered exactly once), the one deterministic
// failure. It returns whether nothing failed.
func Verdict(series []Series, w io.Writer) bool {
	ok := true
	for _, s := range series {
		if len(s.Pairs) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nn=%d, %d pair(s): min / median / max\n", s.N, len(s.Pairs))
		rows := []struct {
			name string
			f    func(Pair) float64
		}{
			{"River jobs/s", func(p Pair) float64 { return p.River.Rate() }},
			{"step orders/s", func(p Pair) float64 { return p.Step.Rate() }},
			{"quiet orders/s", func(p Pair) float64 { return p.Quiet.Rate() }},
			{"River CPU µs/job", func(p Pair) float64 { return micro(p.River.PerItem(p.River.CPU.Total())) }},
			{"step CPU µs/order", func(p Pair) float64 { return micro(p.Step.PerItem(p.Step.CPU.Total())) }},
			{"quiet CPU µs/order", func(p Pair) float64 { return micro(p.Quiet.PerItem(p.Quiet.CPU.Total())) }},
			{"ledger÷River rate", Pair.RateRatio},
			{"ledger÷River CPU per item", Pair.CPURatio},
			{"step÷quiet CPU per order", Pair.StepOverQuiet},
			{"CPU µs per event", func(p Pair) float64 { return micro(p.EventCPU()) }},
			{"events' WAL flushes per batch", Pair.EventWAL},
			{"events' round trips per event", Pair.EventTrips},
		}
		for _, r := range rows {
			sp := s.over(r.f)
			fmt.Fprintf(w, "  %-30s %10.2f %10.2f %10.2f\n", r.name, sp.Min, sp.Median, sp.Max)
		}
		budget := func(name string, met bool, got string) {
			verdict := "INFO"
			if met {
				verdict = "PASS"
			}
			fmt.Fprintf(w, "%s n=%d %s: median %s\n", verdict, s.N, name, got)
		}
		sq, cr, rr := s.over(Pair.StepOverQuiet), s.over(Pair.CPURatio), s.over(Pair.RateRatio)
		ev, wal := s.over(func(p Pair) float64 { return micro(p.EventCPU()) }), s.over(Pair.EventWAL)
		budget(fmt.Sprintf("step loop CPU per order ≤ %.1f × the quiet loop's", BudgetStepOverQuiet), sq.Median <= BudgetStepOverQuiet, fmt.Sprintf("%.2f ×", sq.Median))
		budget(fmt.Sprintf("CPU per order ≤ %.1f × River's per job", BudgetCPUOverRiver), cr.Median <= BudgetCPUOverRiver, fmt.Sprintf("%.2f ×", cr.Median))
		budget(fmt.Sprintf("rate ≥ %.0f × River's", BudgetRateOverRiver), rr.Median >= BudgetRateOverRiver, fmt.Sprintf("%.2f ×", rr.Median))
		budget(fmt.Sprintf("CPU per event ≤ %s µs", µs(BudgetEventCPU)), ev.Median <= micro(BudgetEventCPU), fmt.Sprintf("%.0f µs", ev.Median))
		budget(fmt.Sprintf("events add ≤ %.0f WAL flush per batch", BudgetEventWAL), wal.Median <= BudgetEventWAL, fmt.Sprintf("%+.2f", wal.Median))
		for i, p := range s.Pairs {
			for _, r := range []Run{p.River, p.Step, p.Quiet} {
				for _, c := range r.Failed() {
					ok = false
					fmt.Fprintf(w, "FAIL n=%d pair %d %s: %s: %s\n", s.N, i+1, r.Kind, c.Name, c.Detail)
				}
			}
		}
	}
	return ok
}

// load1 is r's one-minute load average.
func load1(r Run) string {
	f := strings.Fields(r.Load)
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

func micro(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// Markdown writes the series as BENCHMARKS.md's table: a row per pair,
// then the min, median and max of the ratios.
func Markdown(series []Series, w io.Writer) {
	fmt.Fprintln(w, "| N | pair | 1-min load after River / step / quiet | River jobs/s | step orders/s | quiet orders/s | River CPU µs/job (Go / backends / rest) | step CPU µs/order (Go / backends / rest) | quiet CPU µs/order (Go / backends / rest) | ledger÷River rate | ledger÷River CPU | step÷quiet CPU | µs CPU per event | WAL flushes per batch, step / quiet | round trips per batch, step / quiet |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	cpu := func(r Run) string {
		return fmt.Sprintf("%s (%s / %s / %s)", µs(r.PerItem(r.CPU.Total())), µs(r.PerItem(r.CPU.Go)), µs(r.PerItem(r.CPU.Backends)), µs(r.PerItem(r.CPU.Rest)))
	}
	for _, s := range series {
		for i, p := range s.Pairs {
			fmt.Fprintf(w, "| %d | %d | %s | %.0f | %.0f | %.0f | %s | %s | %s | %.2f | %.2f | %.2f | %.0f | %.2f / %.2f | %.2f / %.2f |\n",
				s.N, i+1, load1(p.River)+" / "+load1(p.Step)+" / "+load1(p.Quiet), p.River.Rate(), p.Step.Rate(), p.Quiet.Rate(), cpu(p.River), cpu(p.Step), cpu(p.Quiet),
				p.RateRatio(), p.CPURatio(), p.StepOverQuiet(), micro(p.EventCPU()),
				perBatch(p.Step.WALSyncs, p.Step), perBatch(p.Quiet.WALSyncs, p.Quiet),
				perBatch(p.Step.Calls.RoundTrips, p.Step), perBatch(p.Quiet.Calls.RoundTrips, p.Quiet))
		}
		for _, m := range []struct {
			name string
			f    func(Spread) float64
		}{{"min", func(s Spread) float64 { return s.Min }}, {"median", func(s Spread) float64 { return s.Median }}, {"max", func(s Spread) float64 { return s.Max }}} {
			v := func(f func(Pair) float64) float64 { return m.f(s.over(f)) }
			fmt.Fprintf(w, "| %d | **%s** | | %.0f | %.0f | %.0f | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f | %.0f | | |\n", s.N, m.name,
				v(func(p Pair) float64 { return p.River.Rate() }), v(func(p Pair) float64 { return p.Step.Rate() }), v(func(p Pair) float64 { return p.Quiet.Rate() }),
				v(func(p Pair) float64 { return micro(p.River.PerItem(p.River.CPU.Total())) }),
				v(func(p Pair) float64 { return micro(p.Step.PerItem(p.Step.CPU.Total())) }),
				v(func(p Pair) float64 { return micro(p.Quiet.PerItem(p.Quiet.CPU.Total())) }),
				v(Pair.RateRatio), v(Pair.CPURatio), v(Pair.StepOverQuiet), v(func(p Pair) float64 { return micro(p.EventCPU()) }))
		}
	}
}
