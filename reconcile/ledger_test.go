package reconcile_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/reconciletest"
	"github.com/upicollect/upicollect-go/sandbox"
)

// oneTry is a client of e's sandbox that makes one attempt per call, so
// that a failed check is one request.
func (e *env) oneTry(t *testing.T) *upicollect.Client {
	c := e.sb.Client(upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1}))
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// checks counts the status checks the sandbox was sent, at or after from.
func (e *env) checks(from time.Time) int {
	n := 0
	for _, r := range e.sb.Requests() {
		if r.Op == "checkPaymentStatus" && !r.Time.Before(from) {
			n++
		}
	}
	return n
}

// stepEvery steps sw every d of sandbox time from the clock's time to
// until, calling before (if set) ahead of each step. Handler errors are
// expected and ignored; any other error fails the test.
func stepEvery(t *testing.T, e *env, sw *reconcile.Sweeper, d time.Duration, until time.Time, before func(now time.Time)) reconcile.Stats {
	t.Helper()
	ctx := boundedCtx(t)
	var sum reconcile.Stats
	for now := e.clk.Now(); !now.After(until); now = now.Add(d) {
		e.clk.Set(now)
		if before != nil {
			before(now)
		}
		st, err := sw.Step(ctx, now)
		reconciletest.Add(&sum, st)
		var he interface{ Unwrap() error }
		if err != nil && !errors.As(err, &he) {
			require.NoError(t, err)
		}
	}
	return sum
}

// TestNoSpin makes one order fail for an hour of sandbox time, stepping
// every simulated second: its handler fails, or its check fails. The
// order is retried after a backoff (5 s doubling up to 5 min), never at
// every step.
func TestNoSpin(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  func(e *env)
		handle func(context.Context, reconcile.Event) error
		max    int
	}{
		// 0:10 first check, then 5, 10, 20 ... 300 s: 8 checks in the first
		// 10 minutes, then one every 5 minutes.
		{"handler fails", func(*env) {}, func(context.Context, reconcile.Event) error { return errors.New("ledger down") }, 20},
		// The payer's window on its schedule (10 s, then 30 s: the
		// schedule is sooner than the backoff), then every 5 minutes.
		{"check fails", func(e *env) {
			e.sb.InjectFault(sandbox.Fault{Op: "checkPaymentStatus", Status: http.StatusServiceUnavailable, Times: -1})
		}, func(context.Context, reconcile.Event) error { return nil }, 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			ctx := boundedCtx(t)
			sw, err := reconcile.New(e.oneTry(t), reconcile.NewMemoryStore(), tc.handle)
			require.NoError(t, err)
			o := e.intent(t, "spin-1", upicollect.Rupees(10))
			_, err = e.sb.Pay(o.ID)
			require.NoError(t, err)
			require.NoError(t, sw.Track(ctx, o))
			tc.setup(e)
			const hour = 3600
			stepEvery(t, e, sw, time.Second, t0.Add(hour*time.Second), nil)
			n := e.checks(t0)
			t.Logf("spin (%s): %d checks of one failing order in %d simulated seconds, stepping every second: %.4f checks per simulated second",
				tc.name, n, hour, float64(n)/hour)
			assert.LessOrEqual(t, n, tc.max)
			assert.GreaterOrEqual(t, n, 12, "still retried")
			s, err := sw.Lookup(ctx, o.ID)
			require.NoError(t, err)
			assert.Equal(t, reconcile.Pending, s.State)
			assert.Positive(t, s.Failures)
		})
	}
}

// TestNoStarvation tracks 256 paid orders whose handler always fails (a
// whole batch) and one good order paid two minutes later: the good order is
// still checked on its schedule and delivered on time.
func TestNoStarvation(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	var good atomic.Value
	sw, err := reconcile.New(e.client, reconcile.NewMemoryStore(), func(_ context.Context, ev reconcile.Event) error {
		if ev.Order.ID == "good" {
			good.Store(ev)
			return nil
		}
		return errors.New("this order's handler always fails")
	})
	require.NoError(t, err)
	for i := range reconcile.DefaultBatchSize {
		o := e.intent(t, fmt.Sprintf("bad-%03d", i), upicollect.Rupees(10))
		_, err := e.sb.Pay(o.ID)
		require.NoError(t, err)
		require.NoError(t, sw.Track(ctx, o))
	}
	o := e.intent(t, "good", upicollect.Rupees(10))
	paidAt := t0.Add(2 * time.Minute)
	require.NoError(t, e.sb.Settle(o.ID, upicollect.TxnSuccess, paidAt))
	require.NoError(t, sw.Track(ctx, o))
	stepEvery(t, e, sw, time.Second, t0.Add(10*time.Minute), nil)
	ev, ok := good.Load().(reconcile.Event)
	require.True(t, ok, "the good order was never delivered")
	delay := ev.At.Sub(paidAt)
	t.Logf("starvation: %d orders whose handler always fails; the good order was delivered %v after its payment", reconcile.DefaultBatchSize, delay)
	assert.Equal(t, reconcile.Paid, ev.Result)
	assert.LessOrEqual(t, delay, 30*time.Second, "on its schedule")
}

