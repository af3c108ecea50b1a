// Command reconcile measures the reconciliation sweeper against its
// budgets and writes JSON for the budget program:
//
//   - memory: the heap a memory store holds per tracked order, at -tracked
//     orders;
//
//   - the mix: -orders orders of the mix (60 % paid within 10
//     minutes, 15 % failed, 5 % failed then paid 2–48 h later, 5 % paid
//     30 min–6 h later, 15 % never paid) walked through 72 hours of sandbox
//     time by one sweeper: status checks per order, events against the
//     plan, and how soon the payments of the first 15 minutes were reported;
//
//   - the backlog: -backlog orders due at once, checked by one step through
//     a client with WithRateLimit(-rate, -burst) against a sandbox with the
//     same quota: the pace (wall time) and the sandbox's 429s.
//
//     go run ./cmd/reconcile -out results/reconcile.json
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"runtime"
	"time"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/bench/internal/results"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/reconciletest"
	"github.com/upicollect/upicollect-go/sandbox"
)

func main() {
	tracked := flag.Int("tracked", 100_000, "orders tracked in the memory measurement")
	orders := flag.Int("orders", 10_000, "orders in the mix")
	backlog := flag.Int("backlog", 10_000, "orders due at once in the backlog run")
	rate := flag.Float64("rate", 500, "the backlog run's rate limit, requests a second (client and sandbox)")
	burst := flag.Int("burst", 10, "the backlog run's burst (client and sandbox)")
	out := flag.String("out", "results/reconcile.json", "where to write the results")
	flag.Parse()
	ctx := context.Background()
	r := &results.Reconcile{Machine: results.ThisMachine(), Tracked: *tracked}
	var err error
	if r.BytesPerOrder, err = bytesPerOrder(ctx, *tracked); err != nil {
		log.Fatal(err)
	}
	log.Printf("memory store: %.0f bytes per tracked order at %d orders", r.BytesPerOrder, *tracked)
	if r.Mix, err = mix(ctx, *orders); err != nil {
		log.Fatal(err)
	}
	log.Printf("mix: %+v", r.Mix)
	if r.Backlog, err = backlogRun(ctx, *backlog, *rate, *burst); err != nil {
		log.Fatal(err)
	}
	log.Printf("backlog: %+v", r.Backlog)
	if err := results.WriteReconcile(*out, r); err != nil {
		log.Fatal(err)
	}
}

// heap returns the live heap after a full collection.
func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// bytesPerOrder tracks n orders in a memory store and returns the heap
// they hold, per order: ids as a shop makes them, Track's own copies.
func bytesPerOrder(ctx context.Context, n int) (float64, error) {
	sb := sandbox.New()
	defer sb.Close()
	c := sb.Client()
	st := reconcile.NewMemoryStore()
	sw, err := reconcile.New(c, st, func(context.Context, reconcile.Event) error { return nil })
	if err != nil {
		return 0, err
	}
	start := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	before := heap()
	for i := range n {
		o := reconcile.Order{ID: fmt.Sprintf("ORDER_%d_%08x", 1772359200000+i, i*2654435761), Amount: upicollect.Rupees(499), Created: start}
		if err := sw.Track(ctx, o); err != nil {
			return 0, err
		}
	}
	after := heap()
	runtime.KeepAlive(st)
	return float64(after-before) / float64(n), nil
}

// mix walks the mix through one sweeper on a memory store.
func mix(ctx context.Context, n int) (results.MixRun, error) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	clk := reconciletest.NewClock(t0)
	sb := sandbox.New(sandbox.WithClock(clk.Now))
	defer sb.Close()
	c := sb.Client()
	defer c.CloseIdleConnections()
	rec := &reconciletest.Recorder{}
	sw, err := reconcile.New(c, reconcile.NewMemoryStore(), rec.Handle, reconcile.WithConcurrency(16))
	if err != nil {
		return results.MixRun{}, err
	}
	plan := reconciletest.Plan(n, t0, 42)
	if err := reconciletest.Create(ctx, c, sb, clk, plan, func(o reconcile.Order) error { return sw.Track(ctx, o) }); err != nil {
		return results.MixRun{}, err
	}
	sum, steps, err := reconciletest.Walk(ctx, clk, t0.Add(100*time.Hour), sw.Step)
	if err != nil {
		return results.MixRun{}, err
	}
	rep := reconciletest.Check(plan, rec.Deliveries())
	return results.MixRun{
		Orders: n, Steps: steps, Checks: sum.Checked, ChecksPerOrder: float64(sum.Checked) / float64(n),
		Events: rep.Events, Twice: rep.Twice, Lost: rep.Lost, Wrong: rep.Wrong,
		EarlyPaid: rep.EarlyPaid, SlowPaid: rep.SlowPaid, MaxDelaySeconds: rep.MaxDelay.Seconds(),
	}, nil
}

// backlogRun tracks n orders the service has never seen, all due now, and
// times one step over them through a rate-limited client against a
// sandbox with the same quota, on the real clock.
func backlogRun(ctx context.Context, n int, rate float64, burst int) (results.BacklogRun, error) {
	sb := sandbox.New(sandbox.WithRateLimit(rate, burst))
	defer sb.Close()
	c := sb.Client(upicollect.WithRateLimit(rate, burst))
	defer c.CloseIdleConnections()
	sw, err := reconcile.New(c, reconcile.NewMemoryStore(), func(context.Context, reconcile.Event) error { return nil },
		reconcile.WithConcurrency(32), reconcile.WithBatchSize(1024))
	if err != nil {
		return results.BacklogRun{}, err
	}
	created := time.Now().Add(-time.Hour)
	for i := range n {
		if err := sw.Track(ctx, reconcile.Order{ID: fmt.Sprintf("backlog-%06d", i), Amount: upicollect.Rupees(10), Created: created}); err != nil {
			return results.BacklogRun{}, err
		}
	}
	sb.Clear(sandbox.Counts)
	start := time.Now()
	stats, err := sw.Step(ctx, time.Now())
	elapsed := time.Since(start)
	if err != nil {
		return results.BacklogRun{}, err
	}
	s := sb.Stats()
	return results.BacklogRun{
		Orders: n, Rate: rate, Burst: burst, Checked: stats.Checked, Seconds: elapsed.Seconds(),
		PerSecond: float64(stats.Checked) / elapsed.Seconds(),
		Requests:  s.Requests["checkPaymentStatus"], RateLimited: s.RateLimited,
	}, nil
}
