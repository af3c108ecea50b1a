package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/reconciletest"
	"github.com/upicollect/upicollect-go/sandbox"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// waitBound bounds every test's waits: a regression fails, never hangs.
const waitBound = 60 * time.Second

func boundedCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	t.Cleanup(cancel)
	return ctx
}

// env is a sandbox on a manual clock and a client of it.
type env struct {
	sb     *sandbox.Server
	clk    *reconciletest.Clock
	client *upicollect.Client
}

func newEnv(t *testing.T) *env {
	t.Helper()
	clk := reconciletest.NewClock(t0)
	sb := sandbox.Start(t, sandbox.WithClock(clk.Now), sandbox.WithSeed(7))
	c := sb.Client()
	t.Cleanup(c.CloseIdleConnections)
	return &env{sb: sb, clk: clk, client: c}
}

// intent creates an intent for id at the clock's time.
func (e *env) intent(t *testing.T, id string, amount upicollect.Money) reconcile.Order {
	t.Helper()
	_, err := e.client.CreatePaymentIntent(context.Background(), &upicollect.IntentParams{
		Amount: amount, OrderID: id, RedirectURL: "https://shop.example.com/return",
		Note: "test", Customer: upicollect.Customer{Name: "A Payer", Email: "a@example.com", Mobile: "9876543210"},
	})
	require.NoError(t, err)
	return reconcile.Order{ID: id, Amount: amount, Created: e.clk.Now()}
}

// payLater schedules, through the sandbox's HTTP control surface, a
// SUCCESS for paid (not the order's amount) after d.
func (e *env) payLater(t *testing.T, id string, paid upicollect.Money, d time.Duration) {
	t.Helper()
	form := url.Values{"result": {"SUCCESS"}, "amount": {paid.String()}, "after": {d.String()}}
	req, err := http.NewRequest(http.MethodPost, e.sb.URL()+"/sandbox/orders/"+id+"/pay", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := e.sb.HTTPClient().Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusAccepted, res.StatusCode)
}

// events is a handler's record of what it was given, by order.
type events struct {
	mu sync.Mutex
	by map[string][]reconcile.Event
}

func (ev *events) handle(_ context.Context, e reconcile.Event) error {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if ev.by == nil {
		ev.by = map[string][]reconcile.Event{}
	}
	ev.by[e.Order.ID] = append(ev.by[e.Order.ID], e)
	return nil
}

func (ev *events) results(id string) []reconcile.Result {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	var out []reconcile.Result
	for _, e := range ev.by[id] {
		out = append(out, e.Result)
	}
	return out
}

func (ev *events) get(id string, r reconcile.Result) reconcile.Event {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	for _, e := range ev.by[id] {
		if e.Result == r {
			return e
		}
	}
	return reconcile.Event{}
}

// walk steps sw at every due time until until.
func walk(t *testing.T, e *env, sw *reconcile.Sweeper, until time.Time) reconcile.Stats {
	t.Helper()
	sum, _, err := reconciletest.Walk(boundedCtx(t), e.clk, until, sw.Step)
	require.NoError(t, err)
	return sum
}