// TestOutageRecovery pays 300 orders on time while the service answers
// every status check with 503 for 19 minutes: every payment is reported,
// and soon after the service answers again.
func TestOutageRecovery(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	var (
		mu        sync.Mutex
		delivered = map[string]reconcile.Event{}
	)
	sw, err := reconcile.New(e.oneTry(t), reconcile.NewMemoryStore(), func(_ context.Context, ev reconcile.Event) error {
		mu.Lock()
		defer mu.Unlock()
		delivered[ev.Order.ID] = ev
		return nil
	}, reconcile.WithConcurrency(16))
	require.NoError(t, err)
	const orders = 300
	paid := map[string]time.Time{}
	for i := range orders {
		e.clk.Set(t0.Add(time.Duration(i) * 2 * time.Second)) // created over 10 minutes
		o := e.intent(t, fmt.Sprintf("storm-%03d", i), upicollect.Rupees(100))
		at := o.Created.Add(30*time.Second + time.Duration(i*37%840)*time.Second) // within the payer's window
		require.NoError(t, e.sb.Settle(o.ID, upicollect.TxnSuccess, at))
		paid[o.ID] = at
		require.NoError(t, sw.Track(ctx, o))
	}
	stormStart, stormEnd := t0.Add(5*time.Minute), t0.Add(24*time.Minute)
	// Step at every due time, and at the storm's start and end.
	storming := false
	for now := t0; now.Before(t0.Add(2 * time.Hour)); {
		e.clk.Set(now)
		switch {
		case !storming && !now.Before(stormStart) && now.Before(stormEnd):
			e.sb.InjectFault(sandbox.Fault{Op: "checkPaymentStatus", Status: http.StatusServiceUnavailable, Times: -1})
			storming = true
		case storming && !now.Before(stormEnd):
			e.sb.Clear(sandbox.Faults)
			storming = false
		}
		st, err := sw.Step(ctx, now)
		require.NoError(t, err)
		next := st.NextDue
		if next.IsZero() {
			break
		}
		if !next.After(now) {
			next = now.Add(time.Second)
		}
		for _, edge := range []time.Time{stormStart, stormEnd} {
			if now.Before(edge) && next.After(edge) {
				next = edge
			}
		}
		now = next
	}
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, delivered, orders)
	var delayed int
	var worst, afterEnd time.Duration
	for id, ev := range delivered {
		assert.Equal(t, reconcile.Paid, ev.Result, id)
		d := ev.At.Sub(paid[id])
		if d > 30*time.Second {
			delayed++
		}
		worst = max(worst, d)
		afterEnd = max(afterEnd, ev.At.Sub(stormEnd))
	}
	t.Logf("outage: 19-minute 503 storm, %d orders paid on time: %d delayed beyond 30 s, longest delay %v, last one seen %v after the service answered again",
		orders, delayed, worst, afterEnd)
	assert.LessOrEqual(t, afterEnd, reconcile.DefaultMaxBackoff+reconcile.DefaultStepInterval, "seen within the backoff's cap of the recovery")
}

