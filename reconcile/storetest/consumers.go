package storetest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

// consumerCases are the suite's cases for consumers (reconcile.WithConsumer).
var consumerCases = []struct {
	name string
	fn   func(t *testing.T, st reconcile.Store)
}{
	{"ConsumersRegisterAndLastSeen", testConsumersRegister},
	{"ConsumersEventPendingForOthersOnly", testConsumersFanOut},
	{"ConsumersFailedHandlerRecordsNoDelivery", testConsumersHandlerFails},
	{"ConsumersDeliveryLeaseAndFencing", testConsumersFencing},
	{"ConsumersDeliveryRetry", testConsumersRetry},
	{"ConsumersRemove", testConsumersRemove},
	{"ConsumersPruneKeepsPending", testConsumersPrune},
	{"ConsumersGetAnOrdersEventsInOrder", testConsumersInOrder},
	{"ConsumersUntrackDropsPending", testConsumersUntrack},
	{"ConsumersBatchDeliversEachInTurn", testConsumersBatch},
}

// testConsumersBatch delivers three pending events to a consumer in one
// CommitDeliveries: the second's handler fails (its retry recorded, it
// alone comes again), the third's lease was lost (its handler not
// called), the first is delivered.
func testConsumersBatch(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	require.NoError(t, st.RegisterConsumer(ctx, "app", T0))
	require.NoError(t, st.RegisterConsumer(ctx, "php", T0))
	for i := 1; i <= 3; i++ {
		l := leaseOne(t, st, order(i), T0, T0)
		require.NoError(t, st.Commit(ctx, l, reconcile.Update{State: reconcile.Paid, Event: paidEvent(order(i), T0), Consumer: "app"},
			func(context.Context) error { return nil }))
	}
	at := T0.Add(time.Minute)
	ds, err := st.LeaseDeliveries(ctx, "php", at, 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, ds, 3)
	slices.SortFunc(ds, func(a, b reconcile.DeliveryLease) int { return strings.Compare(a.Event.Order.ID, b.Event.Order.ID) })
	retaken, err := st.LeaseDeliveries(ctx, "php", at.Add(2*time.Minute), 10, time.Minute)
	require.NoError(t, err, "the leases expired: another sweeper takes them all")
	require.Len(t, retaken, 3)
	retry := reconcile.Retry{Next: at.Add(time.Hour), Failures: 1}
	batch := make([]reconcile.LeasedDelivery, 3)
	for i, r := range retaken {
		// The other sweeper's leases, but for the third order's: lost.
		j := slices.IndexFunc(ds, func(d reconcile.DeliveryLease) bool { return d.Event.Order.ID == r.Event.Order.ID })
		batch[j] = reconcile.LeasedDelivery{Lease: retaken[i], Retry: retry}
	}
	batch[2].Lease = ds[2]
	boom := errors.New("php down")
	var calls []int
	errs, err := st.CommitDeliveries(ctx, batch, func(_ context.Context, i int) error {
		calls = append(calls, i)
		if i == 1 {
			return boom
		}
		return nil
	})
	require.NoError(t, err)
	require.Len(t, errs, 3)
	assert.NoError(t, errs[0])
	assert.ErrorIs(t, errs[1], boom)
	assert.ErrorIs(t, errs[2], reconcile.ErrLeaseLost)
	assert.Equal(t, []int{0, 1}, calls, "in turn, the lost one not called")
	got, err := st.Lookup(ctx, order(1).ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"app", "php"}, got.Events[0].DeliveredTo)
	got, err = st.Lookup(ctx, order(2).ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"app"}, got.Events[0].DeliveredTo)
	again, err := st.LeaseDeliveries(ctx, "php", at.Add(time.Hour), 10, time.Minute)
	require.NoError(t, err)
	var ids []string
	for _, d := range again {
		ids = append(ids, d.Event.Order.ID)
	}
	assert.ElementsMatch(t, []string{order(2).ID, order(3).ID}, ids, "the failed one at its retry, the lost one still pending")
}

