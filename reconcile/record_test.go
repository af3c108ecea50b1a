package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

// overriding is a store whose CommitDeliveries reports err for its first
// delivery, after recording the call as the store does.
type overriding struct {
	reconcile.Store
	err error
}

func (o *overriding) CommitDeliveries(ctx context.Context, ds []reconcile.LeasedDelivery, deliver func(context.Context, int) error) ([]error, error) {
	errs, err := o.Store.CommitDeliveries(ctx, ds, deliver)
	if err == nil && o.err != nil && len(errs) > 0 {
		errs[0] = o.err
	}
	return errs, err
}

// pendingFor records four paid orders' events through consumer "app" on
// st, pending for "php", and returns the time they were recorded at.
func pendingFor(t *testing.T, e *env, st reconcile.Store) time.Time {
	t.Helper()
	ctx := boundedCtx(t)
	require.NoError(t, st.RegisterConsumer(ctx, "php", t0))
	app, err := reconcile.New(e.client, st, func(context.Context, reconcile.Event) error { return nil }, reconcile.WithConsumer("app"))
	require.NoError(t, err)
	for _, id := range []string{"p-1", "p-2", "p-3", "p-4"} {
		o := e.intent(t, id, upicollect.Rupees(10))
		_, err := e.sb.Pay(o.ID)
		require.NoError(t, err)
		require.NoError(t, app.Track(ctx, o))
	}
	now := t0.Add(10 * time.Second)
	s, err := app.Step(ctx, now)
	require.NoError(t, err)
	require.Equal(t, 4, s.Paid)
	return now
}

// TestPendingDeliveriesInBatches: a consumer's pending events are
// delivered batch by batch until none is left (batches of 2, 4 events: a
// full batch is followed by another), a failed handler's delivery records
// its retry with one failure more, and each failure is counted once.
func TestPendingDeliveriesInBatches(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	st := reconcile.NewMemoryStore()
	now := pendingFor(t, e, st)
	down := errors.New("php receiver down")
	failing := map[string]bool{"p-3": true}
	php, err := reconcile.New(e.client, st, func(_ context.Context, ev reconcile.Event) error {
		if failing[ev.Order.ID] {
			return down
		}
		return nil
	}, reconcile.WithConsumer("php"), reconcile.WithBatchSize(2))
	require.NoError(t, err)
	s, err := php.Step(ctx, now)
	require.ErrorIs(t, err, down)
	assert.Equal(t, 3, s.Paid, "every pending event tried in one step")
	assert.Equal(t, 1, s.Errors)
	ds, err := st.LeaseDeliveries(ctx, "php", now.Add(24*time.Hour), 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, ds, 1)
	assert.Equal(t, "p-3", ds[0].Event.Order.ID)
	assert.Equal(t, 1, ds[0].Failures)

	// Its second failure backs off twice as long as its first.
	s, err = php.Step(ctx, now.Add(24*time.Hour+2*time.Minute))
	require.ErrorIs(t, err, down)
	assert.Equal(t, 1, s.Errors)
	ds, err = st.LeaseDeliveries(ctx, "php", now.Add(48*time.Hour), 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, ds, 1)
	assert.Equal(t, 2, ds[0].Failures)
}

// TestPendingDeliveryErrorsCounted: a pending delivery whose lease was
// lost is counted and the step goes on; a store's error for one ends the
// step, counted, naming the consumer.
func TestPendingDeliveryErrorsCounted(t *testing.T) {
	boom := errors.New("database gone")
	for _, tc := range []struct {
		name    string
		err     error
		stepErr string
	}{
		{"lease lost", reconcile.ErrLeaseLost, ""},
		{"store error", boom, `to "php": database gone`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			ctx := boundedCtx(t)
			st := &overriding{Store: reconcile.NewMemoryStore()}
			now := pendingFor(t, e, st)
			st.err = tc.err
			php, err := reconcile.New(e.client, st, func(context.Context, reconcile.Event) error { return nil }, reconcile.WithConsumer("php"))
			require.NoError(t, err)
			s, err := php.Step(ctx, now)
			if tc.stepErr == "" {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.True(t, strings.Contains(err.Error(), tc.stepErr), err.Error())
			}
			assert.Equal(t, 1, s.Errors)
		})
	}
}

// TestConsumerNameAtItsLimit: a name of exactly MaxConsumerNameLen bytes
// is one; a byte more is not.
func TestConsumerNameAtItsLimit(t *testing.T) {
	assert.NoError(t, reconcile.ValidateConsumerName(strings.Repeat("a", reconcile.MaxConsumerNameLen)))
	assert.Error(t, reconcile.ValidateConsumerName(strings.Repeat("a", reconcile.MaxConsumerNameLen+1)))
}

// lostOnce is a memory store whose first CommitMany finds every lease lost
// (another sweeper took the orders and gave them back) and records
// nothing.
type lostOnce struct {
	reconcile.Store
	done       bool
	releaseErr error // the giving back's
}

