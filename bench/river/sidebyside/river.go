package sidebyside

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
)

// River's burn-down as River's own benchmark (cmd/river's riverbench)
// runs it: jobs inserted in batches of riverInsertBatch, then one client
// with one queue works them with its settings, which River's authors chose
// for throughput ("much better than the client's default values"): a fetch
// every 2 ms at most, a poll every 20 ms, and 2,000 workers on the queue.
const (
	riverInsertBatch       = 5_000
	riverFetchCooldown     = 2 * time.Millisecond
	riverFetchPollInterval = 20 * time.Millisecond
	// RiverMaxWorkers is riverbench's MaxWorkers for its queue.
	RiverMaxWorkers = 2_000
)

// noopArgs is the job of the burn-down: it carries nothing and its worker
// does nothing.
type noopArgs struct{}

// Kind is the job's kind.
func (noopArgs) Kind() string { return "sidebyside_noop" }

// noopWorker works a job by counting it.
type noopWorker struct {
	river.WorkerDefaults[noopArgs]
	worked *tally
}

// Work counts the job and returns.
func (w *noopWorker) Work(_ context.Context, j *river.Job[noopArgs]) error {
	w.worked.add(j.ID)
	return nil
}

// tally counts how many times each of the items 1…n was seen; an item
// outside 1…n counts as out.
type tally struct {
	seen []atomic.Uint32
	out  atomic.Int64
	done atomic.Int64 // items seen at least once
	all  chan struct{}
}

func newTally(n int) *tally {
	return &tally{seen: make([]atomic.Uint32, n+1), all: make(chan struct{})}
}

// add counts item i; the n-th distinct item closes all.
func (t *tally) add(i int64) {
	if i < 1 || i >= int64(len(t.seen)) {
		t.out.Add(1)
		return
	}
	if t.seen[i].Add(1) == 1 && t.done.Add(1) == int64(len(t.seen)-1) {
		close(t.all)
	}
}

// check returns how many items were missed and how many seen more than
// once (out of range included).
func (t *tally) check() (missing, twice int) {
	for i := 1; i < len(t.seen); i++ {
		switch c := t.seen[i].Load(); {
		case c == 0:
			missing++
		case c > 1:
			twice++
		}
	}
	return missing, twice + int(t.out.Load())
}

// River runs one burn-down of n jobs from an empty job table and measures
// it from the client's start to its n-th completion event (the completer
// has recorded it): the time, the CPU, and each job's worker calls and
// completions.
func (b *Bench) River(ctx context.Context, n int) (Run, error) {
	if err := b.exec(ctx, `TRUNCATE river_job RESTART IDENTITY`); err != nil {
		return Run{}, err
	}
	client, err := river.NewClient(riverpgxv5.New(b.pool), &river.Config{
		Logger: slog.New(slog.NewTextHandler(b.logw, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return Run{}, err
	}
	// Job ids are 1…n: the sequence restarted with the table.
	params := make([]river.InsertManyParams, 0, riverInsertBatch)
	for left := n; left > 0; left -= len(params) {
		params = params[:0]
		for range min(left, riverInsertBatch) {
			params = append(params, river.InsertManyParams{Args: noopArgs{}})
		}
		if _, err := client.InsertManyFast(ctx, params); err != nil {
			return Run{}, fmt.Errorf("inserting jobs: %w", err)
		}
	}
	if err := b.settle(ctx, "river_job"); err != nil {
		return Run{}, err
	}

	worked, completed := newTally(n), newTally(n)
	workers := river.NewWorkers()
	river.AddWorker(workers, &noopWorker{worked: worked})
	client, err = river.NewClient(riverpgxv5.New(b.pool), &river.Config{
		FetchCooldown:     riverFetchCooldown,
		FetchPollInterval: riverFetchPollInterval,
		Logger:            slog.New(slog.NewTextHandler(b.logw, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: b.cfg.RiverWorkers}},
		Workers:           workers,
	})
	if err != nil {
		return Run{}, err
	}
	// Completions are counted from the subscription, as riverbench counts
	// them: a job is done when the completer has recorded it, not when its
	// worker returned. The channel holds every event of the run, so none is
	// dropped however far the counter falls behind.
	events, cancelSub := client.SubscribeConfig(&river.SubscribeConfig{
		ChanSize: n + 1,
		Kinds:    []river.EventKind{river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobCancelled},
	})
	defer cancelSub()
	var failed atomic.Int64
	counted := make(chan struct{})
	go func() {
		defer close(counted)
		for e := range events {
			if e.Kind != river.EventKindJobCompleted {
				failed.Add(1)
				continue
			}
			completed.add(e.Job.ID)
		}
	}()

	run := b.begin(ctx, "river", n)
	if err := client.Start(ctx); err != nil {
		return Run{}, err
	}
	var waitErr error
	select {
	case <-completed.all:
	case <-ctx.Done():
		waitErr = ctx.Err()
	}
	b.end(ctx, &run)
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := client.Stop(stopCtx); err != nil && waitErr == nil {
		waitErr = err
	}
	cancelSub()
	<-counted
	if waitErr != nil {
		return run, fmt.Errorf("river: %d of %d jobs completed: %w", completed.done.Load(), n, waitErr)
	}
	missing, twice := completed.check()
	wMissing, wTwice := worked.check()
	var inDB int64
	if err := b.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE state = 'completed'`).Scan(&inDB); err != nil {
		return run, err
	}
	run.Items = int(completed.done.Load())
	run.Checks = []Check{
		{"every job completed once (completion events)", missing == 0 && twice == 0,
			fmt.Sprintf("%d missing, %d more than once", missing, twice)},
		{"every job worked once", wMissing == 0 && wTwice == 0, fmt.Sprintf("%d not worked, %d more than once", wMissing, wTwice)},
		{"no job failed or cancelled", failed.Load() == 0, fmt.Sprintf("%d", failed.Load())},
		{"the table holds every job completed", inDB == int64(n), fmt.Sprintf("%d of %d", inDB, n)},
	}
	return run, nil
}
