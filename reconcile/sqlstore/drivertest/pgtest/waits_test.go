package pgtest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest/pgtest"
)

// TestWaitCounts: the shares and the line, from counts made by hand.
func TestWaitCounts(t *testing.T) {
	c := pgtest.WaitCounts{Polls: 10, Samples: 200, By: map[string]int{
		"CPU": 150, "IO:WALSync": 30, "Lock:transactionid": 8, "Lock:tuple": 2, "LWLock:WALWrite": 9, "IPC:ProcArrayGroupUpdate": 1,
	}, Locked: map[string]int{"UPDATE o SET": 7, "WITH clock AS": 3, "DELETE FROM o": 2, "INSERT INTO o": 1}}
	assert.InDelta(t, 0.05, c.Share("Lock:"), 1e-9, "transactionid and tuple, not LWLock")
	assert.InDelta(t, 0.045, c.Share("LWLock:"), 1e-9)
	assert.Equal(t, 10, c.Count("Lock:"))
	assert.Equal(t, 150, c.Count("CPU"))
	assert.Equal(t, "lock waits 5.0% of 200 backend samples in 10 polls: CPU 75%, IO:WALSync 15%, LWLock:WALWrite 4%, Lock:transactionid 4%, Lock:tuple 1%; waiting for locks: 7 in \"UPDATE o SET\", 3 in \"WITH clock AS\", 2 in \"DELETE FROM o\"",
		c.String(), "under 1 % left out; the three statements most seen")
	c.Locked = nil
	assert.Equal(t, "lock waits 5.0% of 200 backend samples in 10 polls: CPU 75%, IO:WALSync 15%, LWLock:WALWrite 4%, Lock:transactionid 4%, Lock:tuple 1%", c.String())
	assert.Zero(t, pgtest.WaitCounts{Polls: 3}.Share("Lock:"))
	assert.Equal(t, "no backend samples", pgtest.WaitCounts{}.String())
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