func (l *lostOnce) CommitMany(ctx context.Context, cs []reconcile.LeasedUpdate, deliver func(context.Context, int) error) ([]error, error) {
	if l.done {
		return l.Store.CommitMany(ctx, cs, deliver)
	}
	l.done = true
	errs := make([]error, len(cs))
	for i, c := range cs {
		l.releaseErr = errors.Join(l.releaseErr, l.Store.Release(ctx, c.Lease))
		errs[i] = reconcile.ErrLeaseLost
	}
	return errs, nil
}

// TestConfirmLooksAgainAfterALostLease: Confirm whose outcome was dropped
// (its lease lost) checks the order again under a new lease, and reports
// the state that check recorded: the payment, delivered once.
func TestConfirmLooksAgainAfterALostLease(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	st := &lostOnce{Store: reconcile.NewMemoryStore()}
	rec := &events{}
	sw, err := reconcile.New(e.client, st, rec.handle, reconcile.WithClock(e.clk.Now))
	require.NoError(t, err)
	o := e.intent(t, "lost-1", upicollect.Rupees(10))
	require.NoError(t, sw.Track(ctx, o))
	_, err = e.sb.Pay(o.ID)
	require.NoError(t, err)
	s, err := sw.Confirm(ctx, o.ID)
	require.NoError(t, err)
	require.NoError(t, st.releaseErr)
	require.True(t, st.done, "the first outcome was dropped")
	assert.Equal(t, reconcile.Paid, s.State)
	assert.Equal(t, []reconcile.Result{reconcile.Paid}, rec.results(o.ID))
}

// TestOutageCountsEveryFailedCheck: a step that finds the service failing
// for every order (three orders' checks in a row) counts each of those
// checks as one error, the one that held the checks included, and gives
// the unchecked orders back, due as they were (a store that cannot take
// them back is the step's error).
func TestOutageCountsEveryFailedCheck(t *testing.T) {
	for _, releaseFails := range []bool{false, true} {
		t.Run(fmt.Sprint("release fails: ", releaseFails), func(t *testing.T) {
			e := newEnv(t)
			ctx := boundedCtx(t)
			cnt := &counting{rt: http.DefaultTransport.(*http.Transport).Clone()}
			client := e.sb.Client(upicollect.WithHTTPClient(&http.Client{Transport: cnt}),
				upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1}))
			t.Cleanup(client.CloseIdleConnections)
			st := newFlaky()
			sw, err := reconcile.New(client, st, func(context.Context, reconcile.Event) error { return nil },
				reconcile.WithClock(e.clk.Now), reconcile.WithConcurrency(1))
			require.NoError(t, err)
			for i := range 50 {
				require.NoError(t, sw.Track(ctx, reconcile.Order{ID: fmt.Sprintf("oc-%03d", i), Amount: upicollect.Rupees(10), Created: e.clk.Now()}))
			}
			e.sb.InjectFault(maintenancePage)
			if releaseFails {
				st.fail("Release", errors.New("database gone"))
			}
			now := t0.Add(time.Minute)
			s, err := sw.Step(ctx, now)
			if releaseFails {
				require.ErrorContains(t, err, "giving back")
			} else {
				require.NoError(t, err)
			}
			require.Less(t, int(cnt.checks.Load()), 50, "the checks were held before every order was asked")
			assert.Equal(t, 3, s.Errors, "the two failed checks and the one that held the others")
		})
	}
}

// cancelling cancels its context once a status check is on its way, and
// fails the check as a dropped connection would.
type cancelling struct{ cancel context.CancelFunc }

func (c cancelling) RoundTrip(r *http.Request) (*http.Response, error) {
	c.cancel()
	return nil, r.Context().Err()
}

// TestConfirmEndsWithItsContext: a Confirm whose context ends during its
// check returns the context's error as it is, records nothing and gives
// the order back (at once after the context: a cleanup).
func TestConfirmEndsWithItsContext(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(boundedCtx(t))
	client := e.sb.Client(upicollect.WithHTTPClient(&http.Client{Transport: cancelling{cancel}}),
		upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1}))
	st := reconcile.NewMemoryStore()
	sw, err := reconcile.New(client, st, func(context.Context, reconcile.Event) error { return nil }, reconcile.WithClock(e.clk.Now))
	require.NoError(t, err)
	o := reconcile.Order{ID: "cx-1", Amount: upicollect.Rupees(10), Created: t0}
	require.NoError(t, sw.Track(boundedCtx(t), o))
	_, err = sw.Confirm(ctx, o.ID)
	assert.Equal(t, context.Canceled, err, "the context's error, as it is")
	got, err := st.Lookup(boundedCtx(t), o.ID)
	require.NoError(t, err)
	assert.Zero(t, got.Checks, "nothing recorded")
}