// TestSweeperReportsEveryOutcome walks 72 hours of sandbox time over one
// order of each fate and checks each order's events, their order, their
// times and their reasons.
func TestSweeperReportsEveryOutcome(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	rec := &events{}
	sw, err := reconcile.New(e.client, reconcile.NewMemoryStore(), rec.handle)
	require.NoError(t, err)
	amount := upicollect.Rupees(499)
	type fate struct {
		id    string
		setup func(o reconcile.Order)
		want  []reconcile.Result
	}
	settle := func(result upicollect.TxnStatus, after time.Duration) func(reconcile.Order) {
		return func(o reconcile.Order) { require.NoError(t, e.sb.Settle(o.ID, result, o.Created.Add(after))) }
	}
	both := func(a, b func(reconcile.Order)) func(reconcile.Order) {
		return func(o reconcile.Order) { a(o); b(o) }
	}
	fates := []fate{
		{"paid-2m", settle(upicollect.TxnSuccess, 2*time.Minute), []reconcile.Result{reconcile.Paid}},
		{"paid-14m", settle(upicollect.TxnSuccess, 14*time.Minute+59*time.Second), []reconcile.Result{reconcile.Paid}},
		{"failed-1m", settle(upicollect.TxnFail, time.Minute), []reconcile.Result{reconcile.Failed}},
		{"rejected-3m", settle(upicollect.TxnReject, 3*time.Minute), []reconcile.Result{reconcile.Failed}},
		{"failed-then-paid-5h", both(settle(upicollect.TxnFail, time.Minute), settle(upicollect.TxnSuccess, 5*time.Hour)),
			[]reconcile.Result{reconcile.Failed, reconcile.LatePaid}},
		{"failed-then-paid-71h", both(settle(upicollect.TxnFail, time.Minute), settle(upicollect.TxnSuccess, 71*time.Hour)),
			[]reconcile.Result{reconcile.Failed, reconcile.LatePaid}},
		{"paid-3h", settle(upicollect.TxnSuccess, 3*time.Hour), []reconcile.Result{reconcile.Expired, reconcile.LatePaid}},
		{"never", func(reconcile.Order) {}, []reconcile.Result{reconcile.Expired}},
		{"paid-less-3m", func(o reconcile.Order) { e.payLater(t, o.ID, upicollect.Rupees(1), 3*time.Minute) }, []reconcile.Result{reconcile.Mismatch}},
		{"paid-less-after-expiry", func(o reconcile.Order) { e.payLater(t, o.ID, upicollect.Rupees(498), 2*time.Hour) },
			[]reconcile.Result{reconcile.Expired, reconcile.Mismatch}},
	}
	for _, f := range fates {
		o := e.intent(t, f.id, amount)
		f.setup(o)
		require.NoError(t, sw.Track(ctx, o))
	}
	// An order the service never heard of (a create that never arrived).
	ghost := reconcile.Order{ID: "ghost", Amount: amount, Created: t0}
	require.NoError(t, sw.Track(ctx, ghost))
	fates = append(fates, fate{id: "ghost", want: []reconcile.Result{reconcile.Expired}})

	sum := walk(t, e, sw, t0.Add(100*time.Hour))
	for _, f := range fates {
		assert.Equal(t, f.want, rec.results(f.id), f.id)
	}
	paid := rec.get("paid-2m", reconcile.Paid)
	assert.LessOrEqual(t, paid.At.Sub(t0.Add(2*time.Minute)), 30*time.Second, "reported within 30s")
	assert.Equal(t, upicollect.TxnSuccess, paid.Status.TxnStatus)
	assert.Equal(t, amount, paid.Status.Amount)
	assert.NotEmpty(t, paid.Status.UTR)
	assert.Equal(t, amount, paid.Order.Amount)
	late := rec.get("paid-14m", reconcile.Paid)
	assert.LessOrEqual(t, late.At.Sub(t0.Add(14*time.Minute+59*time.Second)), 30*time.Second)

	for _, id := range []string{"never", "ghost", "paid-3h"} {
		exp := rec.get(id, reconcile.Expired)
		assert.Equal(t, t0.Add(reconcile.DefaultPayerWindow), exp.At, "%s expires at the end of the payer's window", id)
		assert.Equal(t, reconcile.ReasonNotFound, exp.Reason, id)
		assert.True(t, exp.Status.NotFound, id)
	}
	lp := rec.get("failed-then-paid-71h", reconcile.LatePaid)
	assert.Equal(t, t0.Add(72*time.Hour), lp.At, "found by the last check of the late window")
	mm := rec.get("paid-less-3m", reconcile.Mismatch)
	assert.Equal(t, upicollect.Rupees(1), mm.Status.Amount)
	assert.Equal(t, amount, mm.Order.Amount)

	assert.Equal(t, reconcile.Stats{
		Checked: sum.Checked, Paid: 2, Failed: 4, LatePaid: 3, Expired: 4, Mismatch: 2,
		Pending: sum.Checked - 15,
	}, sum)
	checks := 0
	for _, r := range e.sb.Requests() {
		if r.Op == "checkPaymentStatus" {
			checks++
		}
	}
	assert.Equal(t, checks, sum.Checked, "one request per check")
}