// recordFailedThenLatePaid records o's Failed at T0 and LatePaid at T0+1h,
// each delivered by consumer "app": pending for every other consumer.
func recordFailedThenLatePaid(t *testing.T, st reconcile.Store, o reconcile.Order) {
	t.Helper()
	ctx := ctxFor(t)
	l := leaseOne(t, st, o, T0, T0)
	failed := &reconcile.Event{Order: o, Result: reconcile.Failed, At: T0,
		Status: &upicollect.PaymentStatus{OrderID: o.ID, TxnStatus: upicollect.TxnFail}}
	require.NoError(t, st.Commit(ctx, l, reconcile.Update{State: reconcile.Failed, Next: T0.Add(time.Hour), Event: failed, Consumer: "app"},
		func(context.Context) error { return nil }))
	ls, err := st.Lease(ctx, T0.Add(time.Hour), 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, ls, 1)
	late := &reconcile.Event{Order: o, Result: reconcile.LatePaid, At: T0.Add(time.Hour),
		Status: &upicollect.PaymentStatus{OrderID: o.ID, TxnStatus: upicollect.TxnSuccess, Amount: o.Amount, UTR: "412345678901"}}
	require.NoError(t, st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.LatePaid, Event: late, Consumer: "app"},
		func(context.Context) error { return nil }))
}

// testConsumersInOrder: an order's events reach a consumer in the order
// they were recorded: its LatePaid waits while its Failed is pending for
// the consumer, leased or backing off after a failed delivery.
func testConsumersInOrder(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	require.NoError(t, st.RegisterConsumer(ctx, "app", T0))
	require.NoError(t, st.RegisterConsumer(ctx, "php", T0))
	o := order(1)
	recordFailedThenLatePaid(t, st, o)
	at := T0.Add(2 * time.Hour)
	ds, err := st.LeaseDeliveries(ctx, "php", at, 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, ds, 1, "the Failed first, alone")
	assert.Equal(t, reconcile.Failed, ds[0].Event.Result)
	again, err := st.LeaseDeliveries(ctx, "php", at, 10, time.Minute)
	require.NoError(t, err)
	assert.Empty(t, again, "the LatePaid waits while the Failed is leased")
	boom := errors.New("php down")
	require.ErrorIs(t, commitDelivery(ctx, st, ds[0], reconcile.Retry{Next: at.Add(time.Hour), Failures: 1},
		func(context.Context) error { return boom }), boom)
	again, err = st.LeaseDeliveries(ctx, "php", at.Add(time.Minute), 10, time.Minute)
	require.NoError(t, err)
	assert.Empty(t, again, "the LatePaid waits while the Failed backs off")
	ds, err = st.LeaseDeliveries(ctx, "php", at.Add(time.Hour), 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, ds, 1)
	assert.Equal(t, reconcile.Failed, ds[0].Event.Result)
	require.NoError(t, commitDelivery(ctx, st, ds[0], reconcile.Retry{}, func(context.Context) error { return nil }))
	ds, err = st.LeaseDeliveries(ctx, "php", at.Add(time.Hour), 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, ds, 1, "then the LatePaid")
	assert.Equal(t, reconcile.LatePaid, ds[0].Event.Result)
}

// testConsumersUntrack: once Untrack returns, nothing more is delivered for
// the order: its pending deliveries are dropped, for every consumer.
func testConsumersUntrack(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	require.NoError(t, st.RegisterConsumer(ctx, "app", T0))
	require.NoError(t, st.RegisterConsumer(ctx, "php", T0))
	o := order(1)
	l := leaseOne(t, st, o, T0, T0)
	failed := &reconcile.Event{Order: o, Result: reconcile.Failed, At: T0,
		Status: &upicollect.PaymentStatus{OrderID: o.ID, TxnStatus: upicollect.TxnFail}}
	require.NoError(t, st.Commit(ctx, l, reconcile.Update{State: reconcile.Failed, Next: T0.Add(time.Hour), Event: failed, Consumer: "app"},
		func(context.Context) error { return nil }))
	require.Equal(t, 1, consumersByName(t, st)["php"].Pending)
	require.NoError(t, st.Untrack(ctx, o.ID))
	ds, err := st.LeaseDeliveries(ctx, "php", T0.Add(time.Hour), 10, time.Minute)
	require.NoError(t, err)
	assert.Empty(t, ds, "nothing is delivered for an untracked order")
	assert.Equal(t, 0, consumersByName(t, st)["php"].Pending)
	got, err := st.Lookup(ctx, o.ID)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Untracked, got.State)
	require.Len(t, got.Events, 1)
	assert.Equal(t, []string{"app"}, got.Events[0].DeliveredTo)
}

