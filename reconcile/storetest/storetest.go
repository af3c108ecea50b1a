// Package storetest holds the rules every reconcile.Store must follow, as
// a test suite: a Store implementation's tests call Run with a constructor
// of empty stores. Besides the Store's own calls, the suite runs a Sweeper
// on the store against status answers served over loopback HTTP: an
// answer that does not name its order, or names another one, settles
// nothing on any store.
package storetest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/clock"
	"github.com/upicollect/upicollect-go/reconcile"
)

// T0 is the time the suite's orders are created at.
var T0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// bound bounds every test's waits, so that a store that blocks fails
// instead of hanging.
const bound = 30 * time.Second

// Run runs the suite on stores without a clock of their own (Now's ok is
// false), or whose clock newStore sets up itself; newStore returns an
// empty store each time it is called. Options of the implementation under
// test go in newStore.
func Run(t *testing.T, newStore func(t *testing.T) reconcile.Store) {
	run(t, newStore)
}

// RunClocked runs the suite on stores that keep a clock of their own
// (leases measured on it): newStore builds each store on the clock now,
// which the suite sets to the time it passes to Lease, LeaseOrder and
// Extend before each call, so that the store's time and the suite's
// agree.
func RunClocked(t *testing.T, newStore func(t *testing.T, now func() time.Time) reconcile.Store) {
	run(t, func(t *testing.T) reconcile.Store {
		c := clock.NewManual(T0)
		return &clocked{Store: newStore(t, c.Now), clock: c}
	})
}

func run(t *testing.T, newStore func(t *testing.T) reconcile.Store) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, st reconcile.Store)
	}{
		{"TrackAndLeaseWhenDue", testTrackAndLease},
		{"TrackTwiceKeepsTheFirst", testTrackTwice},
		{"LeaseLimitAndOrder", testLeaseLimitAndOrder},
		{"LeaseHoldsUntilItExpires", testLeaseExpiry},
		{"CommitWithoutEvent", testCommitWithoutEvent},
		{"CommitDone", testCommitDone},
		{"DeliverErrorRecordsNothing", testDeliverError},
		{"DeliverErrorRecordsTheRetry", testDeliverRetry},
		{"DeliverHoldsTheOrder", testDeliverHolds},
		{"ReleaseReschedules", testRelease},
		{"ReleaseMany", testReleaseMany},
		{"FailuresChecksAndReason", testFailuresChecksReason},
		{"LeaseOrder", testLeaseOrder},
		{"LeaseOrderDone", testLeaseOrderDone},
		{"ExtendRenewsTheLease", testExtend},
		{"ExtendPastOthersDueTimes", testExtendPastOthers},
		{"CommitManyWithOneLeaseLost", testCommitMany},
		{"CommitManyDeliversEachEventInTurn", testCommitManyEvents},
		{"CommitManyHoldsEveryOrder", testCommitManyHolds},
		{"ConcurrentBatchesDeliverOnce", testConcurrentBatchesOnce},
		{"LookupListCounts", testLookupListCounts},
		{"ListPages", testListPages},
		{"Untrack", testUntrack},
		{"UntrackWaitsForTheDelivery", testUntrackWaits},
		{"Prune", testPrune},
		{"ConcurrentSweepersDeliverOnce", testConcurrentOnce},
		{"ConfirmRacingSweepersDeliverOnce", testConfirmRacingSweepers},
		{"HostileIDs", testHostileIDs},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
	for _, tc := range consumerCases {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
	t.Run("AnswersNotNamingTheOrderSettleNothing", func(t *testing.T) { testAnswers(t, newStore) })
}

// clocked moves its store's clock to the time of each call that takes one,
// in UTC.
type clocked struct {
	reconcile.Store
	clock *clock.Manual // the suite Sets it; the store's WithClock reads Now
}

func (c *clocked) Lease(ctx context.Context, now time.Time, limit int, ttl time.Duration) ([]reconcile.Lease, error) {
	c.clock.Set(now.UTC())
	return c.Store.Lease(ctx, now, limit, ttl)
}

func (c *clocked) LeaseOrder(ctx context.Context, id string, now time.Time, ttl time.Duration) (reconcile.Lease, error) {
	c.clock.Set(now.UTC())
	return c.Store.LeaseOrder(ctx, id, now, ttl)
}

func (c *clocked) Extend(ctx context.Context, l reconcile.Lease, now time.Time, ttl time.Duration) error {
	c.clock.Set(now.UTC())
	return c.Store.Extend(ctx, l, now, ttl)
}

func (c *clocked) RegisterConsumer(ctx context.Context, name string, now time.Time) error {
	c.clock.Set(now.UTC())
	return c.Store.RegisterConsumer(ctx, name, now)
}

func (c *clocked) LeaseDeliveries(ctx context.Context, consumer string, now time.Time, limit int, ttl time.Duration) ([]reconcile.DeliveryLease, error) {
	c.clock.Set(now.UTC())
	return c.Store.LeaseDeliveries(ctx, consumer, now, limit, ttl)
}

func (c *clocked) NextDue(ctx context.Context, now time.Time) (time.Time, bool, error) {
	c.clock.Set(now.UTC())
	return c.Store.NextDue(ctx, now)
}

// RunTx runs TrackTx's cases on a store with SQL transactions: newStore
// returns an empty store and the database it keeps its orders in.
func RunTx(t *testing.T, newStore func(t *testing.T) (reconcile.Store, *sql.DB)) {
	t.Run("TrackTxCommitted", func(t *testing.T) {
		st, db := newStore(t)
		ctx := ctxFor(t)
		tx, err := db.BeginTx(ctx, nil)
		require.NoError(t, err)
		require.NoError(t, st.TrackTx(ctx, tx, order(1), T0))
		require.NoError(t, st.TrackTx(ctx, tx, order(1), T0), "the same order again in the transaction")
		other := order(1)
		other.Amount++
		require.ErrorIs(t, st.TrackTx(ctx, tx, other, T0), reconcile.ErrTrackedDifferently)
		require.NoError(t, tx.Commit())
		got, err := st.Lookup(ctx, order(1).ID)
		require.NoError(t, err)
		assert.Equal(t, order(1).Amount, got.Order.Amount)
		ls, err := st.Lease(ctx, T0, 10, time.Minute)
		require.NoError(t, err)
		assert.Equal(t, []string{order(1).ID}, ids(ls))
		require.ErrorIs(t, st.Track(ctx, other, T0), reconcile.ErrTrackedDifferently)
	})
	t.Run("TrackTxHostileIDs", func(t *testing.T) {
		st, db := newStore(t)
		testTrackTxHostileIDs(t, st, db)
	})
	t.Run("TrackTxRolledBack", func(t *testing.T) {
		st, db := newStore(t)
		ctx := ctxFor(t)
		tx, err := db.BeginTx(ctx, nil)
		require.NoError(t, err)
		require.NoError(t, st.TrackTx(ctx, tx, order(2), T0))
		require.NoError(t, tx.Rollback())
		_, err = st.Lookup(ctx, order(2).ID)
		require.ErrorIs(t, err, reconcile.ErrNotTracked, "tracked only if the transaction commits")
		ls, err := st.Lease(ctx, T0.Add(time.Hour), 10, time.Minute)
		require.NoError(t, err)
		assert.Empty(t, ls)
	})
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	t.Cleanup(cancel)
	return ctx
}

func order(i int) reconcile.Order {
	return reconcile.Order{ID: fmt.Sprintf("ord-%04d", i), Amount: upicollect.Rupees(int64(100 + i)), Created: T0}
}

func ids(ls []reconcile.Lease) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Order.ID
	}
	return out
}

