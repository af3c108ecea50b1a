package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/sandbox"
)

// flaky is a memory store whose methods fail with the error set for them.
type flaky struct {
	reconcile.Store
	mu   sync.Mutex
	errs map[string]error
}

func newFlaky() *flaky { return &flaky{Store: reconcile.NewMemoryStore(), errs: map[string]error{}} }

func (f *flaky) fail(method string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs[method] = err
}

func (f *flaky) err(method string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.errs[method]
}

func (f *flaky) Now(ctx context.Context) (time.Time, bool, error) {
	if err := f.err("Now"); err != nil {
		return time.Time{}, false, err
	}
	return f.Store.Now(ctx)
}

func (f *flaky) Lease(ctx context.Context, now time.Time, limit int, ttl time.Duration) ([]reconcile.Lease, error) {
	if err := f.err("Lease"); err != nil {
		return nil, err
	}
	return f.Store.Lease(ctx, now, limit, ttl)
}

func (f *flaky) LeaseOrder(ctx context.Context, id string, now time.Time, ttl time.Duration) (reconcile.Lease, error) {
	if err := f.err("LeaseOrder"); err != nil {
		return reconcile.Lease{}, err
	}
	return f.Store.LeaseOrder(ctx, id, now, ttl)
}

func (f *flaky) Extend(ctx context.Context, l reconcile.Lease, now time.Time, ttl time.Duration) error {
	if err := f.err("Extend"); err != nil {
		return err
	}
	return f.Store.Extend(ctx, l, now, ttl)
}

func (f *flaky) Commit(ctx context.Context, l reconcile.Lease, u reconcile.Update, deliver func(context.Context) error) error {
	if err := f.err("Commit"); err != nil {
		return err
	}
	return f.Store.Commit(ctx, l, u, deliver)
}

func (f *flaky) CommitMany(ctx context.Context, cs []reconcile.LeasedUpdate, deliver func(context.Context, int) error) ([]error, error) {
	if err := f.err("CommitMany"); err != nil {
		return nil, err
	}
	if err := f.err("CommitMany/each"); err != nil {
		errs := make([]error, len(cs))
		for i := range errs {
			errs[i] = err
		}
		return errs, nil
	}
	return f.Store.CommitMany(ctx, cs, deliver)
}

func (f *flaky) Release(ctx context.Context, ls ...reconcile.Lease) error {
	if err := f.err("Release"); err != nil {
		return err
	}
	return f.Store.Release(ctx, ls...)
}

func (f *flaky) NextDue(ctx context.Context, now time.Time) (time.Time, bool, error) {
	if err := f.err("NextDue"); err != nil {
		return time.Time{}, false, err
	}
	return f.Store.NextDue(ctx, now)
}

func (f *flaky) Lookup(ctx context.Context, id string) (*reconcile.OrderState, error) {
	if err := f.err("Lookup"); err != nil {
		return nil, err
	}
	return f.Store.Lookup(ctx, id)
}

// TestStoreFailures makes each store method fail in turn under Step and
// Confirm: each failure is reported or counted as the contract says, and
// nothing is delivered that was not recorded.
func TestStoreFailures(t *testing.T) {
	boom := errors.New("database gone")
	for _, tc := range []struct {
		method  string
		err     error
		paid    bool   // the order is paid (an event) or pending (none)
		stepErr string // "" for none
		errors  int    // Stats.Errors
		checked int
	}{
		{"Now", boom, true, "the store's clock: database gone", 0, 0},
		{"Lease", boom, true, "leasing due orders: database gone", 0, 0},
		{"NextDue", boom, false, "next due order: database gone", 0, 1},
		{"CommitMany", boom, true, "recording 1 checks: database gone", 1, 1},
		{"CommitMany/each", reconcile.ErrLeaseLost, true, "", 1, 1},
		{"CommitMany", boom, false, "recording 1 checks: database gone", 1, 1},
		{"CommitMany/each", reconcile.ErrLeaseLost, false, "", 1, 1},
		{"CommitMany/each", boom, false, `order "f-1": recording the check: database gone`, 1, 1},
	} {
		t.Run(tc.method+" "+tc.err.Error(), func(t *testing.T) {
			e := newEnv(t)
			ctx := boundedCtx(t)
			st := newFlaky()
			rec := &events{}
			sw, err := reconcile.New(e.client, st, rec.handle)
			require.NoError(t, err)
			o := e.intent(t, "f-1", upicollect.Rupees(10))
			if tc.paid {
				_, err := e.sb.Pay(o.ID)
				require.NoError(t, err)
			}
			require.NoError(t, sw.Track(ctx, o))
			st.fail(tc.method, tc.err)
			now := t0.Add(10 * time.Second)
			s, err := sw.Step(ctx, now)
			if tc.stepErr == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, tc.stepErr)
			}
			assert.Equal(t, tc.errors, s.Errors)
			assert.Equal(t, tc.checked, s.Checked)
			assert.Empty(t, rec.results(o.ID), "nothing delivered")
			st.fail(tc.method, nil)
			got, err := sw.Lookup(ctx, o.ID)
			require.NoError(t, err)
			assert.Equal(t, reconcile.Pending, got.State)
			if tc.method == "CommitMany" {
				// The step ended: the order was given back, due as it was.
				l, err := st.LeaseOrder(ctx, o.ID, now, time.Minute)
				require.NoError(t, err, "given back at once")
				assert.Equal(t, now, l.Due)
			}
		})
	}
}

