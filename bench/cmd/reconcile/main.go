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
//     then the same on each store of -mix-stores (PostgreSQL, on sandbox
//     time);
//
//   - the backlog: -backlog orders due at once, checked by one step through
//     a client with WithRateLimit(-rate, -burst) against a sandbox with the
//     same quota: the pace (wall time) and the sandbox's 429s;
//
//   - the sweep, end to end: -sweep orders due at once, a tenth of them
//     paid in the sandbox, checked by one Step of a Sweeper with its
//     defaults against the sandbox over loopback HTTP (the pooled client),
//     on each store of -sweep-stores in turn for -sweep-rounds rounds
//     (interleaved), by each count of -sweep-sweepers sweepers stepping
//     at once over one store: checks per second, the time the step waited
//     for the store alone and the store's calls summed (through a timing
//     decorator), CPU per check (this process's getrusage, PostgreSQL's
//     processes from /proc), on PostgreSQL the share of its backends'
//     samples that wait for a lock, the load average, and the counts
//     (every order checked once, every paid order's event delivered once,
//     no other event).
//
// PostgreSQL is the tests' kit (reconcile/sqlstore/drivertest/pgtest): a
// cluster in a temporary directory on its durable defaults, started when a
// run needs it and stopped at the end.
//
//	go run ./cmd/reconcile -out results/reconcile.json
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/bench/internal/results"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/reconciletest"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
	"github.com/upicollect/upicollect-go/sandbox"
)

func main() {
	tracked := flag.Int("tracked", 100_000, "orders tracked in the memory measurement")
	orders := flag.Int("orders", 10_000, "orders in the mix")
	backlog := flag.Int("backlog", 10_000, "orders due at once in the backlog run")
	rate := flag.Float64("rate", 500, "the backlog run's rate limit, requests a second (client and sandbox)")
	burst := flag.Int("burst", 10, "the backlog run's burst (client and sandbox)")
	mixStores := flag.String("mix-stores", "postgres", "the database stores the mix runs on too, comma-separated (\"\": none)")
	sweep := flag.Int("sweep", 100_000, "orders due at once in the end-to-end sweep (0: no sweep)")
	sweepStores := flag.String("sweep-stores", "memory,postgres", "the stores the sweep runs on, in turn, comma-separated")
	sweepSweepers := flag.String("sweep-sweepers", "1", "how many sweepers step over the sweep's orders at once, comma-separated: each count runs on each store, in turn")
	sweepRounds := flag.Int("sweep-rounds", 3, "rounds of the sweep on each store, interleaved")
	out := flag.String("out", "results/reconcile.json", "where to write the results")
	flag.Parse()
	cfg := config{tracked: *tracked, orders: *orders, backlog: *backlog, rate: *rate, burst: *burst,
		mixStores: fields(*mixStores), sweep: *sweep, sweepStores: fields(*sweepStores), sweepRounds: *sweepRounds}
	var err error
	if cfg.sweepSweepers, err = counts(*sweepSweepers); err != nil {
		log.Fatalf("-sweep-sweepers: %v", err)
	}
	if err := run(context.Background(), cfg, *out); err != nil {
		log.Fatal(err)
	}
}