// TestLastCheckFailuresEndTracking makes every check fail from the end of
// the late window on: the last check is made five times, then the order
// ends with a reason and a warning, and is not due any more.
func TestLastCheckFailuresEndTracking(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	var logs syncBuffer
	sw, err := reconcile.New(e.oneTry(t), reconcile.NewMemoryStore(), (&events{}).handle,
		reconcile.WithPayerWindow(2*time.Minute), reconcile.WithLateWindow(10*time.Minute),
		reconcile.WithSchedule(reconcile.Schedule{{Until: 10 * time.Minute, Every: time.Minute}}),
		reconcile.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	require.NoError(t, err)
	o := e.intent(t, "last-1", upicollect.Rupees(10))
	require.NoError(t, sw.Track(ctx, o))
	end := t0.Add(10 * time.Minute)
	var last reconcile.Stats
	stepEvery(t, e, sw, time.Second, t0.Add(2*time.Hour), func(now time.Time) {
		if now.Equal(end) {
			e.sb.InjectFault(sandbox.Fault{Op: "checkPaymentStatus", Status: http.StatusBadGateway, Times: -1})
		}
	})
	s, err := sw.Lookup(ctx, o.ID)
	require.NoError(t, err)
	failed := e.checks(end)
	t.Logf("last check: made %d times at the end of the late window, then tracking ended: %q", failed, s.Reason)
	assert.Equal(t, 5, failed)
	assert.Equal(t, reconcile.ReasonChecksFailed, s.Reason)
	assert.Equal(t, reconcile.Expired, s.State)
	assert.Equal(t, 5, s.Failures)
	assert.True(t, s.Next.IsZero())
	assert.Contains(t, logs.String(), "the last checks of the late window failed")
	assert.Contains(t, logs.String(), "order_id=last-1")
	last, err = sw.Step(ctx, t0.Add(100*time.Hour))
	require.NoError(t, err)
	assert.Equal(t, reconcile.Stats{}, last, "not due any more")
}

// unnamed is a SUCCESS answer of amount that does not name its order.
func unnamed(amount string) sandbox.Fault {
	return sandbox.Fault{Op: "checkPaymentStatus", Status: http.StatusOK, Times: -1,
		Header: http.Header{"Content-Type": {"application/json"}},
		Body:   []byte(`{"status":true,"statusCode":200,"txnStatus":"SUCCESS","msg":"Transaction is successful","data":{"amount":"` + amount + `","UTR":"412345678901"}}`)}
}

// TestUnnamedSuccessSettlesNothing answers the status checks with SUCCESS
// answers that do not name their order: they report no Paid and no
// Mismatch, and cannot end tracking before the late window's last checks;
// once the real answers come back, the real outcome is reported.
func TestUnnamedSuccessSettlesNothing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		amount string
	}{
		{"the order's amount", "10.00"},
		{"another amount", "1.00"},
	} {
		t.Run(tc.name+" for ever", func(t *testing.T) {
			e := newEnv(t)
			ctx := boundedCtx(t)
			rec := &events{}
			sw, err := reconcile.New(e.oneTry(t), reconcile.NewMemoryStore(), rec.handle)
			require.NoError(t, err)
			o := e.intent(t, "anon-1", upicollect.Rupees(10))
			require.NoError(t, sw.Track(ctx, o))
			e.sb.InjectFault(unnamed(tc.amount))
			sum := walk(t, e, sw, t0.Add(100*time.Hour))
			assert.Empty(t, rec.results(o.ID), "nothing settled")
			assert.Zero(t, sum.Checked)
			s, err := sw.Lookup(ctx, o.ID)
			require.NoError(t, err)
			assert.Equal(t, reconcile.Pending, s.State, "neither paid, mismatched nor expired")
			assert.Equal(t, reconcile.ReasonChecksFailed, s.Reason)
			assert.Equal(t, sum.Errors, s.Checks, "each answer counted as a check made")
			t.Logf("unnamed SUCCESS (%s): %d answers, no event, tracking ended at the late window with %q", tc.name, s.Checks, s.Reason)
		})
	}
	t.Run("then the real answer", func(t *testing.T) {
		e := newEnv(t)
		ctx := boundedCtx(t)
		rec := &events{}
		sw, err := reconcile.New(e.oneTry(t), reconcile.NewMemoryStore(), rec.handle)
		require.NoError(t, err)
		o := e.intent(t, "anon-2", upicollect.Rupees(10))
		require.NoError(t, e.sb.Settle(o.ID, upicollect.TxnSuccess, t0.Add(20*time.Second)))
		require.NoError(t, sw.Track(ctx, o))
		f := unnamed("1.00")
		f.Times = 3
		e.sb.InjectFault(f)
		walk(t, e, sw, t0.Add(time.Hour))
		assert.Equal(t, []reconcile.Result{reconcile.Paid}, rec.results(o.ID))
		s, err := sw.Lookup(ctx, o.ID)
		require.NoError(t, err)
		assert.Equal(t, reconcile.Paid, s.State)
		assert.Equal(t, 4, s.Checks)
		assert.Zero(t, s.Failures, "a good answer resets the failures")
	})
}

