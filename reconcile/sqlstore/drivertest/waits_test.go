package drivertest_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
)

// waitEvery is how often a waitSampler reads pg_stat_activity: often
// enough for thousands of samples in a pass of a million orders, seldom
// enough that its own backend's CPU (counted with the backends') stays
// under a microsecond an order.
const waitEvery = 20 * time.Millisecond

// waitSampler samples what the database's other client backends are
// doing while a pass runs: each poll reads pg_stat_activity on a
// connection of its own and counts every active backend of the database
// (but its own) by wait_event_type:wait_event, "CPU" for none (running,
// or waiting for a core).
type waitSampler struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	counts waitCounts
}

// waitCounts is what a waitSampler saw.
type waitCounts struct {
	Polls   int            // reads of pg_stat_activity
	Samples int            // active backends seen, over every poll
	By      map[string]int // samples by wait_event_type:wait_event ("CPU": none)
	// Locked counts the samples waiting for a heavyweight lock (Lock:*)
	// by the statement they ran and what blocked it (each blocker's state
	// and statement; statements by their first and last words, see
	// statementEnds): which statement waits, for what.
	Locked map[string]int
	Err    error // the first read that failed
}

// startWaits starts sampling db's backends until stop; on SQLite it
// samples nothing (stop returns zero counts).
func startWaits(ctx context.Context, t testing.TB, db *sql.DB, d sqlstore.Dialect) *waitSampler {
	t.Helper()
	w := &waitSampler{done: make(chan struct{}), counts: waitCounts{By: map[string]int{}, Locked: map[string]int{}}}
	if d != sqlstore.Postgres {
		close(w.done)
		w.cancel = func() {}
		return w
	}
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	ctx, w.cancel = context.WithCancel(ctx)
	go func() {
		defer close(w.done)
		defer conn.Close()
		tick := time.NewTicker(waitEvery)
		defer tick.Stop()
		for {
			w.poll(ctx, conn)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

// statementEnds is how a waitSampler names a statement: its first and last
// words (the store's statements share their first: WITH clock AS …).
const statementEnds = `CASE WHEN length(a.query) <= 80 THEN a.query ELSE left(a.query, 30) || ' … ' || right(a.query, 50) END`

// poll reads pg_stat_activity once and counts what it saw.
func (w *waitSampler) poll(ctx context.Context, conn *sql.Conn) {
	rows, err := conn.QueryContext(ctx, `SELECT COALESCE(wait_event_type || ':' || wait_event, 'CPU'),
			CASE WHEN wait_event_type = 'Lock' THEN regexp_replace(`+statementEnds+`, '\s+', ' ', 'g') || ' ← ' ||
				COALESCE((SELECT string_agg(b.state || ': ' || regexp_replace(`+strings.ReplaceAll(statementEnds, "a.", "b.")+`, '\s+', ' ', 'g'), ' | ')
					FROM pg_stat_activity b WHERE b.pid = ANY (pg_blocking_pids(a.pid))), 'none')
			ELSE '' END
		FROM pg_stat_activity a
		WHERE backend_type = 'client backend' AND state = 'active' AND pid <> pg_backend_pid() AND datname = current_database()`)
	seen, locked := map[string]int{}, map[string]int{}
	for err == nil && rows.Next() {
		var what, query string
		if err = rows.Scan(&what, &query); err == nil {
			seen[what]++
			if query != "" {
				locked[query]++
			}
		}
	}
	if err == nil {
		err = rows.Err()
	}
	if rows != nil {
		rows.Close()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case err != nil && ctx.Err() != nil: // stopped mid-read
	case err != nil:
		if w.counts.Err == nil {
			w.counts.Err = err
		}
	default:
		w.counts.Polls++
		for what, n := range seen {
			w.counts.By[what] += n
			w.counts.Samples += n
		}
		for query, n := range locked {
			w.counts.Locked[query] += n
		}
	}
}

// stop ends the sampling and returns the counts.
func (w *waitSampler) stop() waitCounts {
	w.cancel()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.counts
}

// share is the part of the samples whose wait_event_type:wait_event
// starts with prefix ("Lock:" for the heavyweight locks: rows, tuples,
// transactions, relations).
func (c waitCounts) share(prefix string) float64 {
	if c.Samples == 0 {
		return 0
	}
	n := 0
	for what, k := range c.By {
		if strings.HasPrefix(what, prefix) {
			n += k
		}
	}
	return float64(n) / float64(c.Samples)
}

// String is the counts as a line: lock waits first, then every kind of
// sample from the most seen, those under 1 % left out.
func (c waitCounts) String() string {
	if c.Polls == 0 {
		return "no backend samples"
	}
	kinds := make([]string, 0, len(c.By))
	for what := range c.By {
		kinds = append(kinds, what)
	}
	sort.Slice(kinds, func(i, j int) bool {
		if c.By[kinds[i]] != c.By[kinds[j]] {
			return c.By[kinds[i]] > c.By[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	var parts []string
	for _, what := range kinds {
		if p := float64(c.By[what]) / float64(c.Samples); p >= 0.01 {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", what, 100*p))
		}
	}
	line := fmt.Sprintf("lock waits %.1f%% of %d backend samples in %d polls (budget ≤ 5%%): %s",
		100*c.share("Lock:"), c.Samples, c.Polls, strings.Join(parts, ", "))
	if len(c.Locked) == 0 {
		return line
	}
	queries := make([]string, 0, len(c.Locked))
	for q := range c.Locked {
		queries = append(queries, q)
	}
	sort.Slice(queries, func(i, j int) bool {
		if c.Locked[queries[i]] != c.Locked[queries[j]] {
			return c.Locked[queries[i]] > c.Locked[queries[j]]
		}
		return queries[i] < queries[j]
	})
	var waiting []string
	for _, q := range queries[:min(3, len(queries))] {
		waiting = append(waiting, fmt.Sprintf("%d in %q", c.Locked[q], q))
	}
	return line + "; waiting for locks: " + strings.Join(waiting, ", ")
}

// cpuRatios says how the CPU per order (Go and database, in µs) of each
// pass with more sweepers than the first compares with that of the last
// pass before it with the first's count (-ledger-sweepers=1,4,1,4: two
// interleaved pairs): a sweeper added should cost no extra work (budget:
// within 10 %).
func cpuRatios(sweepers []int, perOrder []float64) string {
	var parts []string
	base := -1
	for i, k := range sweepers {
		switch {
		case k == sweepers[0]:
			base = i
		case base >= 0 && perOrder[base] > 0:
			parts = append(parts, fmt.Sprintf("%d sweepers %.1f µs = %.2f × %d's %.1f µs", k, perOrder[i], perOrder[i]/perOrder[base], sweepers[base], perOrder[base]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "CPU per order (Go + database): " + strings.Join(parts, "; ") + " (budget within 10 %)"
}

// TestWaitCounts: the shares and the line, from counts made by hand.
func TestWaitCounts(t *testing.T) {
	c := waitCounts{Polls: 10, Samples: 200, By: map[string]int{
		"CPU": 150, "IO:WALSync": 30, "Lock:transactionid": 8, "Lock:tuple": 2, "LWLock:WALWrite": 9, "IPC:ProcArrayGroupUpdate": 1,
	}, Locked: map[string]int{"UPDATE o SET": 7, "WITH clock AS": 3}}
	assert.InDelta(t, 0.05, c.share("Lock:"), 1e-9, "transactionid and tuple, not LWLock")
	assert.InDelta(t, 0.045, c.share("LWLock:"), 1e-9)
	assert.Equal(t, "lock waits 5.0% of 200 backend samples in 10 polls (budget ≤ 5%): CPU 75%, IO:WALSync 15%, LWLock:WALWrite 4%, Lock:transactionid 4%, Lock:tuple 1%; waiting for locks: 7 in \"UPDATE o SET\", 3 in \"WITH clock AS\"",
		c.String(), "under 1 % left out")
	assert.Zero(t, waitCounts{Polls: 3}.share("Lock:"))
	assert.Equal(t, "no backend samples", waitCounts{}.String())
	assert.Equal(t, "CPU per order (Go + database): 4 sweepers 55.0 µs = 1.10 × 1's 50.0 µs; 4 sweepers 40.0 µs = 0.50 × 1's 80.0 µs (budget within 10 %)",
		cpuRatios([]int{1, 4, 1, 4}, []float64{50, 55, 80, 40}), "each against the pass of one before it")
	assert.Empty(t, cpuRatios([]int{1}, []float64{50}))
	assert.Empty(t, cpuRatios([]int{1, 4}, []float64{0, 40}), "no CPU read: no ratio")
}

// TestWaitSampler: while one connection holds a row lock another waits
// for, the sampler sees the waiting backend's Lock:transactionid (or
// Lock:tuple) with the holder's state and statement, and never counts its
// own backend.
func TestWaitSampler(t *testing.T) {
	ctx := testCtx(t)
	_, db := newPostgresDB(t)
	_, err := db.ExecContext(ctx, `CREATE TABLE w (id INT PRIMARY KEY, n INT); INSERT INTO w VALUES (1, 0)`)
	require.NoError(t, err)
	holder, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer func() { _ = holder.Rollback() }()
	_, err = holder.ExecContext(ctx, `UPDATE w SET n = n + 1 WHERE id = 1`)
	require.NoError(t, err)
	blocked := make(chan error, 1)
	go func() {
		_, err := db.ExecContext(ctx, `UPDATE w SET n = n + 1 WHERE id = 1`)
		blocked <- err
	}()
	// Wait (bounded by ctx) until the second update is seen waiting.
	var waiting int
	for waiting == 0 {
		require.NoError(t, db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting))
	}
	w := startWaits(ctx, t, db, sqlstore.Postgres)
	// Stop after the sampler has seen some polls: bounded by ctx.
	for {
		w.mu.Lock()
		polls := w.counts.Polls
		w.mu.Unlock()
		if polls >= 3 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(waitEvery):
		}
	}
	c := w.stop()
	require.NoError(t, c.Err)
	assert.GreaterOrEqual(t, c.Polls, 3)
	assert.Equal(t, c.Polls, c.Samples, "one active backend per poll: the waiting update, not the sampler")
	assert.Equal(t, 1.0, c.share("Lock:"))
	assert.Equal(t, map[string]int{"UPDATE w SET n = n + 1 WHERE id = 1 ← idle in transaction: UPDATE w SET n = n + 1 WHERE id = 1": c.Samples},
		c.Locked, "the waiting statement, and the holder's")
	require.NoError(t, holder.Rollback())
	require.NoError(t, <-blocked)
	assert.Equal(t, waitCounts{By: map[string]int{}, Locked: map[string]int{}}, startWaits(ctx, t, db, sqlstore.SQLite).stop(), "SQLite: nothing sampled")
}

// TestALeaseLocksARowItPassesOver shows, on PostgreSQL, where four
// sweepers' lock waits come from: a lease whose snapshot was taken before
// another sweeper's lease of a row committed still meets that row's old
// version through its old due-index entry; FOR UPDATE SKIP LOCKED then
// locks the row's newest version before it rechecks the conditions, which
// fail (the row is held), so the lease passes the row over but keeps it
// locked until its transaction ends, and the holder's commit of that row
// waits for it. The lease here is the store's statement in its shape,
// held at a gate (an advisory lock, taken after the statement's snapshot)
// while the other lease commits, and kept open after it returns.
func TestALeaseLocksARowItPassesOver(t *testing.T) {
	ctx := testCtx(t)
	c := newClocked(t, sqlstore.Postgres, newPostgresDB)
	for i := 1; i <= 3; i++ {
		require.NoError(t, c.st.Track(ctx, ord(i), t0))
	}
	gate, err := c.db.Conn(ctx)
	require.NoError(t, err)
	defer gate.Close()
	_, err = gate.ExecContext(ctx, `SELECT pg_advisory_lock(4242)`)
	require.NoError(t, err)

	other, err := c.db.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer func() { _ = other.Rollback() }()
	var otherPID int
	require.NoError(t, other.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&otherPID))
	type picked struct {
		ids []string
		err error
	}
	passed := make(chan picked, 1)
	go func() {
		rows, err := other.QueryContext(ctx, `SELECT order_id FROM `+sqlstore.OrdersTable+`
			WHERE (SELECT pg_advisory_xact_lock_shared(4242)::TEXT) IS NOT NULL
				AND due_ns IS NOT NULL AND due_ns <= $1 AND (lease_until_ns IS NULL OR lease_until_ns <= $1)
			ORDER BY due_ns, order_id LIMIT 10 FOR UPDATE SKIP LOCKED`, t0.UnixNano())
		var p picked
		if p.err = err; err == nil {
			for rows.Next() {
				var id string
				if p.err = rows.Scan(&id); p.err != nil {
					break
				}
				p.ids = append(p.ids, id)
			}
			p.err = errors.Join(p.err, rows.Err(), rows.Close())
		}
		passed <- p
	}()
	waitFor(ctx, t, c.db, `SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND wait_event = 'advisory'`, otherPID)

	ls, err := c.st.Lease(ctx, t0, 1, time.Minute)
	require.NoError(t, err)
	require.Len(t, ls, 1)
	require.Equal(t, ord(1).ID, ls[0].Order.ID)
	_, err = gate.ExecContext(ctx, `SELECT pg_advisory_unlock(4242)`)
	require.NoError(t, err)
	p := <-passed
	require.NoError(t, p.err)
	assert.Equal(t, []string{ord(2).ID, ord(3).ID}, p.ids, "the held order passed over")

	committed := make(chan error, 1)
	go func() {
		errs, err := c.st.CommitMany(ctx, []reconcile.LeasedUpdate{{Lease: ls[0], Update: reconcile.Update{State: reconcile.Pending, Next: t0.Add(time.Hour), Checked: true}}}, nil)
		committed <- errors.Join(append(errs, err)...)
	}()
	waitFor(ctx, t, c.db, `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND $1 = ANY (pg_blocking_pids(pid))`, otherPID)
	select {
	case err := <-committed:
		t.Fatalf("the commit did not wait for the lease that passed its row over: %v", err)
	default:
	}
	require.NoError(t, other.Rollback())
	require.NoError(t, <-committed, "the commit goes on once that lease's transaction ends")
}

// waitFor runs query (a count) until it counts one or more, bounded by
// ctx.
func waitFor(ctx context.Context, t *testing.T, db *sql.DB, query string, args ...any) {
	t.Helper()
	for n := 0; n == 0; {
		require.NoError(t, db.QueryRowContext(ctx, query, args...).Scan(&n), query)
	}
}
