package pgtest

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// WaitEvery is how often a WaitSampler reads pg_stat_activity: often
// enough for thousands of samples in a benchmark's pass, seldom enough
// that its own backend's CPU (counted with the backends') stays under a
// microsecond an item.
const WaitEvery = 20 * time.Millisecond

// WaitSampler samples what a database's client backends are doing while a
// benchmark runs: each poll reads pg_stat_activity on a connection of its
// own and counts every active backend of the database (but its own) by
// wait_event_type:wait_event, "CPU" for none (running, or waiting for a
// core).
type WaitSampler struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	counts WaitCounts
}

// WaitCounts is what a WaitSampler saw.
type WaitCounts struct {
	Polls   int            // reads of pg_stat_activity
	Samples int            // active backends seen, over every poll
	By      map[string]int // samples by wait_event_type:wait_event ("CPU": none)
	// Locked counts the samples waiting for a heavyweight lock (Lock:*)
	// by the statement they ran and what blocked it (each blocker's state
	// and statement; a statement by its first and last words): which
	// statement waits, for what.
	Locked map[string]int
	Err    error // the first read that failed
}

// SampleWaits polls db once, on a connection of its own, and goes on
// every WaitEvery until Stop; it fails only when it cannot get that
// connection. On no database (nil) it samples nothing.
func SampleWaits(ctx context.Context, db *sql.DB) (*WaitSampler, error) {
	w := &WaitSampler{done: make(chan struct{}), cancel: func() {}, counts: WaitCounts{By: map[string]int{}, Locked: map[string]int{}}}
	if db == nil {
		close(w.done)
		return w, nil
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	ctx, w.cancel = context.WithCancel(ctx)
	w.poll(ctx, conn) // a failed read is kept for Stop, as any other
	go func() {
		defer close(w.done)
		defer conn.Close()
		tick := time.NewTicker(WaitEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			w.poll(ctx, conn)
		}
	}()
	return w, nil
}

// statementEnds is how a WaitSampler names a statement: its first and last
// words (a store's statements may share their first: WITH clock AS …).
const statementEnds = `CASE WHEN length(a.query) <= 80 THEN a.query ELSE left(a.query, 30) || ' … ' || right(a.query, 50) END`

// poll reads pg_stat_activity once and counts what it saw.
func (w *WaitSampler) poll(ctx context.Context, conn *sql.Conn) {
	seen, locked, err := readActivity(ctx, conn)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.counts.add(seen, locked, err, ctx.Err() != nil)
}

// readActivity reads pg_stat_activity once on conn: the database's active
// client backends (conn's own aside) by wait_event_type:wait_event, and
// those waiting for a heavyweight lock by statement and blocker.
func readActivity(ctx context.Context, conn *sql.Conn) (seen, locked map[string]int, err error) {
	rows, err := conn.QueryContext(ctx, `SELECT COALESCE(wait_event_type || ':' || wait_event, 'CPU'),
			CASE WHEN wait_event_type = 'Lock' THEN regexp_replace(`+statementEnds+`, '\s+', ' ', 'g') || ' ← ' ||
				COALESCE((SELECT string_agg(b.state || ': ' || regexp_replace(`+strings.ReplaceAll(statementEnds, "a.", "b.")+`, '\s+', ' ', 'g'), ' | ')
					FROM pg_stat_activity b WHERE b.pid = ANY (pg_blocking_pids(a.pid))), 'none')
			ELSE '' END
		FROM pg_stat_activity a
		WHERE backend_type = 'client backend' AND state = 'active' AND pid <> pg_backend_pid() AND datname = current_database()`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	seen, locked = map[string]int{}, map[string]int{}
	for rows.Next() {
		var what, query string
		if err := rows.Scan(&what, &query); err != nil {
			return nil, nil, err
		}
		seen[what]++
		if query != "" {
			locked[query]++
		}
	}
	return seen, locked, rows.Err()
}

// add counts one poll's read: its samples, or its error (the first one
// kept), or nothing when the sampler was stopped during the read.
func (c *WaitCounts) add(seen, locked map[string]int, err error, stopped bool) {
	switch {
	case err != nil && stopped:
	case err != nil:
		if c.Err == nil {
			c.Err = fmt.Errorf("pgtest: sampling pg_stat_activity: %w", err)
		}
	default:
		c.Polls++
		for what, n := range seen {
			c.By[what] += n
			c.Samples += n
		}
		for query, n := range locked {
			c.Locked[query] += n
		}
	}
}

// Stop ends the sampling and returns the counts.
func (w *WaitSampler) Stop() WaitCounts {
	w.cancel()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.counts
}

// Count is the samples whose wait_event_type:wait_event starts with
// prefix ("Lock:" for the heavyweight locks: rows, tuples, transactions,
// relations).
func (c WaitCounts) Count(prefix string) int {
	n := 0
	for what, k := range c.By {
		if strings.HasPrefix(what, prefix) {
			n += k
		}
	}
	return n
}

// Share is Count(prefix)'s part of the samples (0 for none).
func (c WaitCounts) Share(prefix string) float64 {
	if c.Samples == 0 {
		return 0
	}
	return float64(c.Count(prefix)) / float64(c.Samples)
}

// String is the counts as a line: lock waits first, then every kind of
// sample from the most seen, those under 1 % left out, then the three
// statements most often seen waiting for a lock.
func (c WaitCounts) String() string {
	if c.Polls == 0 {
		return "no backend samples"
	}
	var parts []string
	for _, what := range mostFirst(c.By) {
		if p := float64(c.By[what]) / float64(c.Samples); p >= 0.01 {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", what, 100*p))
		}
	}
	line := fmt.Sprintf("lock waits %.1f%% of %d backend samples in %d polls: %s",
		100*c.Share("Lock:"), c.Samples, c.Polls, strings.Join(parts, ", "))
	if len(c.Locked) == 0 {
		return line
	}
	queries := mostFirst(c.Locked)
	var waiting []string
	for _, q := range queries[:min(3, len(queries))] {
		waiting = append(waiting, fmt.Sprintf("%d in %q", c.Locked[q], q))
	}
	return line + "; waiting for locks: " + strings.Join(waiting, ", ")
}

// mostFirst is the keys of counts, the most counted first, ties in
// name order.
func mostFirst(counts map[string]int) []string {
	keys := slices.Collect(maps.Keys(counts))
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), strings.Compare(a, b)) })
	return keys
}

// WaitFor runs query, a count, on db until it counts one or more: a test's
// way to wait for a backend to reach a state (waiting for a lock, say),
// bounded by ctx.
func WaitFor(ctx context.Context, tb testing.TB, db *sql.DB, query string, args ...any) {
	tb.Helper()
	for n := 0; n == 0; {
		if err := db.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
			tb.Fatalf("pgtest: waiting for %s: %v", query, err)
		}
	}
}