// TestSweeperHandlerFailureLosesNothing makes the handler fail with an
// error for one order and panic for another: the step reports both,
// carries on with the rest, and the next step delivers them, once.
func TestSweeperHandlerFailureLosesNothing(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	var calls sync.Map // order id -> *atomic.Int32
	rec := &events{}
	handler := func(ctx context.Context, ev reconcile.Event) error {
		n, _ := calls.LoadOrStore(ev.Order.ID, new(atomic.Int32))
		switch c := n.(*atomic.Int32).Add(1); {
		case ev.Order.ID == "err" && c == 1:
			return errors.New("ledger unavailable")
		case ev.Order.ID == "panic" && c <= 2:
			panic("nil map in the merchant's code")
		}
		return rec.handle(ctx, ev)
	}
	sw, err := reconcile.New(e.client, reconcile.NewMemoryStore(), handler)
	require.NoError(t, err)
	for _, id := range []string{"err", "panic", "fine"} {
		o := e.intent(t, id, upicollect.Rupees(10))
		_, err := e.sb.Pay(id)
		require.NoError(t, err)
		require.NoError(t, sw.Track(ctx, o))
	}
	now := t0.Add(10 * time.Second)
	e.clk.Set(now)
	st, err := sw.Step(ctx, now)
	require.Error(t, err)
	assert.ErrorContains(t, err, `order "err": handling paid: ledger unavailable`)
	assert.ErrorContains(t, err, `order "panic": handling paid: handler panicked: nil map in the merchant's code`)
	assert.Equal(t, 3, st.Checked)
	assert.Equal(t, 1, st.Paid)
	assert.Equal(t, 2, st.Errors)
	assert.Equal(t, now.Add(reconcile.DefaultStepInterval), st.NextDue, "the failed events are due again after one step interval")
	assert.Equal(t, []reconcile.Result{reconcile.Paid}, rec.results("fine"))
	assert.Empty(t, rec.results("err"))

	// A step at the same time finds nothing due: no spin.
	st, err = sw.Step(ctx, now)
	require.NoError(t, err)
	assert.Zero(t, st.Checked, "not checked again before the backoff")

	// The next step, after the backoff: the error's event comes again; the
	// panic happens once more.
	now = now.Add(reconcile.DefaultStepInterval)
	st, err = sw.Step(ctx, now)
	require.ErrorContains(t, err, `order "panic"`)
	assert.NotContains(t, err.Error(), `order "err"`)
	assert.Equal(t, 2, st.Checked)
	assert.Equal(t, 1, st.Paid)
	assert.Equal(t, now.Add(2*reconcile.DefaultStepInterval), st.NextDue, "a second failure doubles the backoff")
	st, err = sw.Step(ctx, st.NextDue)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Paid)
	for _, id := range []string{"err", "panic", "fine"} {
		assert.Equal(t, []reconcile.Result{reconcile.Paid}, rec.results(id), id)
	}
	st, err = sw.Step(ctx, now.Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, reconcile.Stats{}, st, "all done: nothing more is checked")
}

// TestSweeperFailedCheckIsRetriedAfterABackoff makes the service fail: the
// order is checked again after one step interval (sooner than its next
// scheduled check) and nothing is lost.
func TestSweeperFailedCheckIsRetriedAfterABackoff(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	client := e.sb.Client(upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1}))
	t.Cleanup(client.CloseIdleConnections)
	rec := &events{}
	sw, err := reconcile.New(client, reconcile.NewMemoryStore(), rec.handle)
	require.NoError(t, err)
	o := e.intent(t, "flaky", upicollect.Rupees(10))
	_, err = e.sb.Pay(o.ID)
	require.NoError(t, err)
	require.NoError(t, sw.Track(ctx, o))
	e.sb.InjectFault(sandbox.Fault{Op: "checkPaymentStatus", Status: http.StatusServiceUnavailable, Times: 1})
	now := t0.Add(10 * time.Second)
	st, err := sw.Step(ctx, now)
	require.NoError(t, err, "a failed check is not the step's error")
	assert.Equal(t, 1, st.Errors)
	assert.Equal(t, 0, st.Checked)
	assert.Equal(t, now.Add(reconcile.DefaultStepInterval), st.NextDue)
	st, err = sw.Step(ctx, st.NextDue)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Paid)
	assert.Equal(t, []reconcile.Result{reconcile.Paid}, rec.results(o.ID))
}