// clockStore is a memory store with a clock of its own, as a database's:
// the test kit's manual clock, at the zero time until set.
type clockStore struct {
	reconcile.Store
	clk *reconciletest.Clock
}

func newClockStore() *clockStore {
	return &clockStore{Store: reconcile.NewMemoryStore(), clk: reconciletest.NewClock(time.Time{})}
}

func (c *clockStore) set(t time.Time) { c.clk.Set(t) }

func (c *clockStore) Now(context.Context) (time.Time, bool, error) { return c.clk.Now(), true, nil }

// TestClockAheadJudgesOnTheStore steps a sweeper whose clock is 10 minutes
// ahead of its store's: it expires nothing early, and the events it
// reports carry the store's time.
func TestClockAheadJudgesOnTheStore(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	rec := &events{}
	st := newClockStore()
	sw, err := reconcile.New(e.client, st, rec.handle)
	require.NoError(t, err)
	o := e.intent(t, "skew-1", upicollect.Rupees(10))
	require.NoError(t, sw.Track(ctx, o))
	ahead := 10 * time.Minute
	early := 0
	for now := t0.Add(10 * time.Second); now.Before(t0.Add(reconcile.DefaultPayerWindow)); now = now.Add(10 * time.Second) {
		e.clk.Set(now)
		st.set(now)
		_, err := sw.Step(ctx, now.Add(ahead))
		require.NoError(t, err)
		if len(rec.results(o.ID)) > 0 {
			early++
		}
	}
	t.Logf("skew: a sweeper %v ahead of its store: %d events before the payer's window ended", ahead, early)
	assert.Zero(t, early, "nothing expired before the payer's window ended")
	end := t0.Add(reconcile.DefaultPayerWindow)
	e.clk.Set(end)
	st.set(end)
	_, err = sw.Step(ctx, end.Add(ahead))
	require.NoError(t, err)
	assert.Equal(t, []reconcile.Result{reconcile.Expired}, rec.results(o.ID))
	assert.Equal(t, end, rec.get(o.ID, reconcile.Expired).At, "judged on the store's clock")
}

// TestClockFarAheadKeepsTheLastCheck steps once with a clock 1000 hours
// ahead (the memory store has no clock to correct it): the orders are not
// dropped by that check; each gets its last check first. The orders are
// due again within that step, leased again, and given back at once.
func TestClockFarAheadKeepsTheLastCheck(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	rec := &events{}
	sw, err := reconcile.New(e.client, reconcile.NewMemoryStore(), rec.handle, reconcile.WithBatchSize(1))
	require.NoError(t, err)
	ids := []string{"jump-1", "jump-2"}
	for _, id := range ids {
		require.NoError(t, sw.Track(ctx, e.intent(t, id, upicollect.Rupees(10))))
	}
	far := t0.Add(1000 * time.Hour)
	st, err := sw.Step(ctx, far)
	require.NoError(t, err)
	assert.Equal(t, 2, st.Checked, "each once in the step")
	for _, id := range ids {
		s, err := sw.Lookup(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, t0.Add(reconcile.DefaultLateWindow), s.Next, "%s: its last check is still to come", id)
	}
	st, err = sw.Step(ctx, far.Add(reconcile.DefaultStepInterval))
	require.NoError(t, err)
	assert.Equal(t, 2, st.Checked, "the last checks: no lease was left held")
	for _, id := range ids {
		s, err := sw.Lookup(ctx, id)
		require.NoError(t, err)
		assert.True(t, s.Next.IsZero(), "%s: then tracking ends", id)
		assert.Equal(t, 2, s.Checks)
	}
}