func testTrackAndLease(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	_, ok, err := st.NextDue(ctx, T0)
	require.NoError(t, err)
	assert.False(t, ok, "an empty store has nothing due")

	o := order(1)
	due := T0.Add(10 * time.Second)
	require.NoError(t, st.Track(ctx, o, due))
	next, ok, err := st.NextDue(ctx, T0)
	require.NoError(t, err)
	require.True(t, ok)
	assert.True(t, due.Equal(next), "next due %v", next)

	ls, err := st.Lease(ctx, due.Add(-time.Nanosecond), 10, time.Minute)
	require.NoError(t, err)
	assert.Empty(t, ls, "not due yet")
	ls, err = st.Lease(ctx, due, 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, ls, 1)
	l := ls[0]
	assert.Equal(t, o.ID, l.Order.ID)
	assert.Equal(t, o.Amount, l.Order.Amount)
	assert.True(t, o.Created.Equal(l.Order.Created))
	assert.Equal(t, reconcile.Pending, l.State)
	assert.True(t, due.Equal(l.Due))
	assert.NotEmpty(t, l.Token)
}

func testTrackTwice(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	o := order(1)
	require.NoError(t, st.Track(ctx, o, T0.Add(time.Second)))
	require.NoError(t, st.Track(ctx, o, T0.Add(time.Hour)), "the same order again is a no-op")
	other := o
	other.Amount = upicollect.Rupees(1)
	require.ErrorIs(t, st.Track(ctx, other, T0.Add(time.Hour)), reconcile.ErrTrackedDifferently)
	ls, err := st.Lease(ctx, T0.Add(time.Second), 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, ls, 1)
	assert.Equal(t, o.Amount, ls[0].Order.Amount, "the first Track wins")
}

func testLeaseLimitAndOrder(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	for i := 5; i >= 1; i-- { // tracked latest-due first
		require.NoError(t, st.Track(ctx, order(i), T0.Add(time.Duration(i)*time.Second)))
	}
	now := T0.Add(10 * time.Second)
	ls, err := st.Lease(ctx, now, 2, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, []string{"ord-0001", "ord-0002"}, ids(ls), "earliest due first")
	ls, err = st.Lease(ctx, now, 10, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, []string{"ord-0003", "ord-0004", "ord-0005"}, ids(ls), "leased ones are not leased again")
	ls, err = st.Lease(ctx, now, 10, time.Minute)
	require.NoError(t, err)
	assert.Empty(t, ls)
}

func testLeaseExpiry(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	require.NoError(t, st.Track(ctx, order(1), T0))
	until := T0.Add(time.Minute)
	first, err := st.Lease(ctx, T0, 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, first, 1)
	next, ok, err := st.NextDue(ctx, T0)
	require.NoError(t, err)
	require.True(t, ok)
	assert.True(t, until.Equal(next), "a leased order can next be leased when its lease expires")

	again, err := st.Lease(ctx, until.Add(-time.Nanosecond), 10, time.Minute)
	require.NoError(t, err)
	assert.Empty(t, again, "held until the lease expires")
	again, err = st.Lease(ctx, until, 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, again, 1, "a lease whose holder died expires")
	assert.NotEqual(t, first[0].Token, again[0].Token)

	// The first holder's outcome is dropped whole.
	delivered := false
	err = st.Commit(ctx, first[0], reconcile.Update{State: reconcile.Paid, Event: &reconcile.Event{Order: order(1), Result: reconcile.Paid, At: T0}},
		func(context.Context) error { delivered = true; return nil })
	require.ErrorIs(t, err, reconcile.ErrLeaseLost)
	assert.False(t, delivered, "an outcome under a lost lease is never delivered")
	require.NoError(t, st.Release(ctx, first[0]), "releasing a lost lease changes nothing")
	// The second holder's stands.
	require.NoError(t, st.Commit(ctx, again[0], reconcile.Update{State: reconcile.Pending, Next: until.Add(time.Hour)}, nil))
	next, ok, err = st.NextDue(ctx, T0)
	require.NoError(t, err)
	require.True(t, ok)
	assert.True(t, until.Add(time.Hour).Equal(next))
}

func testCommitWithoutEvent(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	require.NoError(t, st.Track(ctx, order(1), T0))
	ls, err := st.Lease(ctx, T0, 1, time.Minute)
	require.NoError(t, err)
	require.Len(t, ls, 1)
	next := T0.Add(30 * time.Second)
	require.NoError(t, st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.Expired, Next: next}, nil))
	require.ErrorIs(t, st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.Paid}, nil), reconcile.ErrLeaseLost, "a lease ends with its commit")
	ls, err = st.Lease(ctx, next.Add(-time.Nanosecond), 1, time.Minute)
	require.NoError(t, err)
	assert.Empty(t, ls)
	ls, err = st.Lease(ctx, next, 1, time.Minute)
	require.NoError(t, err)
	require.Len(t, ls, 1)
	assert.Equal(t, reconcile.Expired, ls[0].State)
	assert.True(t, next.Equal(ls[0].Due))
}

