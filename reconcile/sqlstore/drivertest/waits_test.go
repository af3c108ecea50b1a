package drivertest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest/pgtest"
)

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

// TestCPURatios: each pass of more sweepers against the last pass of the
// first count before it.
func TestCPURatios(t *testing.T) {
	assert.Equal(t, "CPU per order (Go + database): 4 sweepers 55.0 µs = 1.10 × 1's 50.0 µs; 4 sweepers 40.0 µs = 0.50 × 1's 80.0 µs (budget within 10 %)",
		cpuRatios([]int{1, 4, 1, 4}, []float64{50, 55, 80, 40}), "each against the pass of one before it")
	assert.Empty(t, cpuRatios([]int{1}, []float64{50}))
	assert.Empty(t, cpuRatios([]int{1, 4}, []float64{0, 40}), "no CPU read: no ratio")
}

// TestALeaseLocksARowItPassesOver shows, on PostgreSQL, where four
// sweepers' lock waits come from: a lease whose snapshot was taken before
// another sweeper's lease of a row committed still meets that row's old
// version (the one its snapshot sees); FOR UPDATE SKIP LOCKED then
// locks the row's newest version before it rechecks the conditions, which
// fail (the row is held), so the lease passes the row over but keeps it
// locked until its transaction ends, and the holder's commit of that row
// waits for it. The lease here is the store's picking statement in its
// shape (ordered by order_id too, for a fixed answer), held at a gate (an
// advisory lock, taken after the statement's snapshot) while the other
// lease commits, and kept open after it returns.
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
	// On a failure while the gate is closed, open it first (deferred
	// last, run first), or the rollback would wait for the gated lease.
	defer func() { _, _ = gate.ExecContext(context.Background(), `SELECT pg_advisory_unlock_all()`) }()
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
	pgtest.WaitFor(ctx, t, c.db, `SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND wait_event = 'advisory'`, otherPID)

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
	pgtest.WaitFor(ctx, t, c.db, `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND $1 = ANY (pg_blocking_pids(pid))`, otherPID)
	select {
	case err := <-committed:
		t.Fatalf("the commit did not wait for the lease that passed its row over: %v", err)
	default:
	}
	require.NoError(t, other.Rollback())
	require.NoError(t, <-committed, "the commit goes on once that lease's transaction ends")
}
