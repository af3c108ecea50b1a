package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSweepCounts: a round on each store, by one sweeper and by two at
// once, checks every order once and delivers every paid order's event
// once; the figures the budget reads are filled in. Two rounds interleave
// the stores and the counts.
func TestSweepCounts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	e, err := newSweepEnv(ctx, 300)
	require.NoError(t, err)
	defer e.close()
	assert.Len(t, e.paid, 30, "every tenth")
	dbs := &databases{}
	defer dbs.close()
	runs, err := sweepRounds(ctx, e, []string{"memory", "postgres"}, []int{1, 2}, 2, dbs)
	require.NoError(t, err)
	require.Len(t, runs, 8)
	for i, r := range runs {
		assert.Equal(t, []string{"memory", "postgres"}[i/2%2], r.Store)
		assert.Equal(t, 1+i%2, r.Count())
		assert.Equal(t, 1+i/4, r.Round)
		assert.Equal(t, 300, r.Orders)
		assert.Equal(t, 30, r.Paid)
		assert.Equal(t, 300, r.Checked, r.Store)
		assert.Equal(t, int64(300), r.Requests, r.Store)
		assert.Equal(t, 30, r.Delivered, r.Store)
		assert.Zero(t, r.Twice+r.Wrong+r.Lost+r.Errors, r.Store)
		assert.Positive(t, r.PerSecond)
		assert.Positive(t, r.ByMethod["Lease"], "the store's calls are timed")
		assert.InDelta(t, r.StoreSeconds/r.Seconds, r.StoreShare, 1e-9)
		assert.Positive(t, r.StoreAloneSeconds, "the last batch's record waits for no check")
		assert.LessOrEqual(t, r.StoreAloneSeconds, r.StoreSeconds, "alone is part of the calls' time")
		assert.InDelta(t, r.StoreAloneSeconds/r.Seconds, r.StoreWaitShare, 1e-9)
		assert.NotEmpty(t, r.Load)
		assert.Contains(t, sweepLine(r), fmt.Sprintf("%s round %d, %d sweeper(s)", r.Store, r.Round, r.Count()))
		if r.Store == "memory" {
			assert.Zero(t, r.BackendSamples+r.LockWaits, "no database sampled")
		} else {
			assert.LessOrEqual(t, r.LockWaits, r.BackendSamples)
		}
	}
	_, err = sweepRounds(ctx, e, []string{"redis"}, []int{1}, 1, dbs)
	assert.ErrorContains(t, err, `no store "redis"`)
}

func TestCounts(t *testing.T) {
	got, err := counts(" 1, 4 ,")
	require.NoError(t, err)
	assert.Equal(t, []int{1, 4}, got)
	for _, bad := range []string{"0", "-1", "four"} {
		_, err := counts(bad)
		assert.ErrorContains(t, err, "is not a count of sweepers", bad)
	}
}

func TestFields(t *testing.T) {
	assert.Equal(t, []string{"memory", "postgres"}, fields(" memory, postgres ,"))
	assert.Empty(t, fields(""))
}

// TestSampleWaits: a sampler counts a backend that waits for a row lock
// another transaction holds, at its first sample (taken before it
// returns); on no database it samples nothing.
func TestSampleWaits(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dbs := &databases{}
	defer dbs.close()
	db, err := dbs.postgres(ctx, "waits")
	require.NoError(t, err)
	defer db.Close()
	_, err = db.ExecContext(ctx, `CREATE TABLE t (id INT PRIMARY KEY, n INT); INSERT INTO t VALUES (1, 0)`)
	require.NoError(t, err)
	holder, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	_, err = holder.ExecContext(ctx, `UPDATE t SET n = 1 WHERE id = 1`)
	require.NoError(t, err)
	blocked := make(chan error, 1)
	go func() {
		_, err := db.ExecContext(ctx, `UPDATE t SET n = 2 WHERE id = 1`)
		blocked <- err
	}()
	for waiting := 0; waiting == 0; { // until the second UPDATE waits (bounded by ctx)
		require.NoError(t, db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE wait_event_type = 'Lock' AND datname = current_database()`).Scan(&waiting))
	}
	w, err := sampleWaits(ctx, db)
	require.NoError(t, err)
	samples, locked, err := w.end()
	require.NoError(t, err)
	assert.Positive(t, locked, "the waiting UPDATE seen")
	assert.Equal(t, samples, locked, "the holder, idle in its transaction, is not active")
	require.NoError(t, holder.Commit())
	require.NoError(t, <-blocked)

	none, err := sampleWaits(ctx, nil)
	require.NoError(t, err)
	samples, locked, err = none.end()
	require.NoError(t, err)
	assert.Zero(t, samples+locked)
}
