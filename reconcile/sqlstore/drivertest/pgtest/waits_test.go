package pgtest_test

import (
	"context"
	"errors"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest/pgtest"
)

// TestWaitCounts: the shares and the line, from counts made by hand:
// kinds and statements the most seen first, ties in name order, a kind of
// 1 % shown and one under it not.
func TestWaitCounts(t *testing.T) {
	c := pgtest.WaitCounts{Polls: 10, Samples: 200, By: map[string]int{
		"CPU": 150, "Lock:transactionid": 12, "IO:WALSync": 12, "LWLock:WALWrite": 21, "Lock:tuple": 2, "IPC:ProcArrayGroupUpdate": 1, "Activity:x": 2,
	}, Locked: map[string]int{"UPDATE o SET": 7, "WITH clock AS": 3, "DELETE FROM o": 7, "INSERT INTO o": 1}}
	assert.InDelta(t, 0.07, c.Share("Lock:"), 1e-9, "transactionid and tuple, not LWLock")
	assert.InDelta(t, 0.105, c.Share("LWLock:"), 1e-9)
	assert.Equal(t, 14, c.Count("Lock:"))
	assert.Equal(t, 150, c.Count("CPU"))
	assert.Equal(t, "lock waits 7.0% of 200 backend samples in 10 polls: CPU 75%, LWLock:WALWrite 10%, IO:WALSync 6%, Lock:transactionid 6%, Activity:x 1%, Lock:tuple 1%; waiting for locks: 7 in \"DELETE FROM o\", 7 in \"UPDATE o SET\", 3 in \"WITH clock AS\"",
		c.String(), "under 1 % left out; the three statements most seen")
	c.Locked = nil
	assert.Equal(t, "lock waits 7.0% of 200 backend samples in 10 polls: CPU 75%, LWLock:WALWrite 10%, IO:WALSync 6%, Lock:transactionid 6%, Activity:x 1%, Lock:tuple 1%", c.String())
	assert.Zero(t, pgtest.WaitCounts{Polls: 3}.Share("Lock:"))
	assert.Equal(t, "no backend samples", pgtest.WaitCounts{}.String())
}

// TestWaitCountsAdd: a poll's read adds its samples; a failed read keeps
// its error (the first one only) and counts no poll; a read cut short by
// the sampler's stop counts nothing. A read on a cancelled context fails.
func TestWaitCountsAdd(t *testing.T) {
	c := pgtest.WaitCounts{By: map[string]int{}, Locked: map[string]int{}}
	first, second := errors.New("first"), errors.New("second")
	pgtest.AddPoll(&c, nil, nil, first, true)
	assert.Equal(t, pgtest.WaitCounts{By: map[string]int{}, Locked: map[string]int{}}, c, "stopped mid-read: nothing")
	pgtest.AddPoll(&c, nil, nil, first, false)
	pgtest.AddPoll(&c, nil, nil, second, false)
	require.ErrorIs(t, c.Err, first, "the first error kept")
	assert.Equal(t, "pgtest: sampling pg_stat_activity: first", c.Err.Error())
	assert.Zero(t, c.Polls)
	pgtest.AddPoll(&c, map[string]int{"CPU": 2, "Lock:tuple": 1}, map[string]int{"UPDATE w": 1}, nil, false)
	pgtest.AddPoll(&c, map[string]int{"CPU": 1}, map[string]int{}, nil, false)
	assert.Equal(t, 2, c.Polls)
	assert.Equal(t, 4, c.Samples)
	assert.Equal(t, map[string]int{"CPU": 3, "Lock:tuple": 1}, c.By)
	assert.Equal(t, map[string]int{"UPDATE w": 1}, c.Locked)

	ctx := testCtx(t)
	_, db := pgtest.Shared(t).NewDB(t)
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	seen, locked, err := pgtest.ReadActivity(ctx, conn)
	require.NoError(t, err)
	assert.Empty(t, seen, "no other backend active, its own left out")
	assert.Empty(t, locked)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, _, err = pgtest.ReadActivity(cancelled, conn)
	assert.ErrorIs(t, err, context.Canceled)
}

// TestWaitSampler: while one connection holds a row lock another waits
// for, the sampler sees the waiting backend's Lock:transactionid (or
// Lock:tuple) with the holder's state and statement, from its first poll
// (made before SampleWaits returns), and never counts its own backend. On
// no database it samples nothing; on a closed one it fails.
func TestWaitSampler(t *testing.T) {
	ctx := testCtx(t)
	_, db := pgtest.Shared(t).NewDB(t)
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
	pgtest.WaitFor(ctx, t, db, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)
	w, err := pgtest.SampleWaits(ctx, db)
	require.NoError(t, err)
	c := w.Stop()
	require.NoError(t, c.Err)
	assert.Positive(t, c.Polls, "the first poll, made at the start")
	assert.Equal(t, c.Polls, c.Samples, "one active backend per poll: the waiting update, not the sampler")
	assert.Equal(t, 1.0, c.Share("Lock:"))
	assert.Equal(t, map[string]int{"UPDATE w SET n = n + 1 WHERE id = 1 ← idle in transaction: UPDATE w SET n = n + 1 WHERE id = 1": c.Samples},
		c.Locked, "the waiting statement, and the holder's")
	require.NoError(t, holder.Rollback())
	require.NoError(t, <-blocked)

	none, err := pgtest.SampleWaits(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, pgtest.WaitCounts{By: map[string]int{}, Locked: map[string]int{}}, none.Stop(), "no database: nothing sampled")
	require.NoError(t, db.Close())
	_, err = pgtest.SampleWaits(ctx, db)
	assert.Error(t, err, "a closed database")
}

// TestWaitSamplerKeepsAFailedRead: a read that fails while the sampler
// runs (here its backend is terminated) is kept, and Stop returns it.
func TestWaitSamplerKeepsAFailedRead(t *testing.T) {
	ctx := testCtx(t)
	_, db := pgtest.Shared(t).NewDB(t)
	w, err := pgtest.SampleWaits(ctx, db)
	require.NoError(t, err)
	var terminated bool
	require.NoError(t, db.QueryRowContext(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%pg_blocking_pids(a.pid)%'`).Scan(&terminated))
	require.True(t, terminated, "the sampler's backend")
	for pgtest.Sampled(w).Err == nil { // until the next read fails, bounded by ctx
		require.NoError(t, ctx.Err())
		runtime.Gosched()
	}
	c := w.Stop()
	assert.ErrorContains(t, c.Err, "pgtest: sampling pg_stat_activity")
	assert.Positive(t, c.Polls, "the reads before it counted")
}

// TestWaitFor: WaitFor runs its query until it counts one or more, and no
// more: a sequence counts its calls.
func TestWaitFor(t *testing.T) {
	ctx := testCtx(t)
	_, db := pgtest.Shared(t).NewDB(t)
	_, err := db.ExecContext(ctx, `CREATE SEQUENCE calls`)
	require.NoError(t, err)
	pgtest.WaitFor(ctx, t, db, `SELECT CASE WHEN nextval('calls') >= $1 THEN 1 ELSE 0 END`, 3)
	var calls int
	require.NoError(t, db.QueryRowContext(ctx, `SELECT last_value FROM calls`).Scan(&calls))
	assert.Equal(t, 3, calls, "asked until it counted one, then no more")
}
