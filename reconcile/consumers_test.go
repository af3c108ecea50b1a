package reconcile_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/reconciletest"
)

// failOnce wraps h so that it fails the first delivery of each order
// whose id ends in 3.
func failOnce(h reconcile.Handler) reconcile.Handler {
	var seen sync.Map
	return func(ctx context.Context, e reconcile.Event) error {
		id := e.Order.ID
		if _, again := seen.LoadOrStore(id+"/"+string(e.Result), true); !again && id[len(id)-1] == '3' {
			return errReceiverDown
		}
		return h(ctx, e)
	}
}

// errReceiverDown is the error a flaky receiver fails a delivery with.
var errReceiverDown = errors.New("receiver down once")

// stepAll steps every sweeper at now at once; its receivers' errReceiverDown
// is expected and let through, any other error fails the test.
func stepAll(ctx context.Context, t *testing.T, sweepers []*reconcile.Sweeper, now time.Time) reconcile.Stats {
	t.Helper()
	sum, errs := reconciletest.StepAll(ctx, sweepers, now)
	require.NoError(t, reconciletest.Unexpected(errs, errReceiverDown))
	return sum
}

// TestConsumersEachGetEveryEvent runs four sweepers over one memory store
// and 200 orders of every fate: with two consumers (two sweepers each),
// each consumer gets every event exactly once; with one shared consumer,
// every event is delivered once in all. The second consumer's receiver
// fails the first delivery of a tenth of the orders. Events are checked
// once: the checks made are those of one sweeper's schedule.
func TestConsumersEachGetEveryEvent(t *testing.T) {
	for _, tc := range []struct {
		name      string
		consumers []string // per sweeper
	}{
		{"two consumers", []string{"app", "app", "php", "php"}},
		{"one shared consumer", []string{"app", "app", "app", "app"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			ctx := boundedCtx(t)
			plan := reconciletest.Plan(200, t0, 3)
			st := reconcile.NewMemoryStore()
			recs := map[string]*reconciletest.Recorder{}
			var sweepers []*reconcile.Sweeper
			for _, c := range tc.consumers {
				if recs[c] == nil {
					recs[c] = &reconciletest.Recorder{}
				}
				h := recs[c].Handle
				if c == "php" {
					h = failOnce(h)
				}
				sw, err := reconcile.New(e.client, st, h, reconcile.WithConsumer(c), reconcile.WithBatchSize(16), reconcile.WithConcurrency(2))
				require.NoError(t, err)
				sweepers = append(sweepers, sw)
			}
			stepAll(ctx, t, sweepers, t0) // registers every consumer before any event
			require.NoError(t, reconciletest.Create(ctx, e.client, e.sb, e.clk, plan, func(o reconcile.Order) error { return sweepers[0].Track(ctx, o) }))
			until := t0.Add(100 * time.Hour)
			_, _, err := reconciletest.Walk(ctx, e.clk, until, func(ctx context.Context, now time.Time) (reconcile.Stats, error) {
				return stepAll(ctx, t, sweepers, now), nil
			})
			require.NoError(t, err)
			// Steps after the last check deliver what is still pending
			// (recorded by one sweeper after the other's step, or retried).
			for i := 1; i <= 10; i++ {
				stepAll(ctx, t, sweepers, until.Add(time.Duration(i)*reconcile.DefaultMaxBackoff))
			}
			checks := e.checks(t0)
			cs, err := sweepers[0].Consumers(ctx)
			require.NoError(t, err)
			require.Len(t, cs, len(recs))
			for _, c := range cs {
				r := reconciletest.Check(plan, recs[c.Name].Deliveries())
				assert.Zero(t, r.Twice, "%s: %v", c.Name, r.Problems)
				assert.Zero(t, r.Lost, "%s: %v", c.Name, r.Problems)
				assert.Zero(t, r.Wrong, "%s: %v", c.Name, r.Problems)
				assert.Equal(t, [2]int{0, r.Events}, [2]int{c.Pending, c.Delivered}, c.Name)
				t.Logf("%s: consumer %s got %d events for %d orders: %d twice, %d lost, %d wrong; %d status checks in all",
					tc.name, c.Name, r.Events, r.Orders, r.Twice, r.Lost, r.Wrong, checks)
			}
			// Lookup shows, per event, the consumers it reached.
			got, err := sweepers[0].Lookup(ctx, plan[0].Order.ID)
			require.NoError(t, err)
			require.NotEmpty(t, got.Events)
			for _, ev := range got.Events {
				assert.Len(t, ev.DeliveredTo, len(recs))
			}
		})
	}
}