func testCommitDone(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	require.NoError(t, st.Track(ctx, order(1), T0))
	ls, err := st.Lease(ctx, T0, 1, time.Minute)
	require.NoError(t, err)
	require.Len(t, ls, 1)
	ev := &reconcile.Event{Order: order(1), Result: reconcile.Paid, At: T0,
		Status: &upicollect.PaymentStatus{OrderID: "ord-0001", TxnStatus: upicollect.TxnSuccess, Amount: order(1).Amount, UTR: "123456789012"}}
	calls := 0
	require.NoError(t, st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.Paid, Event: ev}, func(context.Context) error { calls++; return nil }))
	assert.Equal(t, 1, calls)
	_, ok, err := st.NextDue(ctx, T0)
	require.NoError(t, err)
	assert.False(t, ok, "a done order is never due")
	ls, err = st.Lease(ctx, T0.Add(1000*time.Hour), 10, time.Hour)
	require.NoError(t, err)
	assert.Empty(t, ls)
	require.NoError(t, st.Track(ctx, order(1), T0), "tracking a done order again")
	ls, err = st.Lease(ctx, T0.Add(1000*time.Hour), 10, time.Hour)
	require.NoError(t, err)
	assert.Empty(t, ls, "tracking a done order again does not revive it")
}

func testDeliverError(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	due := T0.Add(10 * time.Second)
	require.NoError(t, st.Track(ctx, order(1), due))
	now := due.Add(5 * time.Second)
	ls, err := st.Lease(ctx, now, 1, time.Minute)
	require.NoError(t, err)
	require.Len(t, ls, 1)
	boom := errors.New("handler down")
	ev := &reconcile.Event{Order: order(1), Result: reconcile.Failed, At: now}
	err = st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.Failed, Next: now.Add(time.Hour), Event: ev, Retry: reconcile.Retry{Next: due}},
		func(context.Context) error { return boom })
	require.ErrorIs(t, err, boom)
	// Nothing changed, the lease ended, and the order is due as it was.
	again, err := st.Lease(ctx, now, 1, time.Minute)
	require.NoError(t, err)
	require.Len(t, again, 1, "due again at once: the event comes again at the next step")
	assert.Equal(t, reconcile.Pending, again[0].State)
	assert.True(t, due.Equal(again[0].Due))
	calls := 0
	require.NoError(t, st.Commit(ctx, again[0], reconcile.Update{State: reconcile.Failed, Next: now.Add(time.Hour), Event: ev},
		func(context.Context) error { calls++; return nil }))
	assert.Equal(t, 1, calls)
}

// testDeliverHolds leases the order again, at a time its lease has
// expired, while its event is being delivered: no other sweeper gets it.
func testDeliverHolds(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	require.NoError(t, st.Track(ctx, order(1), T0))
	until := T0.Add(time.Minute)
	ls, err := st.Lease(ctx, T0, 1, time.Minute)
	require.NoError(t, err)
	require.Len(t, ls, 1)
	ev := &reconcile.Event{Order: order(1), Result: reconcile.Paid, At: T0}
	err = st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.Paid, Event: ev}, func(context.Context) error {
		lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		other, err := st.Lease(lctx, until.Add(time.Hour), 10, time.Hour)
		// A store may refuse to lease at all while the event is recorded
		// (a database locked for writing); it must never hand out the
		// order.
		if err == nil {
			assert.Empty(t, other, "leased while its event was being delivered")
		}
		return nil
	})
	require.NoError(t, err)
	ls, err = st.Lease(ctx, until.Add(time.Hour), 10, time.Hour)
	require.NoError(t, err)
	assert.Empty(t, ls, "done")
}

func testRelease(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	due := T0.Add(time.Second)
	require.NoError(t, st.Track(ctx, order(1), due))
	now := due.Add(time.Hour)
	ls, err := st.Lease(ctx, now, 1, time.Minute)
	require.NoError(t, err)
	require.Len(t, ls, 1)
	require.NoError(t, st.Release(ctx, ls[0]))
	got, err := st.Lease(ctx, due.Add(-time.Nanosecond), 1, time.Minute)
	require.NoError(t, err)
	assert.Empty(t, got, "due again at its due time, not before")
	got, err = st.Lease(ctx, due, 1, time.Minute)
	require.NoError(t, err)
	require.Len(t, got, 1, "released at once: no wait for the lease to expire")
	assert.Equal(t, reconcile.Pending, got[0].State)
	assert.True(t, due.Equal(got[0].Due))
	require.NoError(t, st.Release(ctx, ls[0]), "a lease no longer held is skipped")
	require.ErrorIs(t, st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.Pending, Next: now}, nil), reconcile.ErrLeaseLost)
}

// testConcurrentOnce runs several sweepers' loops on one store, each
// committing an event for every order it leases (Commit, one at a time),
// with leases short enough to expire under them: every order's event is
// delivered (and committed) exactly once.
func testConcurrentOnce(t *testing.T, st reconcile.Store) {
	raceSweepers(t, st, func(ctx context.Context, now time.Time, ls []reconcile.Lease, handle func(id string) error) error {
		for _, l := range ls {
			ev := &reconcile.Event{Order: l.Order, Result: reconcile.Paid, At: now}
			err := st.Commit(ctx, l, reconcile.Update{State: reconcile.Paid, Event: ev}, func(context.Context) error {
				return handle(l.Order.ID)
			})
			if err != nil && !errors.Is(err, reconcile.ErrLeaseLost) && !errors.Is(err, errDownOnce) {
				return err
			}
		}
		return nil
	})
}