// TestSlowHandlerDeliversOnce holds a handler far beyond the lease TTL in
// sandbox time while another sweeper steps and the return page confirms:
// the event is delivered once, and Confirm makes no second check.
func TestSlowHandlerDeliversOnce(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	var deliveries atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	var deadline atomic.Bool
	handler := func(ctx context.Context, ev reconcile.Event) error {
		if deliveries.Add(1) == 1 {
			_, ok := ctx.Deadline()
			deadline.Store(ok)
			close(started)
			<-release
		}
		return nil
	}
	st := reconcile.NewMemoryStore()
	ttl := time.Minute
	a, err := reconcile.New(e.client, st, handler, reconcile.WithLeaseTTL(ttl), reconcile.WithClock(e.clk.Now))
	require.NoError(t, err)
	b, err := reconcile.New(e.client, st, handler, reconcile.WithLeaseTTL(ttl), reconcile.WithClock(e.clk.Now))
	require.NoError(t, err)
	o := e.intent(t, "slow-1", upicollect.Rupees(10))
	_, err = e.sb.Pay(o.ID)
	require.NoError(t, err)
	require.NoError(t, a.Track(ctx, o))
	now := t0.Add(10 * time.Second)
	e.clk.Set(now)
	stepped := make(chan error, 1)
	go func() {
		_, err := a.Step(ctx, now)
		stepped <- err
	}()
	<-started
	// The handler holds on; ten lease TTLs pass in sandbox time.
	later := now.Add(10 * ttl)
	e.clk.Set(later)
	s, err := b.Step(ctx, later)
	require.NoError(t, err)
	assert.Zero(t, s.Checked, "the other sweeper does not take the order")
	confirmed := make(chan *reconcile.OrderState, 1)
	go func() {
		s, err := b.Confirm(ctx, o.ID)
		assert.NoError(t, err)
		confirmed <- s
	}()
	close(release)
	require.NoError(t, <-stepped)
	var got *reconcile.OrderState
	select {
	case got = <-confirmed:
	case <-ctx.Done():
		t.Fatal("Confirm did not return")
	}
	t.Logf("slow handler: held %v of sandbox time under a %v lease: %d deliveries, %d status checks", 10*ttl, ttl, deliveries.Load(), e.checks(t0))
	assert.Equal(t, int32(1), deliveries.Load())
	assert.True(t, deadline.Load(), "the handler's context is bounded")
	require.NotNil(t, got)
	assert.Equal(t, reconcile.Paid, got.State)
	assert.Len(t, got.Events, 1)
	assert.Equal(t, 1, e.checks(t0), "Confirm waited and read the ledger: no second check")
}

// TestConfirm confirms orders from the return page: a paid order is
// delivered through the handler once and then read from the ledger; a
// pending one is rescheduled; a failed check and a failed handler are
// returned with the state.
func TestConfirm(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	rec := &events{}
	failOnce := atomic.Bool{}
	sw, err := reconcile.New(e.oneTry(t), reconcile.NewMemoryStore(), func(ctx context.Context, ev reconcile.Event) error {
		if ev.Order.ID == "flaky" && !failOnce.Swap(true) {
			return errors.New("ledger down once")
		}
		return rec.handle(ctx, ev)
	}, reconcile.WithClock(e.clk.Now))
	require.NoError(t, err)
	_, err = sw.Confirm(ctx, "none")
	require.ErrorIs(t, err, reconcile.ErrNotTracked)
	_, err = sw.Lookup(ctx, "none")
	require.ErrorIs(t, err, reconcile.ErrNotTracked)

	paid := e.intent(t, "paid", upicollect.Rupees(10))
	_, err = e.sb.Pay(paid.ID)
	require.NoError(t, err)
	require.NoError(t, sw.Track(ctx, paid))
	e.clk.Set(t0.Add(3 * time.Second)) // before its first scheduled check
	s, err := sw.Confirm(ctx, paid.ID)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Paid, s.State)
	assert.Equal(t, 1, s.Checks)
	require.Len(t, s.Events, 1)
	assert.Equal(t, reconcile.Paid, s.Events[0].Result)
	assert.Equal(t, t0.Add(3*time.Second), s.Events[0].At)
	assert.Equal(t, []reconcile.Result{reconcile.Paid}, rec.results(paid.ID))
	before := e.checks(t0)
	s, err = sw.Confirm(ctx, paid.ID)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Paid, s.State)
	assert.Equal(t, before, e.checks(t0), "a final order is read from the ledger")
	assert.Equal(t, []reconcile.Result{reconcile.Paid}, rec.results(paid.ID), "delivered once")
	st, err := sw.Step(ctx, t0.Add(time.Hour))
	require.NoError(t, err)
	assert.Zero(t, st.Paid, "the sweeper does not deliver it again")

	pending := e.intent(t, "pending", upicollect.Rupees(10))
	require.NoError(t, sw.Track(ctx, pending))
	s, err = sw.Confirm(ctx, pending.ID)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Pending, s.State)
	assert.Equal(t, 1, s.Checks)
	assert.Equal(t, e.clk.Now().Add(10*time.Second), s.Next, "rescheduled from the check")

	e.sb.InjectFault(sandbox.Fault{Op: "checkPaymentStatus", Status: http.StatusServiceUnavailable})
	s, err = sw.Confirm(ctx, pending.ID)
	require.Error(t, err)
	assert.ErrorContains(t, err, `order "pending": status check`)
	require.NotNil(t, s, "the state comes with the error")
	assert.Equal(t, 1, s.Failures)
	assert.Equal(t, e.clk.Now().Add(reconcile.DefaultStepInterval), s.Next)

	flaky := e.intent(t, "flaky", upicollect.Rupees(10))
	_, err = e.sb.Pay(flaky.ID)
	require.NoError(t, err)
	require.NoError(t, sw.Track(ctx, flaky))
	s, err = sw.Confirm(ctx, flaky.ID)
	require.ErrorContains(t, err, "ledger down once")
	require.NotNil(t, s)
	assert.Equal(t, reconcile.Pending, s.State, "not recorded")
	assert.Empty(t, s.Events)
	s, err = sw.Confirm(ctx, flaky.ID)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Paid, s.State)
	assert.Equal(t, []reconcile.Result{reconcile.Paid}, rec.results(flaky.ID))

	failed := e.intent(t, "failed", upicollect.Rupees(10))
	require.NoError(t, e.sb.Settle(failed.ID, upicollect.TxnFail, e.clk.Now()))
	require.NoError(t, sw.Track(ctx, failed))
	before = e.checks(t0)
	s, err = sw.Confirm(ctx, failed.ID)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Failed, s.State)
	assert.Equal(t, []reconcile.Result{reconcile.Failed}, rec.results(failed.ID))
	assert.Equal(t, before+1, e.checks(t0), "one check, though the order is still tracked")

	require.NoError(t, sw.Untrack(ctx, pending.ID))
	before = e.checks(t0)
	s, err = sw.Confirm(ctx, pending.ID)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Untracked, s.State)
	assert.Equal(t, before, e.checks(t0), "an untracked order is not checked")
	require.ErrorIs(t, sw.Untrack(ctx, "none"), reconcile.ErrNotTracked)

	ctx2, cancel := context.WithCancel(ctx)
	cancel()
	_, err = sw.Confirm(ctx2, paid.ID)
	require.ErrorIs(t, err, context.Canceled)
}

