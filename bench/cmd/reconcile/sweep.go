package main

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/bench/internal/results"
	"github.com/upicollect/upicollect-go/bench/internal/timedstore"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/reconciletest"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest/pgtest"
	"github.com/upicollect/upicollect-go/sandbox"
)

// sweepEnv is the end-to-end run's service: a sandbox on the real clock
// over loopback, its pooled client, and the orders created in it, a tenth
// of them paid. Each round tracks the same orders in a fresh store.
type sweepEnv struct {
	sb     *sandbox.Server
	c      *upicollect.Client
	orders []reconcile.Order // Created is set when a round tracks them
	paid   map[string]bool
}

// newSweepEnv creates n intents in a new sandbox, 16 at a time, and pays
// every tenth.
func newSweepEnv(ctx context.Context, n int) (*sweepEnv, error) {
	// Intents that outlive the run: an unpaid one never turns into an
	// expiry while the rounds go.
	sb := sandbox.New(sandbox.WithIntentTTL(24 * time.Hour))
	e := &sweepEnv{sb: sb, c: sb.Client(), orders: make([]reconcile.Order, n), paid: map[string]bool{}}
	for i := range e.orders {
		e.orders[i] = reconcile.Order{ID: fmt.Sprintf("SWEEP_%08d", i), Amount: upicollect.Rupees(100 + int64(i%900))}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for _, o := range e.orders {
		g.Go(func() error {
			_, err := e.c.CreatePaymentIntent(gctx, &upicollect.IntentParams{
				Amount: o.Amount, OrderID: o.ID, RedirectURL: "https://shop.example.com/return",
				Note: "sweep", Customer: upicollect.Customer{Name: "Sweep Payer", Email: "payer@example.com", Mobile: "9876543210"},
			})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		e.close()
		return nil, fmt.Errorf("creating the intents: %w", err)
	}
	for i := 0; i < n; i += 10 {
		if _, err := sb.Pay(e.orders[i].ID); err != nil {
			e.close()
			return nil, fmt.Errorf("paying %s: %w", e.orders[i].ID, err)
		}
		e.paid[e.orders[i].ID] = true
	}
	return e, nil
}

// close closes the client's idle connections and the sandbox.
func (e *sweepEnv) close() {
	e.c.CloseIdleConnections()
	e.sb.Close()
}

// sweepRounds runs rounds of a Step over the env's orders on each store
// of kinds in turn, by each of counts sweepers stepping at once (memory,
// postgres; 1, 4: interleaved, so that the machine's load falls on all
// alike; the counts in reverse order every other round, so that none
// always runs first).
func sweepRounds(ctx context.Context, e *sweepEnv, kinds []string, counts []int, rounds int, dbs *databases) ([]results.SweepRun, error) {
	var out []results.SweepRun
	for round := 1; round <= rounds; round++ {
		order := slices.Clone(counts)
		if round%2 == 0 {
			slices.Reverse(order)
		}
		for _, kind := range kinds {
			for _, k := range order {
				r, err := sweepOnce(ctx, e, kind, k, round, dbs)
				if err != nil {
					return out, fmt.Errorf("sweep on %s by %d sweeper(s), round %d: %w", kind, k, round, err)
				}
				log.Printf("sweep: %s", sweepLine(r))
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// sweepLine is one run as a line of the log.
func sweepLine(r results.SweepRun) string {
	methods := slices.Collect(maps.Keys(r.ByMethod))
	slices.SortFunc(methods, func(a, b string) int { // the most time first, ties by name
		return cmp.Or(cmp.Compare(r.ByMethod[b], r.ByMethod[a]), strings.Compare(a, b))
	})
	var parts []string
	for _, m := range methods {
		if share := r.ByMethod[m] / r.Seconds; share >= 0.005 {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", m, 100*share))
		}
	}
	if len(parts) == 0 {
		parts = []string{"each method under 0.5 %"}
	}
	cpu := fmt.Sprintf("Go %.1f µs", r.GoMicros)
	if r.Store != "memory" {
		cpu += fmt.Sprintf(", database %.1f µs (backends %.1f, rest %.1f); lock waits %.1f%% of %d backend samples",
			r.DBMicros, r.BackendsMicros, r.DBMicros-r.BackendsMicros, 100*float64(r.LockWaits)/float64(max(r.BackendSamples, 1)), r.BackendSamples)
	}
	return fmt.Sprintf("%s round %d, %d sweeper(s) | %d due, %d paid | %.0f checks/s | waiting for the store alone %.0f%% of the wall time; its calls, summed, %.0f%% (%s) | CPU per check: %s | checked %d, requests %d, events %d (twice %d, unexpected %d, lost %d), errors %d | load %s",
		r.Store, r.Round, r.Count(), r.Orders, r.Paid, r.PerSecond, 100*r.StoreWaitShare, 100*r.StoreShare, strings.Join(parts, ", "), cpu,
		r.Checked, r.Requests, r.Delivered, r.Twice, r.Wrong, r.Lost, r.Errors, r.Load)
}

// sweepOnce tracks the env's orders in a fresh store of kind, created a
// minute ago (all due, inside the payer's window), and times k sweepers of
// that store stepping over them at once (one Step each).
func sweepOnce(ctx context.Context, e *sweepEnv, kind string, k, round int, dbs *databases) (results.SweepRun, error) {
	r := results.SweepRun{Store: kind, Round: round, Orders: len(e.orders), Paid: len(e.paid), Sweepers: k}
	var (
		st         reconcile.Store
		db         *sql.DB
		postmaster int
		err        error
	)
	switch kind {
	case "memory":
		st = reconcile.NewMemoryStore()
	case "postgres":
		if db, err = dbs.postgres(ctx, fmt.Sprintf("sweep_%d_%d", round, k)); err != nil {
			return r, err
		}
		defer db.Close()
		if st, err = sqlstore.New(ctx, db, sqlstore.Postgres); err != nil {
			return r, err
		}
		postmaster = dbs.pg.PID()
	default:
		return r, fmt.Errorf("no store %q (memory, postgres)", kind)
	}
	timed := timedstore.New(st)
	var (
		mu   sync.Mutex
		seen = map[string]int{}
	)
	handler := func(_ context.Context, ev reconcile.Event) error {
		mu.Lock()
		defer mu.Unlock()
		seen[ev.Order.ID]++
		return nil
	}
	// The round's client: the sandbox's pooled one, its calls seen on the
	// store's timeline.
	client := e.sb.Client(upicollect.WithObserver(timed.Service()))
	defer client.CloseIdleConnections()
	sweepers := make([]*reconcile.Sweeper, k)
	for i := range sweepers {
		if sweepers[i], err = reconcile.New(client, timed, handler); err != nil {
			return r, err
		}
	}
	if err := track(ctx, sweepers[0], db, e.orders, time.Now().Add(-time.Minute)); err != nil {
		return r, err
	}
	timed.Reset()
	e.sb.Clear(sandbox.Counts)
	waits, err := pgtest.SampleWaits(ctx, db) // the memory store's db is nil: nothing sampled
	if err != nil {
		return r, err
	}
	cpu0 := readCPU(postmaster)
	start := time.Now()
	stats, errs := reconciletest.StepAll(ctx, sweepers, start)
	elapsed := time.Since(start)
	cpu1 := readCPU(postmaster)
	w := waits.Stop()
	if err := errors.Join(append(errs, w.Err)...); err != nil {
		return r, err
	}
	spent, by := timed.Spent()
	figures(&r, sweepReadings{
		stats: stats, elapsed: elapsed, cpu0: cpu0, cpu1: cpu1, waits: w,
		spent: spent, alone: timed.Alone(), by: by,
		requests: e.sb.Stats().Requests["checkPaymentStatus"], seen: seen, paid: e.paid,
	})
	r.Load = loadAverage()
	return r, nil
}

// sweepReadings is what sweepOnce read around a step: the step's stats
// and wall time, the CPU before and after it, the store's lock waits and
// the time in its calls (in all, alone, by method), the sandbox's status
// requests, the events the handler got by order, and the orders paid.
type sweepReadings struct {
	stats        reconcile.Stats
	elapsed      time.Duration
	cpu0, cpu1   cpuReading
	waits        pgtest.WaitCounts
	spent, alone time.Duration
	by           map[string]timedstore.Call
	requests     int64
	seen         map[string]int
	paid         map[string]bool
}

// figures sets r's counts and figures from m: the checks and errors, the
// events against the paid orders (delivered, twice, for an order not
// paid, lost), the rates and shares of the wall time, the CPU per check
// and the lock waits. r's Load is left as it is.
func figures(r *results.SweepRun, m sweepReadings) {
	r.BackendSamples, r.LockWaits = m.waits.Samples, m.waits.Count("Lock:")
	r.Checked, r.Errors = m.stats.Checked, m.stats.Errors
	r.Requests = m.requests
	for id, k := range m.seen {
		r.Delivered += k
		if k > 1 {
			r.Twice++
		}
		if !m.paid[id] {
			r.Wrong++
		}
	}
	for id := range m.paid {
		if m.seen[id] == 0 {
			r.Lost++
		}
	}
	r.Seconds = m.elapsed.Seconds()
	r.PerSecond = float64(m.stats.Checked) / r.Seconds
	r.StoreSeconds = m.spent.Seconds()
	r.StoreShare = r.StoreSeconds / r.Seconds
	r.StoreAloneSeconds = m.alone.Seconds()
	r.StoreWaitShare = r.StoreAloneSeconds / r.Seconds
	r.ByMethod = map[string]float64{}
	for method, c := range m.by {
		r.ByMethod[method] = c.Spent.Seconds()
	}
	perCheck := func(d time.Duration) float64 {
		return float64(d) / float64(time.Microsecond) / float64(max(m.stats.Checked, 1))
	}
	r.GoMicros = perCheck(m.cpu1.self - m.cpu0.self)
	r.DBMicros = perCheck(m.cpu1.db - m.cpu0.db)
	r.BackendsMicros = perCheck(m.cpu1.backends - m.cpu0.backends)
}

// track tracks orders, created at created, through sw: one by one on the
// memory store (db nil), in transactions of 1,000 on a database.
func track(ctx context.Context, sw *reconcile.Sweeper, db *sql.DB, orders []reconcile.Order, created time.Time) error {
	const perTx = 1000
	for i := 0; i < len(orders); i += perTx {
		part := orders[i:min(i+perTx, len(orders))]
		if db == nil {
			for _, o := range part {
				o.Created = created
				if err := sw.Track(ctx, o); err != nil {
					return err
				}
			}
			continue
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		for _, o := range part {
			o.Created = created
			if err := sw.TrackTx(ctx, tx, o); err != nil {
				_ = tx.Rollback()
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// cpuReading is the CPU time used so far: by this process, by all of
// PostgreSQL's processes, by its backends alone.
type cpuReading struct {
	self, db, backends time.Duration
}

// readCPU reads the CPU time of this process and of the PostgreSQL of
// postmaster (zero for none).
func readCPU(postmaster int) cpuReading {
	c := cpuReading{self: selfCPU()}
	c.db, c.backends = dbCPU(postmaster)
	return c
}

// selfCPU is the CPU time (user + system) this process has used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return rusageCPU(&ru)
}

// rusageCPU is the CPU time (user + system) of ru.
func rusageCPU(ru *syscall.Rusage) time.Duration {
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadAverage is the machine's one-minute load average ("?" when unknown).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}