// TestConfirmStoreFailures makes the store fail under Confirm.
func TestConfirmStoreFailures(t *testing.T) {
	boom := errors.New("database gone")
	e := newEnv(t)
	ctx := boundedCtx(t)
	st := newFlaky()
	rec := &events{}
	sw, err := reconcile.New(e.client, st, rec.handle, reconcile.WithClock(e.clk.Now))
	require.NoError(t, err)
	o := e.intent(t, "cf-1", upicollect.Rupees(10))
	require.NoError(t, sw.Track(ctx, o))

	st.fail("Now", boom)
	_, err = sw.Confirm(ctx, o.ID)
	require.ErrorIs(t, err, boom)
	st.fail("Now", nil)

	st.fail("LeaseOrder", boom)
	_, err = sw.Confirm(ctx, o.ID)
	require.ErrorIs(t, err, boom)
	st.fail("LeaseOrder", nil)

	st.fail("CommitMany", boom)
	s, err := sw.Confirm(ctx, o.ID)
	require.ErrorIs(t, err, boom)
	assert.Nil(t, s, "nothing recorded: no state to show")
	st.fail("CommitMany", nil)

	st.fail("Lookup", boom)
	s, err = sw.Confirm(ctx, o.ID)
	require.ErrorIs(t, err, boom)
	assert.Nil(t, s)
	st.fail("Lookup", nil)
	s, err = sw.Lookup(ctx, o.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, s.Checks, "the check before the failed Lookup was recorded")

	// A paid order whose lease is lost before the delivery: Confirm looks
	// again, and reads the ledger once the order is done.
	_, err = e.sb.Pay(o.ID)
	require.NoError(t, err)
	st.fail("CommitMany/each", reconcile.ErrLeaseLost)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s, err := sw.Confirm(ctx, o.ID)
		assert.NoError(t, err)
		if assert.NotNil(t, s) {
			assert.Equal(t, reconcile.Untracked, s.State)
		}
	}()
	// Untrack ends it: Confirm's next look finds the order done.
	require.NoError(t, st.Untrack(ctx, o.ID))
	<-done
	assert.Empty(t, rec.results(o.ID), "nothing delivered under a lost lease")
}

// ctxStore is a memory store whose Release fails once its context has
// ended, as a database's does.
type ctxStore struct{ reconcile.Store }

func (s ctxStore) Release(ctx context.Context, ls ...reconcile.Lease) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.Store.Release(ctx, ls...)
}

// TestConfirmCancelledDuringTheCheck cancels Confirm while the service
// holds its check: Confirm returns the context's error, records nothing and
// gives the order back on a context of its own (a store refuses the
// ended one), which the sweeper's next call waits for.
func TestConfirmCancelledDuringTheCheck(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	sent := make(chan struct{}, 4)
	transport := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(transport.CloseIdleConnections)
	client := e.sb.Client(upicollect.WithHTTPClient(&http.Client{Transport: signalling{transport, sent}}))
	st := ctxStore{reconcile.NewMemoryStore()}
	sw, err := reconcile.New(client, st, (&events{}).handle, reconcile.WithClock(e.clk.Now))
	require.NoError(t, err)
	o := e.intent(t, "cc-1", upicollect.Rupees(10))
	require.NoError(t, sw.Track(ctx, o))
	e.sb.InjectFault(sandbox.Fault{Op: "checkPaymentStatus", Latency: time.Hour, Times: -1})
	cctx, cancel := context.WithCancel(ctx)
	type result struct {
		s   *reconcile.OrderState
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := sw.Confirm(cctx, o.ID)
		done <- result{s, err}
	}()
	select {
	case <-sent:
	case <-ctx.Done():
		t.Fatal("the check never reached the service")
	}
	cancel()
	r := <-done
	require.ErrorIs(t, r.err, context.Canceled)
	assert.Nil(t, r.s)
	s, err := sw.Lookup(ctx, o.ID)
	require.NoError(t, err)
	assert.Zero(t, s.Checks)
	assert.Zero(t, s.Failures, "a cancelled check is not a failure")
	assert.Equal(t, t0.Add(10*time.Second), s.Next, "due as it was")
	stats, err := sw.Step(ctx, e.clk.Now()) // waits for the give-back; nothing is due yet
	require.NoError(t, err)
	assert.Zero(t, stats.Checked)
	_, err = st.LeaseOrder(ctx, o.ID, e.clk.Now(), time.Minute)
	require.NoError(t, err, "given back")
}

// TestGivingBackFails: when a Retry-After holds the checks, the orders not
// checked are given back; a store that fails to take them back is the
// step's error.
func TestGivingBackFails(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	client := e.sb.Client(upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1}))
	t.Cleanup(client.CloseIdleConnections)
	st := newFlaky()
	sw, err := reconcile.New(client, st, (&events{}).handle, reconcile.WithConcurrency(1))
	require.NoError(t, err)
	for i := range 2 {
		require.NoError(t, sw.Track(ctx, e.intent(t, fmt.Sprint("gb-", i), upicollect.Rupees(10))))
	}
	e.sb.InjectFault(sandbox.Fault{Op: "checkPaymentStatus", Status: http.StatusTooManyRequests,
		Header: http.Header{"Retry-After": {"90"}}, Body: []byte(`{"status":false,"statusCode":429,"msg":"slow down"}`)})
	st.fail("Release", errors.New("database gone"))
	_, err = sw.Step(ctx, t0.Add(10*time.Second))
	require.ErrorContains(t, err, "orders not checked: database gone")
}
