package main

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/bench/internal/results"
	"github.com/upicollect/upicollect-go/bench/internal/timedstore"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest/pgtest"
	"github.com/upicollect/upicollect-go/sandbox"
)

// TestFigures: a sweep's readings as its counts and figures: the events
// against the paid orders, the rates and shares of the wall time, the CPU
// per check of each reading's difference (per run when nothing was
// checked), the lock waits among the backends' samples.
func TestFigures(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name string
		m    sweepReadings
		want results.SweepRun
	}{{
		name: "postgres",
		m: sweepReadings{
			stats: reconcile.Stats{Checked: 4, Errors: 1, Paid: 3}, elapsed: 2 * time.Second,
			cpu0:  cpuReading{self: 1 * ms, db: 2 * ms, backends: 1 * ms},
			cpu1:  cpuReading{self: 5 * ms, db: 10 * ms, backends: 7 * ms},
			waits: pgtest.WaitCounts{Polls: 4, Samples: 10, By: map[string]int{"Lock:tuple": 2, "Lock:transactionid": 1, "LWLock:WALWrite": 5, "CPU": 2}},
			spent: time.Second, alone: 500 * ms,
			by:       map[string]timedstore.Call{"Lease": {Calls: 2, Spent: 300 * ms}, "CommitMany": {Calls: 1, Spent: 700 * ms}},
			requests: 5,
			seen:     map[string]int{"A": 1, "B": 2, "C": 1},
			paid:     map[string]bool{"A": true, "B": true, "D": true},
		},
		want: results.SweepRun{Store: "postgres", Round: 3, Load: "0.5",
			Checked: 4, Errors: 1, Requests: 5, Delivered: 4, Twice: 1, Wrong: 1, Lost: 1,
			Seconds: 2, PerSecond: 2, StoreSeconds: 1, StoreShare: 0.5, StoreAloneSeconds: 0.5, StoreWaitShare: 0.25,
			ByMethod: map[string]float64{"Lease": 0.3, "CommitMany": 0.7},
			GoMicros: 1000, DBMicros: 2000, BackendsMicros: 1500, BackendSamples: 10, LockWaits: 3},
	}, {
		name: "memory, nothing checked",
		m: sweepReadings{
			elapsed: 500 * ms,
			cpu0:    cpuReading{self: 10 * ms}, cpu1: cpuReading{self: 12 * ms},
			waits: pgtest.WaitCounts{By: map[string]int{}},
			spent: 100 * ms, alone: 50 * ms,
			seen: map[string]int{}, paid: map[string]bool{"A": true, "B": true},
		},
		want: results.SweepRun{Store: "memory", Round: 3, Load: "0.5", Lost: 2,
			Seconds: 0.5, StoreSeconds: 0.1, StoreShare: 0.2, StoreAloneSeconds: 0.05, StoreWaitShare: 0.1,
			ByMethod: map[string]float64{}, GoMicros: 2000},
	}, {
		name: "every paid order's event once, one for an order not paid, none twice",
		m: sweepReadings{
			stats: reconcile.Stats{Checked: 2000}, elapsed: 4 * time.Second,
			cpu0: cpuReading{self: time.Second}, cpu1: cpuReading{self: 3 * time.Second},
			seen: map[string]int{"A": 1, "B": 1, "E": 1}, paid: map[string]bool{"A": true, "B": true},
		},
		want: results.SweepRun{Store: "memory", Round: 3, Load: "0.5", Checked: 2000, Delivered: 3, Wrong: 1,
			Seconds: 4, PerSecond: 500, ByMethod: map[string]float64{}, GoMicros: 1000},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r := results.SweepRun{Store: tc.want.Store, Round: 3, Load: "0.5"}
			figures(&r, tc.m)
			assert.Equal(t, tc.want, r)
		})
	}
}

// TestRusageCPU: the CPU of a rusage is its user and its system time.
func TestRusageCPU(t *testing.T) {
	for _, tc := range []struct {
		user, sys syscall.Timeval
		want      time.Duration
	}{
		{syscall.Timeval{Sec: 2, Usec: 500}, syscall.Timeval{Sec: 1, Usec: 250}, 3*time.Second + 750*time.Microsecond},
		{syscall.Timeval{Usec: 100}, syscall.Timeval{Sec: 1}, time.Second + 100*time.Microsecond},
		{syscall.Timeval{}, syscall.Timeval{}, 0},
	} {
		assert.Equal(t, tc.want, rusageCPU(&syscall.Rusage{Utime: tc.user, Stime: tc.sys}))
	}
}