// recordPaid records a Paid event of o at at, delivered by consumer.
func recordPaid(t *testing.T, st reconcile.Store, o reconcile.Order, at time.Time, consumer string) {
	t.Helper()
	l := leaseOne(t, st, o, at, at)
	delivered := 0
	require.NoError(t, st.Commit(ctxFor(t), l, reconcile.Update{State: reconcile.Paid, Event: paidEvent(o, at), Consumer: consumer},
		func(context.Context) error { delivered++; return nil }))
	require.Equal(t, 1, delivered)
}

// consumersByName is st's consumers by name.
func consumersByName(t *testing.T, st reconcile.Store) map[string]reconcile.Consumer {
	t.Helper()
	cs, err := st.Consumers(ctxFor(t))
	require.NoError(t, err)
	out := map[string]reconcile.Consumer{}
	for i, c := range cs {
		if i > 0 {
			require.Less(t, cs[i-1].Name, c.Name, "sorted by name")
		}
		out[c.Name] = c
	}
	return out
}

func testConsumersRegister(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	cs, err := st.Consumers(ctx)
	require.NoError(t, err)
	assert.Empty(t, cs, "an empty store has none")
	require.NoError(t, st.RegisterConsumer(ctx, "b", T0))
	require.NoError(t, st.RegisterConsumer(ctx, "a", T0.Add(time.Minute)))
	require.NoError(t, st.RegisterConsumer(ctx, "b", T0.Add(2*time.Minute)))
	cs, err = st.Consumers(ctx)
	require.NoError(t, err)
	assert.Equal(t, []reconcile.Consumer{
		{Name: "a", LastSeen: T0.Add(time.Minute)},
		{Name: "b", LastSeen: T0.Add(2 * time.Minute)},
	}, cs)
}

func testConsumersFanOut(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	require.NoError(t, st.RegisterConsumer(ctx, "app", T0))
	require.NoError(t, st.RegisterConsumer(ctx, "php", T0))
	o := order(1)
	recordPaid(t, st, o, T0, "app")
	got, err := st.Lookup(ctx, o.ID)
	require.NoError(t, err)
	require.Len(t, got.Events, 1)
	assert.Equal(t, []string{"app"}, got.Events[0].DeliveredTo)

	// Registered after the event: it does not get it.
	require.NoError(t, st.RegisterConsumer(ctx, "late", T0.Add(time.Minute)))
	cs := consumersByName(t, st)
	assert.Equal(t, [3][2]int{{0, 1}, {1, 0}, {0, 0}}, [3][2]int{
		{cs["app"].Pending, cs["app"].Delivered}, {cs["php"].Pending, cs["php"].Delivered}, {cs["late"].Pending, cs["late"].Delivered}})

	for _, c := range []string{"app", "late"} {
		ds, err := st.LeaseDeliveries(ctx, c, T0.Add(time.Hour), 10, time.Minute)
		require.NoError(t, err)
		assert.Empty(t, ds, "%s has nothing pending", c)
	}
	ds, err := st.LeaseDeliveries(ctx, "php", T0.Add(time.Minute), 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, ds, 1)
	d := ds[0]
	assert.Equal(t, "php", d.Consumer)
	require.NotNil(t, d.Event.Status)
	assert.Equal(t, [4]any{o.ID, reconcile.Paid, o.Amount, T0}, [4]any{d.Event.Order.ID, d.Event.Result, d.Event.Status.Amount, d.Event.At.UTC()})
	assert.Equal(t, o.Amount, d.Event.Order.Amount)
	calls := 0
	require.NoError(t, commitDelivery(ctx, st, d, reconcile.Retry{}, func(context.Context) error { calls++; return nil }))
	assert.Equal(t, 1, calls)
	got, err = st.Lookup(ctx, o.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"app", "php"}, got.Events[0].DeliveredTo)
	cs = consumersByName(t, st)
	assert.Equal(t, [2]int{0, 1}, [2]int{cs["php"].Pending, cs["php"].Delivered})
	ds, err = st.LeaseDeliveries(ctx, "php", T0.Add(time.Hour), 10, time.Minute)
	require.NoError(t, err)
	assert.Empty(t, ds, "delivered once")
	require.ErrorIs(t, commitDelivery(ctx, st, d, reconcile.Retry{}, func(context.Context) error { calls++; return nil }), reconcile.ErrLeaseLost)
	assert.Equal(t, 1, calls, "a delivered lease delivers nothing again")
}