// TestConfirmRacingSweepers confirms every order from four return pages at
// once while two sweepers step: every payment is delivered exactly once.
func TestConfirmRacingSweepers(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	var (
		mu    sync.Mutex
		count = map[string]int{}
	)
	handler := func(_ context.Context, ev reconcile.Event) error {
		mu.Lock()
		defer mu.Unlock()
		count[ev.Order.ID]++
		return nil
	}
	st := reconcile.NewMemoryStore()
	var sws []*reconcile.Sweeper
	for range 2 {
		sw, err := reconcile.New(e.client, st, handler, reconcile.WithClock(e.clk.Now), reconcile.WithBatchSize(8), reconcile.WithConcurrency(2))
		require.NoError(t, err)
		sws = append(sws, sw)
	}
	const orders = 60
	for i := range orders {
		o := e.intent(t, fmt.Sprintf("race-%02d", i), upicollect.Rupees(10))
		_, err := e.sb.Pay(o.ID)
		require.NoError(t, err)
		require.NoError(t, sws[0].Track(ctx, o))
	}
	now := t0.Add(10 * time.Second)
	e.clk.Set(now)
	var wg sync.WaitGroup
	for _, sw := range sws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := sw.Step(ctx, now)
			assert.NoError(t, err)
		}()
	}
	for p := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range orders {
				s, err := sws[p%2].Confirm(ctx, fmt.Sprintf("race-%02d", (i+p*15)%orders))
				if assert.NoError(t, err) {
					assert.Equal(t, reconcile.Paid, s.State)
				}
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	twice := 0
	for _, n := range count {
		if n > 1 {
			twice++
		}
	}
	t.Logf("confirm race: %d orders, 4 return pages and 2 sweepers: %d delivered, %d twice, %d status checks", orders, len(count), twice, e.checks(t0))
	assert.Len(t, count, orders)
	assert.Zero(t, twice)
	assert.Equal(t, orders, e.checks(t0), "one check per order: the others read the ledger")
}