// fields splits a comma-separated list; "" is none.
func fields(list string) []string {
	var out []string
	for _, f := range strings.Split(list, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// counts reads a comma-separated list of counts of sweepers: one or more,
// each 1 or more, none twice.
func counts(list string) ([]int, error) {
	var out []int
	for _, f := range fields(list) {
		k, err := strconv.Atoi(f)
		if err != nil || k < 1 {
			return nil, fmt.Errorf("%q is not a count of sweepers (1 or more)", f)
		}
		if slices.Contains(out, k) {
			return nil, fmt.Errorf("%d sweepers twice", k)
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		return nil, errors.New("no count of sweepers")
	}
	return out, nil
}

// config is the program's flags.
type config struct {
	tracked, orders, backlog int
	rate                     float64
	burst                    int
	mixStores                []string
	sweep                    int
	sweepStores              []string
	sweepSweepers            []int
	sweepRounds              int
}

// run measures everything cfg asks for and writes the results to out. The
// PostgreSQL it starts, if any, is stopped before it returns.
func run(ctx context.Context, cfg config, out string) (err error) {
	r := &results.Reconcile{Machine: results.ThisMachine(), Tracked: cfg.tracked}
	dbs := &databases{}
	defer dbs.close()
	if r.BytesPerOrder, err = bytesPerOrder(ctx, cfg.tracked); err != nil {
		return err
	}
	log.Printf("memory store: %.0f bytes per tracked order at %d orders", r.BytesPerOrder, cfg.tracked)
	if r.Mix, err = mix(ctx, cfg.orders, "memory", dbs); err != nil {
		return err
	}
	log.Printf("mix: %+v", r.Mix)
	for _, kind := range cfg.mixStores {
		m, err := mix(ctx, cfg.orders, kind, dbs)
		if err != nil {
			return fmt.Errorf("the mix on %s: %w", kind, err)
		}
		log.Printf("mix on %s: %+v", kind, m)
		r.StoreMixes = append(r.StoreMixes, m)
	}
	if r.Backlog, err = backlogRun(ctx, cfg.backlog, cfg.rate, cfg.burst); err != nil {
		return err
	}
	log.Printf("backlog: %+v", r.Backlog)
	if cfg.sweep > 0 {
		e, err := newSweepEnv(ctx, cfg.sweep)
		if err != nil {
			return err
		}
		r.Sweeps, err = sweepRounds(ctx, e, cfg.sweepStores, cfg.sweepSweepers, cfg.sweepRounds, dbs)
		e.close()
		if err != nil {
			return err
		}
	}
	return results.WriteReconcile(out, r)
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
		o := reconcile.Order{ID: shopOrderID(i), Amount: upicollect.Rupees(499), Created: start}
		if err := sw.Track(ctx, o); err != nil {
			return 0, err
		}
	}
	after := heap()
	runtime.KeepAlive(st)
	return perOrder(before, after, n), nil
}

// shopOrderID is the i-th order id of the memory measurement, as a shop
// makes them: a millisecond timestamp, then a hash of i in hex.
func shopOrderID(i int) string {
	return fmt.Sprintf("ORDER_%d_%08x", 1772359200000+i, i*2654435761)
}

// perOrder is the heap that grew from before to after, over n orders:
// negative when it shrank (a collection freed more than the orders took).
func perOrder(before, after uint64, n int) float64 {
	return float64(int64(after-before)) / float64(n)
}

// mix walks the mix through one sweeper on a store of kind: "memory", or
// "postgres" (a database of its own, on sandbox time: sqlstore.WithClock).
func mix(ctx context.Context, n int, kind string, dbs *databases) (results.MixRun, error) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	clk := reconciletest.NewClock(t0)
	sb := sandbox.New(sandbox.WithClock(clk.Now))
	defer sb.Close()
	c := sb.Client()
	defer c.CloseIdleConnections()
	var st reconcile.Store
	switch kind {
	case "memory":
		st = reconcile.NewMemoryStore()
	case "postgres":
		db, err := dbs.postgres(ctx, "mix")
		if err != nil {
			return results.MixRun{}, err
		}
		defer db.Close()
		if st, err = sqlstore.New(ctx, db, sqlstore.Postgres, sqlstore.WithClock(clk.Now)); err != nil {
			return results.MixRun{}, err
		}
	default:
		return results.MixRun{}, fmt.Errorf("no store %q (memory, postgres)", kind)
	}
	rec := &reconciletest.Recorder{}
	sw, err := reconcile.New(c, st, rec.Handle, reconcile.WithConcurrency(16), reconcile.WithClock(clk.Now))
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
	store := kind
	if kind == "memory" {
		store = "" // the mix's own line
	}
	return results.MixRun{
		Store: store, Orders: n, Steps: steps, Checks: sum.Checked, ChecksPerOrder: float64(sum.Checked) / float64(n),
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
