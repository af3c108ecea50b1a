package reconcile_test

import (
	"context"
	"errors"
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
