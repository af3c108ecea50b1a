package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/reconciletest"
	"github.com/upicollect/upicollect-go/reconcile/webhook"
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

// secret is a secret-shaped value: tests look for it, and its forms, in
// every error and log line.
var secret = []byte("whsec_5ecr3t_n0t_f0r_l0gs_7f3a9c")

// receiver is a webhook endpoint as a shop writes one: it verifies each
// delivery with Receive on a clock, records each delivery id once, and
// answers 500 to the first deliveries of the orders in refuse.
type receiver struct {
	secret []byte
	now    func() time.Time

	mu       sync.Mutex
	refuse   map[string]int              // order id: deliveries still to answer 500
	got      []webhook.Delivery          // every verified delivery, repeats included
	recorded map[string]webhook.Delivery // by id: what the shop acted on, once each
	errs     []error                     // Receive's refusals
}

func newReceiver(secret []byte, now func() time.Time) *receiver {
	return &receiver{secret: secret, now: now, refuse: map[string]int{}, recorded: map[string]webhook.Delivery{}}
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d, err := webhook.ReceiveAt(r, rc.secret, webhook.DefaultTolerance, rc.now())
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if err != nil {
		rc.errs = append(rc.errs, err)
		http.Error(w, "bad delivery", http.StatusBadRequest)
		return
	}
	rc.got = append(rc.got, *d)
	if rc.refuse[d.OrderID] > 0 {
		rc.refuse[d.OrderID]--
		http.Error(w, "database busy, try later", http.StatusInternalServerError)
		return
	}
	if _, dup := rc.recorded[d.ID]; !dup {
		rc.recorded[d.ID] = *d
	}
	w.WriteHeader(http.StatusNoContent)
}

// deliveries returns the verified deliveries of one order, repeats included.
func (rc *receiver) deliveries(orderID string) []webhook.Delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []webhook.Delivery
	for _, d := range rc.got {
		if d.OrderID == orderID {
			out = append(out, d)
		}
	}
	return out
}

// results lists the results recorded (once each) for one order, by time.
func (rc *receiver) results(orderID string) []reconcile.Result {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []reconcile.Result
	for _, d := range rc.got {
		if r, ok := rc.recorded[d.ID]; ok && d.OrderID == orderID && (len(out) == 0 || out[len(out)-1] != r.Result) {
			out = append(out, r.Result)
		}
	}
	return out
}

// walk steps sw at every due time until nothing is due before until,
// moving clk; unlike reconciletest.Walk it goes on past a failed delivery (the
// event is due again a second later) and counts the steps' errors.
func walk(ctx context.Context, t *testing.T, clk *reconciletest.Clock, sw *reconcile.Sweeper, until time.Time) (reconcile.Stats, []error) {
	t.Helper()
	var sum reconcile.Stats
	var errs []error
	for ctx.Err() == nil {
		now := clk.Now()
		st, err := sw.Step(ctx, now)
		reconciletest.Add(&sum, st)
		if err != nil {
			errs = append(errs, err)
		}
		next := st.NextDue
		if next.IsZero() || next.After(until) {
			return sum, errs
		}
		if !next.After(now) {
			next = now.Add(time.Second)
		}
		clk.Set(next)
	}
	t.Fatal("the walk did not end within its bound")
	return sum, errs
}