func TestTrackTxAndTrackDifferently(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	sw, err := reconcile.New(e.client, reconcile.NewMemoryStore(), (&events{}).handle)
	require.NoError(t, err)
	o := reconcile.Order{ID: "tx-1", Amount: upicollect.Rupees(10), Created: t0}
	err = sw.TrackTx(ctx, nil, o)
	var ve *upicollect.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "reconcile.TrackTx", ve.Op)
	assert.Equal(t, "tx", ve.Fields[len(ve.Fields)-1].Field)
	err = sw.TrackTx(ctx, nil, reconcile.Order{ID: "bad id"})
	require.ErrorAs(t, err, &ve)
	assert.Len(t, ve.Fields, 4, "every field named: %v", ve.Fields)
	require.ErrorIs(t, sw.TrackTx(ctx, &sql.Tx{}, reconcile.Order{ID: "bad id"}), upicollect.ErrValidation)
	require.ErrorIs(t, sw.TrackTx(ctx, &sql.Tx{}, o), reconcile.ErrNoTransactions)

	require.NoError(t, sw.Track(ctx, o))
	require.NoError(t, sw.Track(ctx, o), "the same order again")
	other := o
	other.Amount = upicollect.Rupees(11)
	require.ErrorIs(t, sw.Track(ctx, other), reconcile.ErrTrackedDifferently)
	s, err := sw.Lookup(ctx, o.ID)
	require.NoError(t, err)
	assert.Equal(t, o.Amount, s.Order.Amount, "the first amount stays")
	assert.Equal(t, t0.Add(10*time.Second), s.Next)
}

// failingMany is a memory store whose CommitMany fails while fail is set,
// and that counts its CommitMany calls and outcomes.
type failingMany struct {
	reconcile.Store
	fail            atomic.Bool
	calls, outcomes atomic.Int32
}

func (f *failingMany) CommitMany(ctx context.Context, cs []reconcile.LeasedUpdate, deliver func(context.Context, int) error) ([]error, error) {
	f.calls.Add(1)
	f.outcomes.Add(int32(len(cs)))
	if f.fail.Load() {
		return nil, errors.New("database gone")
	}
	return f.Store.CommitMany(ctx, cs, deliver)
}

// TestStepBatchesAndGivesBack records a batch's eventless outcomes in one
// CommitMany, and a step whose record fails gives its leases back at once,
// with those of the batch checked beside it.
func TestStepBatchesAndGivesBack(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	st := &failingMany{Store: reconcile.NewMemoryStore()}
	sw, err := reconcile.New(e.client, st, (&events{}).handle, reconcile.WithBatchSize(8))
	require.NoError(t, err)
	for i := range 16 { // two full batches
		require.NoError(t, sw.Track(ctx, e.intent(t, fmt.Sprintf("batch-%02d", i), upicollect.Rupees(10))))
	}
	now := t0.Add(10 * time.Second)
	st.fail.Store(true)
	s1, err := sw.Step(ctx, now)
	require.ErrorContains(t, err, "database gone")
	assert.Equal(t, 16, s1.Errors, "neither batch recorded: the first's CommitMany failed while the second was checked")
	ls, err := st.Lease(ctx, now, 100, time.Minute)
	require.NoError(t, err)
	assert.Len(t, ls, 16, "given back at once, not at the lease's expiry: the first batch's and the second's")
	require.NoError(t, st.Release(ctx, ls...))

	st.fail.Store(false)
	st.calls.Store(0)
	st.outcomes.Store(0)
	s, err := sw.Step(ctx, now)
	require.NoError(t, err)
	assert.Equal(t, 16, s.Pending, "both full batches in one step")
	assert.Equal(t, int32(2), st.calls.Load(), "one CommitMany per batch")
	assert.Equal(t, int32(16), st.outcomes.Load())
}

// TestRunStepsOnTheStoreClock runs a sweeper whose WithClock is far behind
// its store's clock: Run steps on the store's.
func TestRunStepsOnTheStoreClock(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(boundedCtx(t))
	defer cancel()
	st := newClockStore()
	st.set(t0.Add(10 * time.Second))
	got := make(chan reconcile.Event, 1)
	sw, err := reconcile.New(e.client, st, func(_ context.Context, ev reconcile.Event) error {
		got <- ev
		return nil
	}, reconcile.WithClock(func() time.Time { return t0.Add(-time.Hour) }), reconcile.WithStepInterval(time.Millisecond))
	require.NoError(t, err)
	o := e.intent(t, "run-clock", upicollect.Rupees(10))
	_, err = e.sb.Pay(o.ID)
	require.NoError(t, err)
	require.NoError(t, sw.Track(ctx, o))
	done := make(chan error, 1)
	go func() { done <- sw.Run(ctx) }()
	select {
	case ev := <-got:
		assert.Equal(t, t0.Add(10*time.Second), ev.At)
	case <-ctx.Done():
		t.Fatal("Run did not step on the store's clock")
	}
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
}

