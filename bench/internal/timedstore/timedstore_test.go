package timedstore

import (
	"context"
	"errors"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

// stepClock is a clock that moves a millisecond at every reading, and as
// far as a test says in between.
type stepClock struct{ t time.Time }

func (c *stepClock) now() time.Time {
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

// newStepped is a memory store timed on a stepClock, and an order created
// at the clock's start.
func newStepped() (*Store, *stepClock, reconcile.Order) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	clk := &stepClock{t: t0}
	s := New(reconcile.NewMemoryStore())
	s.clock = clk.now
	return s, clk, reconcile.Order{ID: "ORD-1", Amount: upicollect.Rupees(10), Created: t0}
}

// TestForwardsEveryMethod calls every method of reconcile.Store through
// the wrapper on a memory store: each reaches the store (its answer is the
// store's), each is counted once, each takes the clock's two readings,
// and the handlers' time is left out.
func TestForwardsEveryMethod(t *testing.T) {
	ctx := context.Background()
	s, clk, o := newStepped()
	t0 := o.Created
	o2 := reconcile.Order{ID: "ORD-2", Amount: upicollect.Rupees(20), Created: t0}
	var (
		leases     []reconcile.Lease
		deliveries []reconcile.DeliveryLease
	)
	handlerErr := errors.New("handler says no")
	delivered := 0
	slow := func(context.Context) error { // a handler that takes an hour
		delivered++
		clk.t = clk.t.Add(time.Hour)
		return handlerErr
	}
	calls := []struct {
		method string
		call   func() error
	}{
		{"Track", func() error { return s.Track(ctx, o, t0) }},
		{"TrackTx", func() error {
			assert.ErrorIs(t, s.TrackTx(ctx, nil, o2, t0), reconcile.ErrNoTransactions)
			return s.next.Track(ctx, o2, t0) // not counted: the store's own
		}},
		{"Now", func() error {
			_, ok, err := s.Now(ctx)
			assert.False(t, ok, "the memory store keeps no clock")
			return err
		}},
		{"RegisterConsumer", func() error { return s.RegisterConsumer(ctx, "books", t0) }},
		{"Lease", func() error {
			var err error
			leases, err = s.Lease(ctx, t0, 10, time.Minute)
			assert.Len(t, leases, 2)
			return err
		}},
		{"Extend", func() error { return s.Extend(ctx, leases[0], t0, time.Minute) }},
		{"Commit", func() error {
			err := s.Commit(ctx, leases[0], reconcile.Update{State: reconcile.Pending, Next: t0.Add(time.Hour), Checked: true,
				Event: &reconcile.Event{Order: o, Result: reconcile.Paid, At: t0}, Retry: reconcile.Retry{Next: t0, Failures: 1}}, slow)
			assert.ErrorIs(t, err, handlerErr, "the handler's error comes back")
			return nil
		}},
		{"CommitMany", func() error {
			errs, err := s.CommitMany(ctx, []reconcile.LeasedUpdate{{Lease: leases[1], Update: reconcile.Update{State: reconcile.Pending, Next: t0, Checked: true,
				Event: &reconcile.Event{Order: o2, Result: reconcile.Paid, At: t0}}}}, func(ctx context.Context, i int) error {
				assert.Zero(t, i)
				delivered++
				clk.t = clk.t.Add(time.Hour)
				return nil
			})
			assert.Equal(t, []error{nil}, errs, "delivered")
			return err
		}},
		{"Release", func() error { return s.Release(ctx, leases[1]) }},
		{"LeaseOrder", func() error {
			l, err := s.LeaseOrder(ctx, o.ID, t0, time.Minute)
			assert.Equal(t, o.ID, l.Order.ID)
			return err
		}},
		{"NextDue", func() error {
			next, ok, err := s.NextDue(ctx, t0)
			assert.True(t, ok)
			assert.Equal(t, t0, next, "ORD-1 was due again at t0 after its failed delivery")
			return err
		}},
		{"Lookup", func() error {
			st, err := s.Lookup(ctx, o2.ID)
			require.NoError(t, err)
			assert.Equal(t, 1, st.Checks)
			return nil
		}},
		{"List", func() error {
			l, err := s.List(ctx, reconcile.ListQuery{})
			assert.Len(t, l, 2)
			return err
		}},
		{"Counts", func() error {
			c, err := s.Counts(ctx)
			assert.Equal(t, map[reconcile.State]int{reconcile.Pending: 2}, c)
			return err
		}},
		{"Consumers", func() error {
			c, err := s.Consumers(ctx)
			assert.Len(t, c, 1)
			return err
		}},
		{"LeaseDeliveries", func() error {
			var err error
			deliveries, err = s.LeaseDeliveries(ctx, "books", t0, 10, time.Minute)
			require.Len(t, deliveries, 1, "ORD-2's event, pending for books")
			return err
		}},
		{"CommitDeliveries", func() error {
			errs, err := s.CommitDeliveries(ctx, []reconcile.LeasedDelivery{{Lease: deliveries[0], Retry: reconcile.Retry{Next: t0.Add(time.Minute), Failures: 1}}},
				func(ctx context.Context, _ int) error { return slow(ctx) })
			assert.Equal(t, []error{handlerErr}, errs, "the handler's error comes back")
			return err
		}},
		{"RemoveConsumer", func() error { return s.RemoveConsumer(ctx, "books") }},
		{"Untrack", func() error { return s.Untrack(ctx, o2.ID) }},
		{"Prune", func() error {
			n, err := s.Prune(ctx, time.Now().Add(24*time.Hour)) // the memory store dates changes on the real clock
			assert.Equal(t, 1, n, "the untracked order")
			return err
		}},
	}
	var want []string
	ti := reflect.TypeOf((*reconcile.Store)(nil)).Elem()
	for i := range ti.NumMethod() {
		want = append(want, ti.Method(i).Name)
	}
	var got []string
	for _, c := range calls {
		got = append(got, c.method)
		require.NoError(t, c.call(), c.method)
	}
	sort.Strings(got)
	require.Equal(t, want, got, "every method of reconcile.Store is called once")
	assert.Equal(t, 3, delivered, "the handlers of Commit, CommitMany and CommitDeliveries")

	total, by := s.Spent()
	require.Len(t, by, len(want))
	for _, m := range want {
		assert.Equal(t, 1, by[m].Calls, m)
		if m == "Commit" || m == "CommitMany" || m == "CommitDeliveries" {
			// start, the handler's start and end, end: 4 ms, less the
			// handler's hour and the millisecond of its own reading.
			assert.Equal(t, 2*time.Millisecond, by[m].Spent, "%s: the handler's hour is left out", m)
			continue
		}
		assert.Equal(t, time.Millisecond, by[m].Spent, m)
	}
	assert.Equal(t, time.Duration(len(want)+3)*time.Millisecond, total)
	s.Reset()
	total, by = s.Spent()
	assert.Zero(t, total)
	assert.Empty(t, by)
}

// TestAlone adds up the time when only the store's calls were in flight:
// not while a call of the client's was, nor while the store waited for a
// handler, nor while nothing was in flight.
func TestAlone(t *testing.T) {
	ctx := context.Background()
	s, clk, o := newStepped()
	t0 := o.Created
	require.NoError(t, s.Track(ctx, o, t0)) // 1 ms alone
	svc := s.Service()
	call := upicollect.CallInfo{Op: "checkPaymentStatus", OrderID: o.ID}
	ctx2 := svc.StartCall(ctx, call)
	assert.Equal(t, ctx, ctx2, "the call's context unchanged")
	leases, err := s.Lease(ctx, t0, 1, time.Minute) // beside a check: not alone
	require.NoError(t, err)
	svc.EndCall(ctx, call, upicollect.CallEnd{})
	clk.t = clk.t.Add(time.Hour) // nothing in flight
	errs, err := s.CommitMany(ctx, []reconcile.LeasedUpdate{{Lease: leases[0], Update: reconcile.Update{State: reconcile.Pending, Next: t0, Checked: true,
		Event: &reconcile.Event{Order: o, Result: reconcile.Paid, At: t0}}}}, func(context.Context, int) error {
		clk.t = clk.t.Add(time.Hour) // the handler's hour: not the store's
		return nil
	}) // 1 ms before the handler, 1 ms after
	require.NoError(t, err)
	assert.Equal(t, []error{nil}, errs)
	assert.Equal(t, 3*time.Millisecond, s.Alone())

	ctx3 := svc.StartCall(ctx, call)
	assert.Equal(t, ctx, ctx3)
	s.Reset()
	assert.Zero(t, s.Alone())
	_, _, err = s.NextDue(ctx, t0) // beside a check still in flight
	require.NoError(t, err)
	assert.Zero(t, s.Alone())
	svc.EndCall(ctx, call, upicollect.CallEnd{})
	_, _, err = s.NextDue(ctx, t0)
	require.NoError(t, err)
	assert.Equal(t, time.Millisecond, s.Alone())
}