// testConcurrentBatchesOnce is testConcurrentOnce with each sweeper
// recording every batch it leases in one CommitMany.
func testConcurrentBatchesOnce(t *testing.T, st reconcile.Store) {
	raceSweepers(t, st, func(ctx context.Context, now time.Time, ls []reconcile.Lease, handle func(id string) error) error {
		cs := make([]reconcile.LeasedUpdate, len(ls))
		for i, l := range ls {
			cs[i] = reconcile.LeasedUpdate{Lease: l, Update: reconcile.Update{State: reconcile.Paid,
				Event: &reconcile.Event{Order: l.Order, Result: reconcile.Paid, At: now}, Retry: reconcile.Retry{Next: now}}}
		}
		errs, err := st.CommitMany(ctx, cs, func(_ context.Context, i int) error { return handle(cs[i].Lease.Order.ID) })
		if err != nil {
			return err
		}
		for _, err := range errs {
			if err != nil && !errors.Is(err, reconcile.ErrLeaseLost) && !errors.Is(err, errDownOnce) {
				return err
			}
		}
		return nil
	})
}

// errDownOnce is the handlers' failure in raceSweepers.
var errDownOnce = errors.New("handler down once")

// raceSweepers runs 4 sweepers' loops over 200 orders on st, each leasing
// 7 at a time with leases short enough to expire under them, a shared
// clock moving on every lease, and recording what it leased with record,
// whose handle delivers an order's event (the first delivery of every
// order whose id ends in 5 fails with errDownOnce). Every order's event
// must be delivered exactly once.
func raceSweepers(t *testing.T, st reconcile.Store, record func(ctx context.Context, now time.Time, ls []reconcile.Lease, handle func(id string) error) error) {
	ctx := ctxFor(t)
	const orders, sweepers = 200, 4
	for i := range orders {
		require.NoError(t, st.Track(ctx, order(i), T0))
	}
	var (
		mu        sync.Mutex
		delivered = map[string]int{}
		failOnce  sync.Map
		tick      atomic.Int64 // a shared clock that moves on every lease
	)
	handle := func(id string) error {
		if _, failed := failOnce.LoadOrStore(id, true); !failed && id[len(id)-1] == '5' {
			return errDownOnce
		}
		mu.Lock()
		delivered[id]++
		mu.Unlock()
		return nil
	}
	var wg sync.WaitGroup
	errs := make(chan error, sweepers)
	for range sweepers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				now := T0.Add(time.Duration(tick.Add(1)) * time.Second)
				ls, err := st.Lease(ctx, now, 7, 3*time.Second)
				if err != nil {
					errs <- err
					return
				}
				if len(ls) == 0 {
					if _, ok, err := st.NextDue(ctx, now); err == nil && !ok {
						return
					}
					continue
				}
				if err := record(ctx, now, ls, handle); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.NoError(t, ctx.Err(), "the sweepers did not finish")
	require.Len(t, delivered, orders)
	for id, n := range delivered {
		assert.Equal(t, 1, n, "order %s delivered %d times", id, n)
	}
}

// leaseOne tracks o due at due and leases it at now.
func leaseOne(t *testing.T, st reconcile.Store, o reconcile.Order, due, now time.Time) reconcile.Lease {
	t.Helper()
	ctx := ctxFor(t)
	require.NoError(t, st.Track(ctx, o, due))
	l, err := st.LeaseOrder(ctx, o.ID, now, time.Minute)
	require.NoError(t, err)
	return l
}

func paidEvent(o reconcile.Order, at time.Time) *reconcile.Event {
	return &reconcile.Event{Order: o, Result: reconcile.Paid, At: at,
		Status: &upicollect.PaymentStatus{OrderID: o.ID, TxnStatus: upicollect.TxnSuccess, Amount: o.Amount, UTR: "412345678901"}}
}

func testDeliverRetry(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	o := order(1)
	l := leaseOne(t, st, o, T0, T0)
	retry := T0.Add(20 * time.Second)
	boom := errors.New("handler down")
	err := st.Commit(ctx, l, reconcile.Update{State: reconcile.Paid, Event: paidEvent(o, T0), Checked: true,
		Retry: reconcile.Retry{Next: retry, Failures: 2}}, func(context.Context) error { return boom })
	require.Equal(t, boom, err, "the handler's own error: recording the retry went well and adds nothing")
	got, err := st.Lookup(ctx, o.ID)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Pending, got.State, "the state stays")
	assert.Empty(t, got.Events, "the event is not recorded")
	assert.Equal(t, 2, got.Failures)
	assert.True(t, retry.Equal(got.Next), "next %v", got.Next)
	ls, err := st.Lease(ctx, retry.Add(-time.Nanosecond), 10, time.Minute)
	require.NoError(t, err)
	assert.Empty(t, ls, "not due before the retry")
	ls, err = st.Lease(ctx, retry, 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, ls, 1)
	assert.Equal(t, 2, ls[0].Failures)
	assert.True(t, retry.Equal(ls[0].Due))
}

func testReleaseMany(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	for i := 1; i <= 3; i++ {
		require.NoError(t, st.Track(ctx, order(i), T0.Add(time.Duration(i)*time.Second)))
	}
	now := T0.Add(time.Minute)
	ls, err := st.Lease(ctx, now, 10, time.Hour)
	require.NoError(t, err)
	require.Len(t, ls, 3)
	require.NoError(t, st.Release(ctx, ls[0], ls[2]))
	got, err := st.Lease(ctx, now, 10, time.Hour)
	require.NoError(t, err)
	assert.Equal(t, []string{"ord-0001", "ord-0003"}, ids(got), "both given back at once; the other still held")
	assert.True(t, T0.Add(3*time.Second).Equal(got[1].Due))
	require.NoError(t, st.Release(ctx))
}

func testFailuresChecksReason(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	o := order(1)
	l := leaseOne(t, st, o, T0, T0)
	next := T0.Add(time.Minute)
	require.NoError(t, st.Commit(ctx, l, reconcile.Update{State: reconcile.Pending, Next: next, Checked: true, Failures: 3}, nil))
	got, err := st.Lookup(ctx, o.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, got.Checks)
	assert.Equal(t, 3, got.Failures)
	assert.True(t, next.Equal(got.Next))
	ls, err := st.Lease(ctx, next, 1, time.Minute)
	require.NoError(t, err)
	require.Len(t, ls, 1)
	assert.Equal(t, 3, ls[0].Failures)
	require.NoError(t, st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.Expired, Failures: 4, Reason: "checks kept failing"}, nil))
	got, err = st.Lookup(ctx, o.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, got.Checks, "an unanswered check is not counted")
	assert.Equal(t, 4, got.Failures)
	assert.Equal(t, "checks kept failing", got.Reason)
	assert.Equal(t, reconcile.Expired, got.State)
	assert.True(t, got.Next.IsZero(), "no further check")
	_, ok, err := st.NextDue(ctx, next)
	require.NoError(t, err)
	assert.False(t, ok)
}