// TestSenderToReceiveThroughSweeper walks a sweeper with a Sender over
// orders of every fate in sandbox time, to a receiver on loopback that
// verifies with Receive: each event arrives signed, decoded field by
// field, with the id DeliveryID names. The receiver refuses the first
// delivery of one order (500): that event comes again with the same id
// and is recorded once.
func TestSenderToReceiveThroughSweeper(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) }) // after the servers' cleanups
	ctx := boundedCtx(t)
	clk := reconciletest.NewClock(t0)
	sb := sandbox.Start(t, sandbox.WithClock(clk.Now), sandbox.WithSeed(11))
	client := sb.Client()
	t.Cleanup(client.CloseIdleConnections)

	rc := newReceiver(secret, clk.Now)
	rc.refuse["refused-once"] = 1
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	send, err := webhook.Sender(srv.URL+"/hooks/upicollect", secret,
		webhook.WithHTTPClient(srv.Client()), webhook.WithClock(clk.Now))
	require.NoError(t, err)
	sw, err := reconcile.New(client, reconcile.NewMemoryStore(), send)
	require.NoError(t, err)

	amount := upicollect.Rupees(499)
	create := func(id string) reconcile.Order {
		_, err := client.CreatePaymentIntent(ctx, &upicollect.IntentParams{
			Amount: amount, OrderID: id, RedirectURL: "https://shop.example.com/return", Note: "webhook",
			Customer: upicollect.Customer{Name: "A Payer", Email: "a@example.com", Mobile: "9876543210"},
		})
		require.NoError(t, err)
		o := reconcile.Order{ID: id, Amount: amount, Created: clk.Now()}
		require.NoError(t, sw.Track(ctx, o))
		return o
	}
	paid := create("paid-2m")
	require.NoError(t, sb.Settle(paid.ID, upicollect.TxnSuccess, t0.Add(2*time.Minute)))
	late := create("failed-then-paid")
	require.NoError(t, sb.Settle(late.ID, upicollect.TxnFail, t0.Add(time.Minute)))
	require.NoError(t, sb.Settle(late.ID, upicollect.TxnSuccess, t0.Add(5*time.Hour)))
	never := create("never")
	short := create("paid-less")
	_, err = sb.SettleWith(short.ID, sandbox.Settlement{Result: sandbox.StatusSuccess, PaidPaise: 100})
	require.NoError(t, err)
	refused := create("refused-once")
	require.NoError(t, sb.Settle(refused.ID, upicollect.TxnSuccess, t0.Add(3*time.Minute)))

	sum, errs := walk(ctx, t, clk, sw, t0.Add(100*time.Hour))
	require.Len(t, errs, 1, "one step saw the refused delivery: %v", errs)
	assert.ErrorContains(t, errs[0], "answered 500")
	assert.Equal(t, 1, sum.Errors)
	assert.Empty(t, rc.errs, "every delivery verified")

	assert.Equal(t, []reconcile.Result{reconcile.Paid}, rc.results(paid.ID))
	assert.Equal(t, []reconcile.Result{reconcile.Failed, reconcile.LatePaid}, rc.results(late.ID))
	assert.Equal(t, []reconcile.Result{reconcile.Expired}, rc.results(never.ID))
	assert.Equal(t, []reconcile.Result{reconcile.Mismatch}, rc.results(short.ID))
	assert.Equal(t, []reconcile.Result{reconcile.Paid}, rc.results(refused.ID))

	// The refused event came again, with the same id, and was recorded once.
	again := rc.deliveries(refused.ID)
	require.Len(t, again, 2)
	assert.Equal(t, again[0].ID, again[1].ID)
	assert.Equal(t, webhook.DeliveryID(refused.ID, reconcile.Paid), again[0].ID)
	assert.Equal(t, again[0], again[1], "delivered again at a later step: the first delivery, at included")
	assert.Len(t, rc.recorded, 6, "six events, each recorded once")

	// Field by field.
	p := rc.deliveries(paid.ID)
	require.Len(t, p, 1)
	assert.Equal(t, webhook.DeliveryID(paid.ID, reconcile.Paid), p[0].ID)
	assert.Equal(t, reconcile.Paid, p[0].Result)
	assert.Equal(t, amount, p[0].Expected)
	assert.Equal(t, amount, p[0].Paid)
	assert.NotEmpty(t, p[0].UTR)
	assert.Empty(t, p[0].Reason)
	assert.False(t, p[0].At.Before(t0.Add(2*time.Minute)))
	assert.LessOrEqual(t, p[0].At.Sub(t0.Add(2*time.Minute)), 30*time.Second, "found within 30 s of sandbox time")

	n := rc.deliveries(never.ID)
	require.Len(t, n, 1)
	assert.Equal(t, reconcile.ReasonNotFound, n[0].Reason)
	assert.Equal(t, upicollect.Money(0), n[0].Paid)
	assert.True(t, n[0].At.Equal(t0.Add(reconcile.DefaultPayerWindow)), "at %v", n[0].At)

	m := rc.deliveries(short.ID)
	require.Len(t, m, 1)
	assert.Equal(t, upicollect.Money(100), m[0].Paid)
	assert.Equal(t, amount, m[0].Expected)

	lp := rc.deliveries(late.ID)
	require.Len(t, lp, 2)
	assert.Equal(t, upicollect.Money(0), lp[0].Paid, "a failed payment paid nothing")
	assert.Equal(t, amount, lp[1].Paid)
	assert.NotEqual(t, lp[0].ID, lp[1].ID, "two events of one order, two ids")
}

// TestSenderFailureLeavesEventDue: a receiver that refuses every delivery
// keeps the event undelivered; once it accepts, the event comes, once.
// Every redelivery, though made from a later check, is the first one.
func TestSenderFailureLeavesEventDue(t *testing.T) {
	ctx := boundedCtx(t)
	clk := reconciletest.NewClock(t0)
	sb := sandbox.Start(t, sandbox.WithClock(clk.Now), sandbox.WithSeed(3))
	client := sb.Client()
	t.Cleanup(client.CloseIdleConnections)
	rc := newReceiver(secret, clk.Now)
	rc.refuse["o-1"] = 3
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	send, err := webhook.Sender(srv.URL, secret, webhook.WithHTTPClient(srv.Client()), webhook.WithClock(clk.Now))
	require.NoError(t, err)
	sw, err := reconcile.New(client, reconcile.NewMemoryStore(), send)
	require.NoError(t, err)
	_, err = client.CreatePaymentIntent(ctx, &upicollect.IntentParams{
		Amount: 1000, OrderID: "o-1", RedirectURL: "https://shop.example.com/return", Note: "x",
		Customer: upicollect.Customer{Name: "A Payer", Email: "a@example.com", Mobile: "9876543210"},
	})
	require.NoError(t, err)
	_, err = sb.Pay("o-1")
	require.NoError(t, err)
	require.NoError(t, sw.Track(ctx, reconcile.Order{ID: "o-1", Amount: 1000, Created: t0}))
	// Each refusal puts the order back in the sweeper's backoff: the next
	// step is at the order's next check.
	stepAtNext := func() (reconcile.Stats, error) {
		os, err := sw.Lookup(ctx, "o-1")
		require.NoError(t, err)
		return sw.Step(ctx, clk.Advance(max(10*time.Second, os.Next.Sub(clk.Now()))))
	}
	for i := 0; i < 3; i++ {
		st, err := stepAtNext()
		require.Error(t, err)
		var ve *upicollect.ValidationError
		assert.False(t, errors.As(err, &ve))
		assert.Equal(t, 0, st.Paid, "step %d", i)
	}
	st, err := stepAtNext()
	require.NoError(t, err)
	assert.Equal(t, 1, st.Paid)
	ds := rc.deliveries("o-1")
	require.Len(t, ds, 4)
	for i, d := range ds[1:] {
		assert.Equal(t, ds[0], d, "redelivery %d is the first delivery, at included", i+1)
	}
	assert.Len(t, rc.recorded, 1)
}