func testConsumersHandlerFails(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	require.NoError(t, st.RegisterConsumer(ctx, "app", T0))
	require.NoError(t, st.RegisterConsumer(ctx, "php", T0))
	o := order(1)
	l := leaseOne(t, st, o, T0, T0)
	boom := errors.New("handler down")
	err := st.Commit(ctx, l, reconcile.Update{State: reconcile.Paid, Event: paidEvent(o, T0), Consumer: "app",
		Retry: reconcile.Retry{Next: T0.Add(time.Minute), Failures: 1}}, func(context.Context) error { return boom })
	require.ErrorIs(t, err, boom)
	cs := consumersByName(t, st)
	assert.Equal(t, [2]int{0, 0}, [2]int{cs["php"].Pending, cs["app"].Delivered}, "rolled back: nothing recorded for anyone")
}

func testConsumersFencing(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	require.NoError(t, st.RegisterConsumer(ctx, "app", T0))
	require.NoError(t, st.RegisterConsumer(ctx, "php", T0))
	recordPaid(t, st, order(1), T0, "app")
	recordPaid(t, st, order(2), T0.Add(time.Second), "app")

	first, err := st.LeaseDeliveries(ctx, "php", T0.Add(time.Minute), 1, time.Minute)
	require.NoError(t, err)
	require.Len(t, first, 1)
	assert.Equal(t, order(1).ID, first[0].Event.Order.ID, "earliest first")
	held, err := st.LeaseDeliveries(ctx, "php", T0.Add(90*time.Second), 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, held, 1, "the leased one is not leased again before its lease ends")
	assert.Equal(t, order(2).ID, held[0].Event.Order.ID)

	again, err := st.LeaseDeliveries(ctx, "php", T0.Add(3*time.Minute), 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, again, 2, "expired leases are leased again")
	var retaken reconcile.DeliveryLease
	for _, d := range again {
		if d.Event.Order.ID == order(1).ID {
			retaken = d
		}
	}
	require.NotEqual(t, first[0].Token, retaken.Token, "a fresh token")
	calls := 0
	deliver := func(context.Context) error { calls++; return nil }
	require.ErrorIs(t, commitDelivery(ctx, st, first[0], reconcile.Retry{}, deliver), reconcile.ErrLeaseLost, "fenced out")
	assert.Zero(t, calls, "a lost lease delivers nothing")
	require.NoError(t, commitDelivery(ctx, st, retaken, reconcile.Retry{}, deliver))
	assert.Equal(t, 1, calls)
	cs := consumersByName(t, st)
	assert.Equal(t, [2]int{1, 1}, [2]int{cs["php"].Pending, cs["php"].Delivered})
}