func testLeaseOrder(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	_, err := st.LeaseOrder(ctx, "ord-none", T0, time.Minute)
	require.ErrorIs(t, err, reconcile.ErrNotTracked)
	o := order(1)
	due := T0.Add(time.Hour)
	require.NoError(t, st.Track(ctx, o, due))
	l, err := st.LeaseOrder(ctx, o.ID, T0, 2*time.Hour)
	require.NoError(t, err, "leased whatever its due time")
	assert.Equal(t, o.ID, l.Order.ID)
	assert.Equal(t, o.Amount, l.Order.Amount)
	assert.Equal(t, reconcile.Pending, l.State)
	assert.True(t, due.Equal(l.Due))
	assert.NotEmpty(t, l.Token)

	_, err = st.LeaseOrder(ctx, o.ID, T0.Add(30*time.Second), time.Minute)
	require.ErrorIs(t, err, reconcile.ErrLeaseHeld)
	ls, err := st.Lease(ctx, due, 10, time.Minute)
	require.NoError(t, err)
	assert.Empty(t, ls, "held: a sweeper's Lease does not take it either")

	again, err := st.LeaseOrder(ctx, o.ID, T0.Add(2*time.Hour), time.Minute)
	require.NoError(t, err, "the lease expired")
	assert.NotEqual(t, l.Token, again.Token)
	require.ErrorIs(t, st.Commit(ctx, l, reconcile.Update{State: reconcile.Pending, Next: due}, nil), reconcile.ErrLeaseLost, "fenced out")
	require.NoError(t, st.Commit(ctx, again, reconcile.Update{State: reconcile.Pending, Next: due.Add(time.Hour), Checked: true}, nil))
	got, err := st.Lookup(ctx, o.ID)
	require.NoError(t, err)
	assert.True(t, due.Add(time.Hour).Equal(got.Next))
	assert.Equal(t, 1, got.Checks)

	// An order leased before its due time, whose lease expired, is not
	// due before its due time.
	early := order(2)
	require.NoError(t, st.Track(ctx, early, due))
	_, err = st.LeaseOrder(ctx, early.ID, T0, time.Minute)
	require.NoError(t, err)
	ls, err = st.Lease(ctx, T0.Add(2*time.Minute), 10, time.Minute)
	require.NoError(t, err)
	assert.Empty(t, ls, "not due yet")
	next, ok, err := st.NextDue(ctx, T0.Add(2*time.Minute))
	require.NoError(t, err)
	require.True(t, ok)
	assert.True(t, due.Equal(next), "next due %v", next)
	ls, err = st.Lease(ctx, due, 10, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, []string{early.ID}, ids(ls))
}

func testLeaseOrderDone(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	// Final.
	paid := order(1)
	l := leaseOne(t, st, paid, T0, T0)
	require.NoError(t, st.Commit(ctx, l, reconcile.Update{State: reconcile.Paid, Event: paidEvent(paid, T0), Checked: true}, func(context.Context) error { return nil }))
	_, err := st.LeaseOrder(ctx, paid.ID, T0.Add(time.Hour), time.Minute)
	require.ErrorIs(t, err, reconcile.ErrOrderDone)
	// The late window over, not final.
	ended := order(2)
	l = leaseOne(t, st, ended, T0, T0)
	require.NoError(t, st.Commit(ctx, l, reconcile.Update{State: reconcile.Expired}, nil))
	_, err = st.LeaseOrder(ctx, ended.ID, T0.Add(time.Hour), time.Minute)
	require.ErrorIs(t, err, reconcile.ErrOrderDone)
	// Untracked.
	gone := order(3)
	require.NoError(t, st.Track(ctx, gone, T0))
	require.NoError(t, st.Untrack(ctx, gone.ID))
	_, err = st.LeaseOrder(ctx, gone.ID, T0.Add(time.Hour), time.Minute)
	require.ErrorIs(t, err, reconcile.ErrOrderDone)
}

func testExtend(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	require.NoError(t, st.Track(ctx, order(1), T0))
	require.NoError(t, st.Track(ctx, order(2), T0.Add(30*time.Second)))
	ls, err := st.Lease(ctx, T0, 1, time.Minute)
	require.NoError(t, err)
	require.Len(t, ls, 1)
	require.NoError(t, st.Extend(ctx, ls[0], T0.Add(50*time.Second), time.Minute))
	got, err := st.Lease(ctx, T0.Add(90*time.Second), 1, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, []string{order(2).ID}, ids(got), "renewed: held until 110 s; the other order is due")
	got, err = st.Lease(ctx, T0.Add(90*time.Second), 1, time.Minute)
	require.NoError(t, err)
	assert.Empty(t, got, "renewed: held until 110 s")
	got, err = st.Lease(ctx, T0.Add(111*time.Second), 1, time.Minute)
	require.NoError(t, err)
	require.Len(t, got, 1, "the renewed lease expires too")
	require.ErrorIs(t, st.Extend(ctx, ls[0], T0.Add(112*time.Second), time.Minute), reconcile.ErrLeaseLost)
	require.NoError(t, st.Extend(ctx, got[0], T0.Add(112*time.Second), time.Minute))
}

