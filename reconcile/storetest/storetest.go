// Package storetest holds the rules every reconcile.Store must follow, as
// a test suite: a Store implementation's tests call Run with a constructor
// of empty stores.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

// T0 is the time the suite's orders are created at.
var T0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// bound bounds every test's waits, so that a store that blocks fails
// instead of hanging.
const bound = 30 * time.Second

// Run runs the suite; newStore returns an empty store each time it is
// called. Options of the implementation under test go in newStore.
func Run(t *testing.T, newStore func(t *testing.T) reconcile.Store) {
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
		{"DeliverHoldsTheOrder", testDeliverHolds},
		{"ReleaseReschedules", testRelease},
		{"ConcurrentSweepersDeliverOnce", testConcurrentOnce},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
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
	_, ok, err := st.NextDue(ctx)
	require.NoError(t, err)
	assert.False(t, ok, "an empty store has nothing due")

	o := order(1)
	due := T0.Add(10 * time.Second)
	require.NoError(t, st.Track(ctx, o, due))
	next, ok, err := st.NextDue(ctx)
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
	assert.Equal(t, reconcile.StatePending, l.State)
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
	next, ok, err := st.NextDue(ctx)
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
	err = st.Commit(ctx, first[0], reconcile.Update{State: reconcile.StatePaid, Event: &reconcile.Event{Order: order(1), Result: reconcile.Paid, At: T0}},
		func(context.Context) error { delivered = true; return nil })
	require.ErrorIs(t, err, reconcile.ErrLeaseLost)
	assert.False(t, delivered, "an outcome under a lost lease is never delivered")
	require.NoError(t, st.Release(ctx, first[0]), "releasing a lost lease changes nothing")
	// The second holder's stands.
	require.NoError(t, st.Commit(ctx, again[0], reconcile.Update{State: reconcile.StatePending, Next: until.Add(time.Hour)}, nil))
	next, ok, err = st.NextDue(ctx)
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
	require.NoError(t, st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.StateExpired, Next: next}, nil))
	require.ErrorIs(t, st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.StatePaid}, nil), reconcile.ErrLeaseLost, "a lease ends with its commit")
	ls, err = st.Lease(ctx, next.Add(-time.Nanosecond), 1, time.Minute)
	require.NoError(t, err)
	assert.Empty(t, ls)
	ls, err = st.Lease(ctx, next, 1, time.Minute)
	require.NoError(t, err)
	require.Len(t, ls, 1)
	assert.Equal(t, reconcile.StateExpired, ls[0].State)
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
	require.NoError(t, st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.StatePaid, Event: ev}, func(context.Context) error { calls++; return nil }))
	assert.Equal(t, 1, calls)
	_, ok, err := st.NextDue(ctx)
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
	err = st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.StateFailed, Next: now.Add(time.Hour), Event: ev},
		func(context.Context) error { return boom })
	require.ErrorIs(t, err, boom)
	// Nothing changed, the lease ended, and the order is due as it was.
	again, err := st.Lease(ctx, now, 1, time.Minute)
	require.NoError(t, err)
	require.Len(t, again, 1, "due again at once: the event comes again at the next step")
	assert.Equal(t, reconcile.StatePending, again[0].State)
	assert.True(t, due.Equal(again[0].Due))
	calls := 0
	require.NoError(t, st.Commit(ctx, again[0], reconcile.Update{State: reconcile.StateFailed, Next: now.Add(time.Hour), Event: ev},
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
	err = st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.StatePaid, Event: ev}, func(context.Context) error {
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
	assert.Equal(t, reconcile.StatePending, got[0].State)
	assert.True(t, due.Equal(got[0].Due))
	require.NoError(t, st.Release(ctx, ls[0]), "a lease no longer held is skipped")
	require.ErrorIs(t, st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.StatePending, Next: now}, nil), reconcile.ErrLeaseLost)
}

// testConcurrentOnce runs several sweepers' loops on one store, each
// committing an event for every order it leases, with leases short enough
// to expire under them: every order's event is delivered (and committed)
// exactly once.
func testConcurrentOnce(t *testing.T, st reconcile.Store) {
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
					if _, ok, err := st.NextDue(ctx); err == nil && !ok {
						return
					}
					continue
				}
				for _, l := range ls {
					ev := &reconcile.Event{Order: l.Order, Result: reconcile.Paid, At: now}
					err := st.Commit(ctx, l, reconcile.Update{State: reconcile.StatePaid, Event: ev}, func(context.Context) error {
						// The handler of every order whose id ends in 5 fails once.
						if _, failed := failOnce.LoadOrStore(l.Order.ID, true); !failed && l.Order.ID[len(l.Order.ID)-1] == '5' {
							return errors.New("handler down once")
						}
						mu.Lock()
						delivered[l.Order.ID]++
						mu.Unlock()
						return nil
					})
					if err != nil && !errors.Is(err, reconcile.ErrLeaseLost) && err.Error() != "handler down once" {
						errs <- err
						return
					}
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