// TestConsumersRegisterOnConfirmAndRemove: an event Confirm records is
// delivered to its sweeper's consumer at once and to the other at that
// one's next step, without another check; a first Confirm registers its
// consumer; RemoveConsumer ends a registration.
func TestConsumersRegisterOnConfirmAndRemove(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	st := reconcile.NewMemoryStore()
	var app, php events
	swApp, err := reconcile.New(e.client, st, app.handle, reconcile.WithConsumer("app"), reconcile.WithClock(e.clk.Now))
	require.NoError(t, err)
	swPHP, err := reconcile.New(e.client, st, php.handle, reconcile.WithConsumer("php"), reconcile.WithClock(e.clk.Now))
	require.NoError(t, err)
	_, err = swPHP.Step(ctx, e.clk.Now()) // registers php: nothing is tracked yet
	require.NoError(t, err)
	o := e.intent(t, "ord-c1", 24900)
	require.NoError(t, swApp.Track(ctx, o))
	e.payLater(t, o.ID, 24900, 0)
	got, err := swApp.Confirm(ctx, o.ID)
	require.NoError(t, err)
	require.Equal(t, reconcile.Paid, got.State)
	assert.Equal(t, []reconcile.Result{reconcile.Paid}, app.results(o.ID))
	assert.Empty(t, php.results(o.ID), "not yet: php's sweeper has not stepped")
	cs, err := swApp.Consumers(ctx)
	require.NoError(t, err)
	require.Len(t, cs, 2)
	assert.Equal(t, [4]int{1, 0, 0, 1}, [4]int{cs[0].Delivered, cs[0].Pending, cs[1].Delivered, cs[1].Pending})
	stats, err := swPHP.Step(ctx, e.clk.Now())
	require.NoError(t, err)
	assert.Equal(t, 1, stats.Paid, "delivered by php's step")
	assert.Equal(t, []reconcile.Result{reconcile.Paid}, php.results(o.ID))
	assert.Zero(t, e.checks(e.clk.Now().Add(time.Nanosecond)), "without another check")

	// A sweeper's first Confirm registers its consumer, even of a final order.
	swMail, err := reconcile.New(e.client, st, (&events{}).handle, reconcile.WithConsumer("mail"))
	require.NoError(t, err)
	_, err = swMail.Confirm(ctx, o.ID)
	require.NoError(t, err)
	cs, err = swApp.Consumers(ctx)
	require.NoError(t, err)
	require.Len(t, cs, 3)
	assert.Equal(t, "mail", cs[1].Name)

	require.NoError(t, swApp.RemoveConsumer(ctx, "mail"))
	require.NoError(t, swApp.RemoveConsumer(ctx, "php"))
	require.ErrorIs(t, swApp.RemoveConsumer(ctx, "php"), reconcile.ErrNoConsumer)
	cs, err = swApp.Consumers(ctx)
	require.NoError(t, err)
	require.Len(t, cs, 1)
	assert.Equal(t, "app", cs[0].Name)
}

func TestWithConsumerRefusesBadNames(t *testing.T) {
	e := newEnv(t)
	for _, name := range []string{"", "a\x00b", "tab\there", string(make([]byte, reconcile.MaxConsumerNameLen+1)), "\xff"} {
		_, err := reconcile.New(e.client, reconcile.NewMemoryStore(), (&events{}).handle, reconcile.WithConsumer(name))
		assert.ErrorContains(t, err, "WithConsumer", "%q", name)
	}
	_, err := reconcile.New(e.client, reconcile.NewMemoryStore(), (&events{}).handle, reconcile.WithConsumer("exec:a1b2c3"))
	assert.NoError(t, err)
}

func TestConsumerStale(t *testing.T) {
	now := t0.Add(time.Hour)
	for _, tc := range []struct {
		c    reconcile.Consumer
		want bool
	}{
		{reconcile.Consumer{Pending: 1, LastSeen: now.Add(-time.Minute)}, true},
		{reconcile.Consumer{Pending: 1, LastSeen: now.Add(-30 * time.Second)}, false},
		{reconcile.Consumer{Pending: 0, LastSeen: now.Add(-time.Hour)}, false},
		{reconcile.Consumer{Pending: 1}, true},
	} {
		assert.Equal(t, tc.want, tc.c.Stale(now, 30*time.Second), "%+v", tc.c)
	}
}

// TestPendingDeliveryRetryIsNextDue: a pending delivery whose handler
// fails is due again after a backoff, and a step reports that time in
// Stats.NextDue when nothing is due sooner, so that a caller stepping at
// NextDue delivers it.
func TestPendingDeliveryRetryIsNextDue(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	st := reconcile.NewMemoryStore()
	var app, php events
	swApp, err := reconcile.New(e.client, st, app.handle, reconcile.WithConsumer("app"), reconcile.WithClock(e.clk.Now))
	require.NoError(t, err)
	fails := 1
	swPHP, err := reconcile.New(e.client, st, func(ctx context.Context, ev reconcile.Event) error {
		if fails > 0 {
			fails--
			return errors.New("receiver down")
		}
		return php.handle(ctx, ev)
	}, reconcile.WithConsumer("php"), reconcile.WithClock(e.clk.Now))
	require.NoError(t, err)
	_, err = swPHP.Step(ctx, e.clk.Now())
	require.NoError(t, err)
	o := e.intent(t, "ord-r1", 24900)
	require.NoError(t, swApp.Track(ctx, o))
	e.payLater(t, o.ID, 24900, 0)
	_, err = swApp.Confirm(ctx, o.ID)
	require.NoError(t, err)
	now := e.clk.Now()
	stats, err := swPHP.Step(ctx, now)
	require.ErrorContains(t, err, "receiver down")
	assert.Equal(t, 1, stats.Errors)
	assert.Equal(t, now.Add(reconcile.DefaultStepInterval), stats.NextDue, "the retry, the earliest thing due")
	e.clk.Set(stats.NextDue)
	stats, err = swPHP.Step(ctx, stats.NextDue)
	require.NoError(t, err)
	assert.Equal(t, 1, stats.Paid)
	assert.Equal(t, []reconcile.Result{reconcile.Paid}, php.results(o.ID))
}