func testCommitMany(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	for i := 1; i <= 3; i++ {
		require.NoError(t, st.Track(ctx, order(i), T0))
	}
	ls, err := st.Lease(ctx, T0, 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, ls, 3)
	// The second order's lease expires and another sweeper takes it.
	taken, err := st.LeaseOrder(ctx, order(2).ID, T0.Add(2*time.Minute), time.Hour)
	require.NoError(t, err)
	next := T0.Add(time.Hour)
	var cs []reconcile.LeasedUpdate
	for i, l := range ls {
		cs = append(cs, reconcile.LeasedUpdate{Lease: l, Update: reconcile.Update{State: reconcile.Expired, Next: next.Add(time.Duration(i) * time.Second), Checked: true, Failures: i}})
	}
	errs, err := st.CommitMany(ctx, cs, nil)
	require.NoError(t, err)
	require.Len(t, errs, 3)
	assert.NoError(t, errs[0])
	assert.ErrorIs(t, errs[1], reconcile.ErrLeaseLost)
	assert.NoError(t, errs[2])
	for i, want := range []reconcile.State{reconcile.Expired, reconcile.Pending, reconcile.Expired} {
		got, err := st.Lookup(ctx, order(i+1).ID)
		require.NoError(t, err)
		assert.Equal(t, want, got.State, order(i+1).ID)
		if i != 1 {
			assert.Equal(t, 1, got.Checks)
			assert.Equal(t, i, got.Failures)
			assert.True(t, next.Add(time.Duration(i)*time.Second).Equal(got.Next))
		}
	}
	require.NoError(t, st.Commit(ctx, taken, reconcile.Update{State: reconcile.Failed, Next: next}, nil), "the other sweeper's lease stands")
	errs, err = st.CommitMany(ctx, cs[:1], nil)
	require.NoError(t, err)
	assert.ErrorIs(t, errs[0], reconcile.ErrLeaseLost, "a lease ends with its commit")
	errs, err = st.CommitMany(ctx, nil, nil)
	require.NoError(t, err)
	assert.Empty(t, errs)
}

// testCommitManyEvents records a batch of a quiet outcome, two events
// (the second's handler fails) and an outcome whose lease was lost: each
// is recorded or not on its own, the handlers run in turn, and the failed
// event records its retry and nothing else.
func testCommitManyEvents(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	ls := trackAndLease(t, st, 4)
	_, err := st.LeaseOrder(ctx, order(4).ID, T0.Add(2*time.Minute), time.Hour)
	require.NoError(t, err, "the fourth order's lease expired and another sweeper took it")
	next, retry := T0.Add(time.Hour), T0.Add(10*time.Minute)
	cs := []reconcile.LeasedUpdate{
		{Lease: ls[0], Update: reconcile.Update{State: reconcile.Pending, Next: next, Checked: true}},
		{Lease: ls[1], Update: reconcile.Update{State: reconcile.Paid, Event: paidEvent(order(2), T0), Checked: true}},
		{Lease: ls[2], Update: reconcile.Update{State: reconcile.Paid, Event: paidEvent(order(3), T0), Checked: true,
			Retry: reconcile.Retry{Next: retry, Failures: 1}}},
		{Lease: ls[3], Update: reconcile.Update{State: reconcile.Paid, Event: paidEvent(order(4), T0), Checked: true}},
	}
	down := errors.New("handler down")
	var calls []int
	errs, err := st.CommitMany(ctx, cs, func(ctx context.Context, i int) error {
		calls = append(calls, i)
		if i == 2 {
			return down
		}
		return nil
	})
	require.NoError(t, err)
	require.Len(t, errs, 4)
	assert.NoError(t, errs[0])
	assert.NoError(t, errs[1])
	assert.ErrorIs(t, errs[2], down, "deliver's error")
	assert.ErrorIs(t, errs[3], reconcile.ErrLeaseLost)
	assert.Equal(t, []int{1, 2}, calls, "the held events' handlers, one at a time, in order")

	got, err := st.Lookup(ctx, order(1).ID)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Pending, got.State)
	assert.Equal(t, 1, got.Checks)
	assert.True(t, next.Equal(got.Next))
	got, err = st.Lookup(ctx, order(2).ID)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Paid, got.State)
	require.Len(t, got.Events, 1)
	assert.Equal(t, []string{reconcile.DefaultConsumer}, got.Events[0].DeliveredTo)
	got, err = st.Lookup(ctx, order(3).ID)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Pending, got.State, "the failed event's order keeps its state")
	assert.Zero(t, got.Checks, "and its checks")
	assert.Equal(t, 1, got.Failures)
	assert.Empty(t, got.Events, "the failed event is not recorded")
	assert.True(t, retry.Equal(got.Next), "due again at the retry")
	got, err = st.Lookup(ctx, order(4).ID)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Pending, got.State, "fenced out")
	assert.Empty(t, got.Events)
}

// trackAndLease tracks orders 1 to n due at T0 and leases them all at T0
// for a minute, their leases in order of id.
func trackAndLease(t *testing.T, st reconcile.Store, n int) []reconcile.Lease {
	t.Helper()
	ctx := ctxFor(t)
	for i := 1; i <= n; i++ {
		require.NoError(t, st.Track(ctx, order(i), T0))
	}
	ls, err := st.Lease(ctx, T0, 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, ls, n)
	slices.SortFunc(ls, func(a, b reconcile.Lease) int { return strings.Compare(a.Order.ID, b.Order.ID) })
	return ls
}

// testCommitManyHolds leases again, at a time every lease of the batch has
// expired, while the batch's first event is being delivered: none of the
// batch's orders is handed out, and the second event waits its turn.
func testCommitManyHolds(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	ls := trackAndLease(t, st, 3)
	later := T0.Add(time.Hour)
	cs := []reconcile.LeasedUpdate{
		{Lease: ls[0], Update: reconcile.Update{State: reconcile.Paid, Event: paidEvent(order(1), T0)}},
		{Lease: ls[1], Update: reconcile.Update{State: reconcile.Pending, Next: later.Add(time.Hour)}},
		{Lease: ls[2], Update: reconcile.Update{State: reconcile.Paid, Event: paidEvent(order(3), T0)}},
	}
	var leasedMeanwhile []string
	errs, err := st.CommitMany(ctx, cs, func(ctx context.Context, i int) error {
		if i != 0 {
			return nil
		}
		lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		// A store may refuse to lease at all meanwhile (a database
		// locked for writing); it must never hand out an order of the
		// batch.
		other, err := st.Lease(lctx, later, 10, time.Hour)
		if err == nil {
			leasedMeanwhile = ids(other)
		}
		return nil
	})
	require.NoError(t, err)
	for i, err := range errs {
		require.NoError(t, err, "outcome %d", i)
	}
	assert.Empty(t, leasedMeanwhile, "leased while the batch was being delivered")
	ls, err = st.Lease(ctx, later, 10, time.Hour)
	require.NoError(t, err)
	assert.Empty(t, ls, "recorded: nothing due")
}