// TestReadCPU: this process has used CPU, and it does not go back; no
// postmaster is no database CPU.
func TestReadCPU(t *testing.T) {
	c0 := readCPU(0)
	assert.Positive(t, c0.self)
	assert.Zero(t, c0.db)
	assert.Zero(t, c0.backends)
	assert.GreaterOrEqual(t, readCPU(0).self, c0.self)
}

// TestLoadAverage: the machine's one-minute load average is a number.
func TestLoadAverage(t *testing.T) {
	l := loadAverage()
	_, err := strconv.ParseFloat(l, 64)
	assert.NoError(t, err, l)
}

// TestNewSweepEnv: the env's orders, numbered, of 100 rupees and up, their
// intents in the sandbox, every tenth paid.
func TestNewSweepEnv(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := newSweepEnv(ctx, 20)
	require.NoError(t, err)
	defer e.close()
	require.Len(t, e.orders, 20)
	for i, o := range e.orders {
		assert.Equal(t, fmt.Sprintf("SWEEP_%08d", i), o.ID)
		assert.Equal(t, upicollect.Rupees(100+int64(i)), o.Amount, o.ID)
		assert.True(t, o.Created.IsZero(), "set when a round tracks them")
	}
	assert.Equal(t, map[string]bool{"SWEEP_00000000": true, "SWEEP_00000010": true}, e.paid)
	assert.Len(t, e.sb.Orders(), 20)
}

// TestTrack: the orders are tracked one by one on the memory store and in
// transactions of 1,000 on PostgreSQL, each created at the time given; an
// order that fails stops the run with its error, the orders before it
// tracked (on PostgreSQL, those of the transactions committed before).
func TestTrack(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sb := sandbox.New()
	defer sb.Close()
	c := sb.Client()
	defer c.CloseIdleConnections()
	created := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	orders := func(n, bad int) []reconcile.Order {
		out := make([]reconcile.Order, n)
		for i := range out {
			out[i] = reconcile.Order{ID: fmt.Sprintf("TRACK_%05d", i), Amount: upicollect.Rupees(10)}
		}
		if bad >= 0 {
			out[bad].Amount = 0
		}
		return out
	}
	canceled, cancelNow := context.WithCancel(ctx)
	cancelNow()
	for i, tc := range []struct {
		name    string
		kind    string
		ctx     context.Context
		orders  []reconcile.Order
		err     string // "" for none
		tracked int
	}{
		{name: "memory", kind: "memory", ctx: ctx, orders: orders(3, -1), tracked: 3},
		{name: "memory, the second order bad", kind: "memory", ctx: ctx, orders: orders(3, 1), err: "amount", tracked: 1},
		{name: "memory, a canceled context", kind: "memory", ctx: canceled, orders: orders(3, -1), err: "context canceled", tracked: 0},
		{name: "postgres, two transactions", kind: "postgres", ctx: ctx, orders: orders(1001, -1), tracked: 1001},
		{name: "postgres, the second transaction's order bad", kind: "postgres", ctx: ctx, orders: orders(1002, 1001), err: "amount", tracked: 1000},
		{name: "postgres, none: no transaction", kind: "postgres", ctx: canceled, tracked: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var st reconcile.Store = reconcile.NewMemoryStore()
			var db *sql.DB
			if tc.kind == "postgres" {
				var err error
				db, err = testDBs.postgres(ctx, fmt.Sprintf("track_%d", i))
				require.NoError(t, err)
				defer db.Close()
				st, err = sqlstore.New(ctx, db, sqlstore.Postgres)
				require.NoError(t, err)
			}
			sw, err := reconcile.New(c, st, func(context.Context, reconcile.Event) error { return nil })
			require.NoError(t, err)
			err = track(tc.ctx, sw, db, tc.orders, created)
			if tc.err == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, tc.err)
			}
			leases, err := st.Lease(ctx, created.Add(72*time.Hour), 5000, time.Minute)
			require.NoError(t, err)
			assert.Len(t, leases, tc.tracked)
			for _, l := range leases {
				assert.True(t, l.Order.Created.Equal(created), "%s created at %v", l.Order.ID, l.Order.Created)
			}
		})
	}
}