// TestSweepersShareAMemoryStore runs four sweepers of one process on one
// memory store, stepping concurrently: every event is delivered once.
func TestSweepersShareAMemoryStore(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	plan := reconciletest.Plan(200, t0, 1)
	rec := &reconciletest.Recorder{}
	st := reconcile.NewMemoryStore()
	var sweepers []*reconcile.Sweeper
	for range 4 {
		sw, err := reconcile.New(e.client, st, rec.Handle, reconcile.WithBatchSize(16), reconcile.WithConcurrency(2))
		require.NoError(t, err)
		sweepers = append(sweepers, sw)
	}
	require.NoError(t, reconciletest.Create(ctx, e.client, e.sb, e.clk, plan, func(o reconcile.Order) error { return sweepers[0].Track(ctx, o) }))
	_, _, err := reconciletest.Walk(ctx, e.clk, t0.Add(100*time.Hour), func(ctx context.Context, now time.Time) (reconcile.Stats, error) {
		sum, errs := reconciletest.StepAll(ctx, sweepers, now)
		return sum, errors.Join(errs...)
	})
	require.NoError(t, err)
	r := reconciletest.Check(plan, rec.Deliveries())
	assert.Zero(t, r.Twice, "%v", r.Problems)
	assert.Zero(t, r.Lost, "%v", r.Problems)
	assert.Zero(t, r.Wrong, "%v", r.Problems)
}

func TestTrackRefusesABadOrder(t *testing.T) {
	e := newEnv(t)
	sw, err := reconcile.New(e.client, reconcile.NewMemoryStore(), (&events{}).handle)
	require.NoError(t, err)
	err = sw.Track(context.Background(), reconcile.Order{ID: "has space"})
	require.ErrorIs(t, err, upicollect.ErrValidation)
	var ve *upicollect.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "reconcile.Track", ve.Op)
	var fields []string
	for _, f := range ve.Fields {
		fields = append(fields, f.Field)
	}
	assert.Equal(t, []string{"order_id", "amount", "created"}, fields)
	assert.Empty(t, e.sb.Requests(), "no I/O")
}

func TestNewRefusesBadOptions(t *testing.T) {
	e := newEnv(t)
	h := (&events{}).handle
	st := reconcile.NewMemoryStore()
	for _, tc := range []struct {
		name string
		opts []reconcile.Option
		msg  string
	}{
		{"empty schedule", []reconcile.Option{reconcile.WithSchedule(nil)}, "empty schedule"},
		{"first band ends at zero", []reconcile.Option{reconcile.WithSchedule(reconcile.Schedule{{Until: 0, Every: time.Second}})}, "band 0: Until 0s must exceed"},
		{"band ends where the previous did", []reconcile.Option{reconcile.WithSchedule(reconcile.Schedule{{Until: time.Minute, Every: time.Second}, {Until: time.Minute, Every: time.Minute}})}, "band 1: Until 1m0s must exceed"},
		{"band with no interval", []reconcile.Option{reconcile.WithSchedule(reconcile.Schedule{{Until: time.Minute, Every: 0}})}, "band 0: Every must be positive"},
		{"late window shorter", []reconcile.Option{reconcile.WithLateWindow(time.Minute)}, "late window"},
		{"zero payer window", []reconcile.Option{reconcile.WithPayerWindow(0)}, "payer's window"},
		{"negative payer window", []reconcile.Option{reconcile.WithPayerWindow(-time.Minute)}, "payer's window"},
		{"zero concurrency", []reconcile.Option{reconcile.WithConcurrency(0)}, "concurrency"},
		{"zero batch", []reconcile.Option{reconcile.WithBatchSize(0)}, "batch size"},
		{"zero lease", []reconcile.Option{reconcile.WithLeaseTTL(0)}, "lease TTL"},
		{"nil clock", []reconcile.Option{reconcile.WithClock(nil)}, "nil clock"},
		{"zero max backoff", []reconcile.Option{reconcile.WithMaxBackoff(0)}, "max backoff"},
		{"negative handler timeout", []reconcile.Option{reconcile.WithHandlerTimeout(-time.Second)}, "handler timeout"},
		{"zero step interval", []reconcile.Option{reconcile.WithStepInterval(0)}, "step interval"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := reconcile.New(e.client, st, h, tc.opts...)
			assert.ErrorContains(t, err, tc.msg)
		})
	}
	_, err := reconcile.New(nil, st, h)
	assert.ErrorContains(t, err, "required")
}