func testLookupListCounts(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	_, err := st.Lookup(ctx, "ord-none")
	require.ErrorIs(t, err, reconcile.ErrNotTracked)
	var os []reconcile.Order
	for i := 1; i <= 4; i++ {
		o := order(i)
		o.Created = T0.Add(time.Duration(i) * time.Minute)
		os = append(os, o)
		require.NoError(t, st.Track(ctx, o, T0))
	}
	// 1 paid, 2 failed, 3 pending, 4 untracked.
	l, err := st.LeaseOrder(ctx, os[0].ID, T0, time.Minute)
	require.NoError(t, err)
	ev := paidEvent(os[0], T0.Add(2*time.Minute))
	require.NoError(t, st.Commit(ctx, l, reconcile.Update{State: reconcile.Paid, Event: ev, Checked: true}, func(context.Context) error { return nil }))
	l, err = st.LeaseOrder(ctx, os[1].ID, T0, time.Minute)
	require.NoError(t, err)
	failed := &reconcile.Event{Order: os[1], Result: reconcile.Failed, At: T0.Add(3 * time.Minute),
		Status: &upicollect.PaymentStatus{OrderID: os[1].ID, TxnStatus: upicollect.TxnFail}}
	require.NoError(t, st.Commit(ctx, l, reconcile.Update{State: reconcile.Failed, Event: failed, Next: T0.Add(time.Hour), Checked: true}, func(context.Context) error { return nil }))
	require.NoError(t, st.Untrack(ctx, os[3].ID))

	got, err := st.Lookup(ctx, os[0].ID)
	require.NoError(t, err)
	assert.Equal(t, os[0].ID, got.Order.ID)
	assert.Equal(t, os[0].Amount, got.Order.Amount)
	assert.True(t, os[0].Created.Equal(got.Order.Created))
	assert.Equal(t, reconcile.Paid, got.State)
	assert.Equal(t, 1, got.Checks)
	assert.True(t, got.Next.IsZero())
	require.Len(t, got.Events, 1)
	e := got.Events[0]
	assert.Equal(t, reconcile.Paid, e.Result)
	assert.Equal(t, os[0].ID, e.Order.ID)
	assert.True(t, ev.At.Equal(e.At))
	require.NotNil(t, e.Status)
	assert.Equal(t, os[0].ID, e.Status.OrderID)
	assert.Equal(t, upicollect.TxnSuccess, e.Status.TxnStatus)
	assert.Equal(t, os[0].Amount, e.Status.Amount)
	assert.Equal(t, "412345678901", e.Status.UTR)
	assert.False(t, got.Updated.IsZero())

	got, err = st.Lookup(ctx, os[3].ID)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Untracked, got.State)

	all, err := st.List(ctx, reconcile.ListQuery{})
	require.NoError(t, err)
	assert.Equal(t, []string{"ord-0004", "ord-0003", "ord-0002", "ord-0001"}, stateIDs(all), "newest created first")
	require.Len(t, all[2].Events, 1)
	assert.Equal(t, reconcile.Failed, all[2].Events[0].Result)
	some, err := st.List(ctx, reconcile.ListQuery{States: []reconcile.State{reconcile.Paid, reconcile.Pending}})
	require.NoError(t, err)
	assert.Equal(t, []string{"ord-0003", "ord-0001"}, stateIDs(some))

	counts, err := st.Counts(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[reconcile.State]int{reconcile.Paid: 1, reconcile.Failed: 1, reconcile.Pending: 1, reconcile.Untracked: 1}, nonZero(counts))
}

func stateIDs(ss []reconcile.OrderState) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Order.ID
	}
	return out
}

func nonZero(m map[reconcile.State]int) map[reconcile.State]int {
	out := map[reconcile.State]int{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

func testListPages(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	for i := 1; i <= 5; i++ {
		require.NoError(t, st.Track(ctx, order(i), T0)) // one creation time: by id, greater first
	}
	var pages [][]string
	before := ""
	for range 4 {
		page, err := st.List(ctx, reconcile.ListQuery{Limit: 2, Before: before})
		require.NoError(t, err)
		if len(page) == 0 {
			break
		}
		pages = append(pages, stateIDs(page))
		before = page[len(page)-1].Order.ID
	}
	assert.Equal(t, [][]string{{"ord-0005", "ord-0004"}, {"ord-0003", "ord-0002"}, {"ord-0001"}}, pages)
}

func testUntrack(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	require.ErrorIs(t, st.Untrack(ctx, "ord-none"), reconcile.ErrNotTracked)
	o := order(1)
	require.NoError(t, st.Track(ctx, o, T0))
	ls, err := st.Lease(ctx, T0, 1, time.Minute)
	require.NoError(t, err)
	require.Len(t, ls, 1)
	require.NoError(t, st.Untrack(ctx, o.ID))
	require.ErrorIs(t, st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.Paid, Event: paidEvent(o, T0)}, func(context.Context) error {
		t.Error("delivered after Untrack")
		return nil
	}), reconcile.ErrLeaseLost, "a check under way when Untrack came is dropped")
	got, err := st.Lease(ctx, T0.Add(1000*time.Hour), 10, time.Minute)
	require.NoError(t, err)
	assert.Empty(t, got)
	_, ok, err := st.NextDue(ctx, T0.Add(1000*time.Hour))
	require.NoError(t, err)
	assert.False(t, ok)
	s, err := st.Lookup(ctx, o.ID)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Untracked, s.State)
	assert.Empty(t, s.Events)
	require.NoError(t, st.Untrack(ctx, o.ID), "twice")
	require.NoError(t, st.Track(ctx, o, T0), "tracking it again is a no-op")
	s, err = st.Lookup(ctx, o.ID)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Untracked, s.State)

	// A final order stays final.
	paid := order(2)
	l := leaseOne(t, st, paid, T0, T0)
	require.NoError(t, st.Commit(ctx, l, reconcile.Update{State: reconcile.Paid, Event: paidEvent(paid, T0)}, func(context.Context) error { return nil }))
	require.NoError(t, st.Untrack(ctx, paid.ID))
	s, err = st.Lookup(ctx, paid.ID)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Paid, s.State)
	assert.Len(t, s.Events, 1)
}

