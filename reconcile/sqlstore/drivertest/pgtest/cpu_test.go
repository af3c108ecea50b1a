package pgtest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest/pgtest"
)

// TestCPU: a statement's work shows in the server's CPU and in its client
// backends' share of it; no server, no CPU.
func TestCPU(t *testing.T) {
	ctx := testCtx(t)
	s := pgtest.Shared(t)
	_, db := s.NewDB(t)
	require.NoError(t, db.PingContext(ctx))
	all0, be0 := s.CPU()
	var sum int64
	// About a second of a backend's CPU: far more than a 10 ms tick.
	require.NoError(t, db.QueryRowContext(ctx, "SELECT sum(i) FROM generate_series(1, 10000000) AS i").Scan(&sum))
	all1, be1 := s.CPU()
	assert.Greater(t, be1, be0, "the backend's work")
	assert.Greater(t, all1, all0, "the server's")
	assert.GreaterOrEqual(t, all1, be1, "backends are part of the server")
	all, be := pgtest.ProcessCPU(0)
	assert.Zero(t, all)
	assert.Zero(t, be)
}