// TestNewAcceptsEdgeOptions: the least values each option allows make a
// sweeper.
func TestNewAcceptsEdgeOptions(t *testing.T) {
	e := newEnv(t)
	h := (&events{}).handle
	st := reconcile.NewMemoryStore()
	for _, tc := range []struct {
		name string
		opts []reconcile.Option
	}{
		{"late window as long as the payer's", []reconcile.Option{reconcile.WithPayerWindow(time.Hour), reconcile.WithLateWindow(time.Hour)}},
		{"one nanosecond windows", []reconcile.Option{reconcile.WithPayerWindow(1), reconcile.WithLateWindow(1)}},
		{"concurrency and batch of one", []reconcile.Option{reconcile.WithConcurrency(1), reconcile.WithBatchSize(1)}},
		{"one nanosecond lease, step interval and max backoff", []reconcile.Option{reconcile.WithLeaseTTL(1), reconcile.WithStepInterval(1), reconcile.WithMaxBackoff(1)}},
		{"zero handler timeout: the default", []reconcile.Option{reconcile.WithHandlerTimeout(0)}},
		{"a one-band schedule", []reconcile.Option{reconcile.WithSchedule(reconcile.Schedule{{Until: 1, Every: 1}})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw, err := reconcile.New(e.client, st, h, tc.opts...)
			require.NoError(t, err)
			assert.NotNil(t, sw)
		})
	}
}

// TestRunStepsUntilTheContextEnds runs a sweeper on the real clock with a
// schedule of milliseconds: the payment is reported and Run ends with its
// context.
func TestRunStepsUntilTheContextEnds(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) }) // after the sandbox's cleanup
	sb := sandbox.Start(t)
	c := sb.Client()
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	got := make(chan reconcile.Event, 1)
	sw, err := reconcile.New(c, reconcile.NewMemoryStore(), func(_ context.Context, e reconcile.Event) error {
		got <- e
		return nil
	}, reconcile.WithSchedule(reconcile.Schedule{{Until: time.Hour, Every: time.Millisecond}}), reconcile.WithStepInterval(time.Millisecond))
	require.NoError(t, err)
	_, err = c.CreatePaymentIntent(ctx, &upicollect.IntentParams{Amount: upicollect.Rupees(5), OrderID: "run-1",
		RedirectURL: "https://shop.example.com/r", Note: "run", Customer: upicollect.Customer{Name: "A", Email: "a@example.com", Mobile: "9876543210"}})
	require.NoError(t, err)
	_, err = sb.Pay("run-1")
	require.NoError(t, err)
	require.NoError(t, sw.Track(ctx, reconcile.Order{ID: "run-1", Amount: upicollect.Rupees(5), Created: time.Now()}))
	done := make(chan error, 1)
	runCtx, stop := context.WithCancel(ctx)
	go func() { done <- sw.Run(runCtx) }()
	select {
	case e := <-got:
		assert.Equal(t, reconcile.Paid, e.Result)
	case <-ctx.Done():
		t.Fatal("Run reported nothing")
	}
	stop()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-ctx.Done():
		t.Fatal("Run did not end with its context")
	}
}

func ExampleDefaultSchedule() {
	var prev time.Duration
	for _, b := range reconcile.DefaultSchedule() {
		fmt.Printf("%v to %v: every %v\n", prev, b.Until, b.Every)
		prev = b.Until
	}
	// Output:
	// 0s to 1m0s: every 10s
	// 1m0s to 15m0s: every 30s
	// 15m0s to 1h0m0s: every 15m0s
	// 1h0m0s to 6h0m0s: every 1h0m0s
	// 6h0m0s to 24h0m0s: every 3h0m0s
	// 24h0m0s to 72h0m0s: every 8h0m0s
}