// testUntrackWaits untracks an order while its event is being delivered:
// Untrack returns after the delivery ends, and the order is then not
// leased again.
func testUntrackWaits(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	o := order(1)
	l := leaseOne(t, st, o, T0, T0)
	started, release := make(chan struct{}), make(chan struct{})
	var delivering atomic.Bool
	committed := make(chan error, 1)
	go func() {
		committed <- st.Commit(ctx, l, reconcile.Update{State: reconcile.Failed, Next: T0.Add(time.Hour),
			Event: &reconcile.Event{Order: o, Result: reconcile.Failed, At: T0}}, func(context.Context) error {
			delivering.Store(true)
			close(started)
			<-release
			delivering.Store(false)
			return nil
		})
	}()
	<-started
	// An Untrack whose context ends during the delivery returns with it,
	// changing nothing.
	cctx, cancel := context.WithCancel(ctx)
	cancelled := make(chan error, 1)
	go func() { cancelled <- st.Untrack(cctx, o.ID) }()
	cancel()
	require.ErrorIs(t, <-cancelled, context.Canceled)
	require.True(t, delivering.Load(), "still delivering")
	untracked := make(chan bool, 1)
	go func() {
		err := st.Untrack(ctx, o.ID)
		assert.NoError(t, err)
		untracked <- delivering.Load()
	}()
	select {
	case <-untracked:
		t.Fatal("Untrack returned while the event was being delivered")
	default:
	}
	close(release)
	require.NoError(t, <-committed)
	select {
	case during := <-untracked:
		assert.False(t, during, "Untrack returned during the delivery")
	case <-ctx.Done():
		t.Fatal("Untrack never returned")
	}
	s, err := st.Lookup(ctx, o.ID)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Untracked, s.State)
	assert.Len(t, s.Events, 1, "the delivery under way finished and was recorded")
	ls, err := st.Lease(ctx, T0.Add(1000*time.Hour), 10, time.Minute)
	require.NoError(t, err)
	assert.Empty(t, ls)
}

func testPrune(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	for i := 1; i <= 3; i++ {
		require.NoError(t, st.Track(ctx, order(i), T0))
	}
	l, err := st.LeaseOrder(ctx, order(1).ID, T0, time.Minute)
	require.NoError(t, err)
	require.NoError(t, st.Commit(ctx, l, reconcile.Update{State: reconcile.Paid, Event: paidEvent(order(1), T0)}, func(context.Context) error { return nil }))
	l, err = st.LeaseOrder(ctx, order(2).ID, T0, time.Minute)
	require.NoError(t, err)
	require.NoError(t, st.Commit(ctx, l, reconcile.Update{State: reconcile.Expired}, nil))
	ref, ok, err := st.Now(ctx)
	require.NoError(t, err)
	if !ok {
		ref = time.Now()
	}
	n, err := st.Prune(ctx, ref.Add(-time.Hour))
	require.NoError(t, err)
	assert.Zero(t, n, "nothing finished an hour before")
	n, err = st.Prune(ctx, ref.Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, 2, n, "the finished orders")
	for _, id := range []string{order(1).ID, order(2).ID} {
		_, err := st.Lookup(ctx, id)
		require.ErrorIs(t, err, reconcile.ErrNotTracked, id)
	}
	s, err := st.Lookup(ctx, order(3).ID)
	require.NoError(t, err, "an order still checked is kept")
	assert.Equal(t, reconcile.Pending, s.State)
}

// testConfirmRacingSweepers runs sweepers' loops (Lease) and confirmers
// (LeaseOrder, as Sweeper.Confirm does) on one store at once, each
// committing the order's event: every order's event is delivered once.
func testConfirmRacingSweepers(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	const orders = 120
	for i := range orders {
		require.NoError(t, st.Track(ctx, order(i), T0))
	}
	var (
		mu        sync.Mutex
		delivered = map[string]int{}
		tick      atomic.Int64
		done      atomic.Int64
	)
	commit := func(l reconcile.Lease, now time.Time) error {
		err := st.Commit(ctx, l, reconcile.Update{State: reconcile.Paid, Event: paidEvent(l.Order, now)}, func(context.Context) error {
			mu.Lock()
			delivered[l.Order.ID]++
			mu.Unlock()
			return nil
		})
		if err == nil {
			done.Add(1)
		}
		if errors.Is(err, reconcile.ErrLeaseLost) {
			return nil
		}
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 3 { // sweepers
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && done.Load() < orders {
				now := T0.Add(time.Duration(tick.Add(1)) * time.Second)
				ls, err := st.Lease(ctx, now, 5, 2*time.Second)
				if err != nil {
					errs <- err
					return
				}
				for _, l := range ls {
					if err := commit(l, now); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	for c := range 3 { // confirmers, each over every order from its own start
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil && done.Load() < orders; i++ {
				now := T0.Add(time.Duration(tick.Add(1)) * time.Second)
				l, err := st.LeaseOrder(ctx, order((c*40+i)%orders).ID, now, 2*time.Second)
				switch {
				case errors.Is(err, reconcile.ErrLeaseHeld), errors.Is(err, reconcile.ErrOrderDone):
					continue
				case err != nil:
					errs <- err
					return
				}
				if err := commit(l, now); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.NoError(t, ctx.Err(), "the racers did not finish")
	require.Len(t, delivered, orders)
	twice := 0
	for _, n := range delivered {
		if n != 1 {
			twice++
		}
	}
	t.Logf("confirm racing sweepers: %d orders, %d delivered twice", orders, twice)
	assert.Zero(t, twice)
}

// testExtendPastOthers renews the lease of the first order due, taken
// early, past the due times of the others: they are leased first.
func testExtendPastOthers(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	for i := 1; i <= 3; i++ {
		require.NoError(t, st.Track(ctx, order(i), T0.Add(time.Duration(i)*time.Hour)))
	}
	early, err := st.LeaseOrder(ctx, order(1).ID, T0, 5*time.Second)
	require.NoError(t, err)
	require.NoError(t, st.Extend(ctx, early, T0, 10*time.Hour))
	got, err := st.Lease(ctx, T0.Add(150*time.Minute), 10, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, []string{order(2).ID}, ids(got), "the renewed order is held; the next is due")
}