func testConsumersRetry(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	require.NoError(t, st.RegisterConsumer(ctx, "app", T0))
	require.NoError(t, st.RegisterConsumer(ctx, "php", T0))
	recordPaid(t, st, order(1), T0, "app")
	ds, err := st.LeaseDeliveries(ctx, "php", T0, 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, ds, 1)
	boom := errors.New("receiver down")
	retry := reconcile.Retry{Next: T0.Add(5 * time.Minute), Failures: 1}
	require.ErrorIs(t, commitDelivery(ctx, st, ds[0], retry, func(context.Context) error { return boom }), boom)
	cs := consumersByName(t, st)
	assert.Equal(t, [2]int{1, 0}, [2]int{cs["php"].Pending, cs["php"].Delivered}, "still pending")
	early, err := st.LeaseDeliveries(ctx, "php", T0.Add(4*time.Minute), 10, time.Minute)
	require.NoError(t, err)
	assert.Empty(t, early, "not due before the retry's time")
	due, err := st.LeaseDeliveries(ctx, "php", T0.Add(5*time.Minute), 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, due, 1, "due at the retry's time (the failed lease was ended)")
	assert.Equal(t, 1, due[0].Failures)
}

func testConsumersRemove(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	for _, c := range []string{"app", "php", "mail"} {
		require.NoError(t, st.RegisterConsumer(ctx, c, T0))
	}
	recordPaid(t, st, order(1), T0, "app")
	require.NoError(t, st.RemoveConsumer(ctx, "php"))
	require.ErrorIs(t, st.RemoveConsumer(ctx, "php"), reconcile.ErrNoConsumer)
	require.ErrorIs(t, st.RemoveConsumer(ctx, "never"), reconcile.ErrNoConsumer)
	cs := consumersByName(t, st)
	assert.NotContains(t, cs, "php")
	assert.Equal(t, 1, cs["mail"].Pending, "dropped for php alone")
	ds, err := st.LeaseDeliveries(ctx, "php", T0.Add(time.Hour), 10, time.Minute)
	require.NoError(t, err)
	assert.Empty(t, ds)
	// Registered again: it gets what is recorded from then on.
	require.NoError(t, st.RegisterConsumer(ctx, "php", T0.Add(time.Minute)))
	recordPaid(t, st, order(2), T0.Add(time.Minute), "app")
	cs = consumersByName(t, st)
	assert.Equal(t, [2]int{1, 2}, [2]int{cs["php"].Pending, cs["mail"].Pending})
}

func testConsumersPrune(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	require.NoError(t, st.RegisterConsumer(ctx, "app", T0))
	require.NoError(t, st.RegisterConsumer(ctx, "php", T0))
	recordPaid(t, st, order(1), T0, "app")
	ref, _, err := st.Now(ctx)
	require.NoError(t, err)
	before := ref
	if now := time.Now(); now.After(before) {
		before = now
	}
	before = before.Add(1000 * time.Hour)
	n, err := st.Prune(ctx, before)
	require.NoError(t, err)
	assert.Zero(t, n, "an event pending for php keeps its order")
	ds, err := st.LeaseDeliveries(ctx, "php", T0, 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, ds, 1)
	require.NoError(t, commitDelivery(ctx, st, ds[0], reconcile.Retry{}, func(context.Context) error { return nil }))
	n, err = st.Prune(ctx, before)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "delivered to all: pruned")
	cs := consumersByName(t, st)
	assert.Equal(t, [2]int{0, 0}, [2]int{cs["app"].Delivered, cs["php"].Delivered}, "with its deliveries")
}

// commitDelivery is CommitDeliveries of one delivery, its error that
// delivery's.
func commitDelivery(ctx context.Context, st reconcile.Store, d reconcile.DeliveryLease, retry reconcile.Retry, deliver func(context.Context) error) error {
	errs, err := st.CommitDeliveries(ctx, []reconcile.LeasedDelivery{{Lease: d, Retry: retry}}, func(ctx context.Context, _ int) error {
		return deliver(ctx)
	})
	if err != nil {
		return err
	}
	return errs[0]
}
