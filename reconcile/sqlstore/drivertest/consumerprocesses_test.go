package drivertest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/reconciletest"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
)

// TestTwoConsumersKilledMidDelivery runs the mix through four
// sweeper processes on one PostgreSQL: two consumers ("app" and "php"),
// each with two processes, one of which is killed with SIGKILL inside a
// handler, its transaction open, holding leases. Every consumer must get
// every planned event exactly once: the handlers' credits (through
// sqlstore.Tx, no unique key) are the proof, and each event was checked
// and recorded once.
func TestTwoConsumersKilledMidDelivery(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	pl := newProcessLedger(t, ctx)
	n, dsn, db, clk, sb, c, tracker := pl.n, pl.dsn, pl.db, pl.clk, pl.sb, pl.c, pl.tracker
	var err error
	require.NoError(t, err)

	creds := sb.Credentials()
	stallAt := max(n/50, 3)
	var children []*child
	for _, spec := range []struct{ consumer, name string }{{"app", "a"}, {"app", "victim"}, {"php", "a"}, {"php", "victim"}} {
		env := []string{envDSN + "=" + dsn, envURL + "=" + sb.URL(), envMID + "=" + creds.MID, envPublic + "=" + creds.PublicKey,
			envSecret + "=" + creds.SecretKey, envName + "=" + spec.name, envConsumer + "=" + spec.consumer}
		if spec.name == "victim" {
			env = append(env, envStallAt+"="+strconv.Itoa(stallAt))
		}
		children = append(children, startChild(t, spec.consumer+"/"+spec.name, env))
	}
	var (
		sum    reconcile.Stats
		rounds int
		killed []string
	)
	round := func(ctx context.Context, now time.Time) (reconcile.Stats, error) {
		rounds++
		var r reconcile.Stats
		for _, ch := range children {
			if !ch.dead {
				ch.send(t, "step "+strconv.FormatInt(now.UnixNano(), 10))
			}
		}
		for _, ch := range children {
			if ch.dead {
				continue
			}
			reply, err := ch.reply(ctx)
			if err != nil {
				return r, err
			}
			if id, ok := strings.CutPrefix(reply, "stalled "); ok {
				killed = append(killed, fmt.Sprintf("%s in the handler of %s at sandbox %v", ch.name, id, now.Sub(t0)))
				ch.kill(t)
				continue
			}
			var s reconcile.Stats
			if err := json.Unmarshal([]byte(strings.TrimPrefix(reply, "done ")), &s); err != nil {
				return r, fmt.Errorf("sweeper %s: %q: %w", ch.name, reply, err)
			}
			reconciletest.Add(&r, s)
			if r.NextDue.IsZero() || (!s.NextDue.IsZero() && s.NextDue.Before(r.NextDue)) {
				r.NextDue = s.NextDue
			}
		}
		reconciletest.Add(&sum, r)
		return r, nil
	}
	_, err = round(ctx, t0) // every consumer registered before any order
	require.NoError(t, err)
	plan := reconciletest.Plan(n, t0, 99)
	require.NoError(t, reconciletest.Create(ctx, c, sb, clk, plan, func(o reconcile.Order) error { return tracker.Track(ctx, o) }))
	until := t0.Add(100 * time.Hour)
	_, _, err = reconciletest.Walk(ctx, clk, until, round)
	require.NoError(t, err)
	// Rounds after the last check deliver what is left pending (recorded
	// after the other consumer's step, or leased by a killed process).
	for i := 1; i <= 5; i++ {
		now := until.Add(time.Duration(i) * reconcile.DefaultMaxBackoff)
		clk.Set(now)
		_, err := round(ctx, now)
		require.NoError(t, err)
	}
	for _, ch := range children {
		ch.stop(t)
	}
	require.Len(t, killed, 2, "each consumer's victim was killed mid-delivery")

	deliveries, bySweeper, _ := readCredits(t, db)
	byConsumer := map[string][]reconciletest.Delivery{}
	rows, err := db.QueryContext(ctx, `SELECT order_id, result, sweeper, at_ns FROM credits`)
	require.NoError(t, err)
	for rows.Next() {
		var (
			d       reconciletest.Delivery
			sweeper string
			at      int64
		)
		require.NoError(t, rows.Scan(&d.OrderID, &d.Result, &sweeper, &at))
		d.At = time.Unix(0, at).UTC()
		consumer, _, _ := strings.Cut(sweeper, "/")
		byConsumer[consumer] = append(byConsumer[consumer], d)
	}
	require.NoError(t, rows.Err())
	rows.Close()
	require.Len(t, deliveries, len(byConsumer["app"])+len(byConsumer["php"]))
	var eventRows, checks int
	require.NoError(t, db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+sqlstore.EventsTable).Scan(&eventRows))
	require.NoError(t, db.QueryRowContext(ctx, `SELECT COALESCE(SUM(checks), 0) FROM `+sqlstore.OrdersTable).Scan(&checks))
	cs, err := tracker.Consumers(ctx)
	require.NoError(t, err)
	require.Len(t, cs, 2)
	for _, cons := range cs {
		r := reconciletest.Check(plan, byConsumer[cons.Name])
		t.Logf("%d orders, 2 consumers x 2 sweeper processes on one PostgreSQL, killed (SIGKILL): %v; consumer %s: %d events (%v), twice %d, lost %d, wrong %d; "+
			"%d event rows, %d checks recorded (%.2f an order); credits by sweeper %v",
			n, killed, cons.Name, r.Events, r.ByResult, r.Twice, r.Lost, r.Wrong, eventRows, checks, float64(checks)/float64(n), bySweeper)
		assert.Zero(t, r.Twice, "%s: %v", cons.Name, r.Problems)
		assert.Zero(t, r.Lost, "%s: %v", cons.Name, r.Problems)
		assert.Zero(t, r.Wrong, "%s: %v", cons.Name, r.Problems)
		assert.Equal(t, eventRows, r.Events, "%s: one credit per event recorded", cons.Name)
		assert.Equal(t, [2]int{0, eventRows}, [2]int{cons.Pending, cons.Delivered}, cons.Name)
	}
	for _, victim := range []string{"app/victim", "php/victim"} {
		// Its credits before the stalled one committed, but for those of
		// the stalled batch (at most 49 before it: 50 events a
		// transaction), rolled back with it and credited by the others.
		assert.LessOrEqual(t, bySweeper[victim], stallAt-1, "%s: the stalled batch was rolled back with its transaction", victim)
		assert.Greater(t, bySweeper[victim], stallAt-1-50, "%s: the earlier batches committed", victim)
	}
}