// TestHandlerTimeout: the handler's context ends after WithHandlerTimeout,
// or half the lease TTL by default.
func TestHandlerTimeout(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     []reconcile.Option
		min, max time.Duration
	}{
		{"default", []reconcile.Option{reconcile.WithLeaseTTL(2 * time.Hour)}, 30 * time.Minute, time.Hour},
		{"zero is the default", []reconcile.Option{reconcile.WithLeaseTTL(2 * time.Hour), reconcile.WithHandlerTimeout(0)}, 30 * time.Minute, time.Hour},
		{"set", []reconcile.Option{reconcile.WithLeaseTTL(time.Hour), reconcile.WithHandlerTimeout(3 * time.Hour)}, 2 * time.Hour, 3 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			ctx := boundedCtx(t)
			var left time.Duration
			var alive bool
			sw, err := reconcile.New(e.client, reconcile.NewMemoryStore(), func(hctx context.Context, _ reconcile.Event) error {
				d, ok := hctx.Deadline()
				require.True(t, ok)
				left, alive = time.Until(d), hctx.Err() == nil
				return nil
			}, tc.opts...)
			require.NoError(t, err)
			o := e.intent(t, "to-1", upicollect.Rupees(10))
			_, err = e.sb.Pay(o.ID)
			require.NoError(t, err)
			require.NoError(t, sw.Track(ctx, o))
			st, err := sw.Step(context.Background(), t0.Add(10*time.Second))
			require.NoError(t, err)
			require.Equal(t, 1, st.Paid)
			assert.True(t, alive)
			assert.LessOrEqual(t, left, tc.max)
			assert.Greater(t, left, tc.min)
		})
	}
}

// TestRunStepHook: Run passes each step's report to WithStepHook's function
// (the time it stepped at, its Stats) and stops with that function's error;
// RunStep is one such step, on the store's clock.
func TestRunStepHook(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	st := newClockStore()
	st.set(t0.Add(10 * time.Second))
	stop := errors.New("enough")
	var reports []reconcile.StepReport
	sw, err := reconcile.New(e.client, st, func(context.Context, reconcile.Event) error { return nil },
		reconcile.WithClock(func() time.Time { return t0.Add(-time.Hour) }), reconcile.WithStepInterval(time.Millisecond),
		reconcile.WithStepHook(func(hctx context.Context, r reconcile.StepReport) error {
			require.NoError(t, hctx.Err())
			reports = append(reports, r)
			if len(reports) == 3 {
				return stop
			}
			return nil
		}))
	require.NoError(t, err)
	o := e.intent(t, "run-hook", upicollect.Rupees(10))
	_, err = e.sb.Pay(o.ID)
	require.NoError(t, err)
	require.NoError(t, sw.Track(ctx, o))
	assert.ErrorIs(t, sw.Run(ctx), stop, "Run returns the hook's error")
	require.Len(t, reports, 3, "one report a step, and none after the hook's error")
	for i, r := range reports {
		assert.Equal(t, t0.Add(10*time.Second), r.At, "step %d at the store's clock", i)
		assert.NoError(t, r.Err)
	}
	assert.Equal(t, 1, reports[0].Stats.Paid)
	assert.Equal(t, 0, reports[1].Stats.Checked+reports[2].Stats.Checked, "delivered once")

	r := sw.RunStep(ctx)
	assert.Equal(t, t0.Add(10*time.Second), r.At)
	require.NoError(t, r.Err)
	assert.Equal(t, reconcile.Stats{}, r.Stats)

	f := newFlaky()
	down := errors.New("clock down")
	f.fail("Now", down)
	sw, err = reconcile.New(e.client, f, func(context.Context, reconcile.Event) error { return nil },
		reconcile.WithClock(func() time.Time { return t0.Add(-time.Hour) }))
	require.NoError(t, err)
	r = sw.RunStep(ctx)
	assert.ErrorIs(t, r.Err, down, "the store's clock failed")
	assert.Equal(t, t0.Add(-time.Hour), r.At, "WithClock's time when the store's clock cannot be read")
	assert.Equal(t, reconcile.Stats{}, r.Stats)
}
