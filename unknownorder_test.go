package upicollect_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

// pendingKnown is a PENDING answer with the order's data: the service
// knows the order, nobody has paid it yet.
const pendingKnown = `{"status":false,"statusCode":200,"txnStatus":"PENDING","msg":"Transaction pending",` +
	`"data":{"order_id":"ORD-3001","amount":499}}`

// TestStatusNotFoundShapes: NotFound is set for each not-found shape (the
// document's PENDING one, and the 404 one with HTTP 404 or 200), and for no
// answer that shows the order.
func TestStatusNotFoundShapes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		status   int
		body     []byte
		notFound bool
		txn      upicollect.TxnStatus
	}{
		{"document's not-found", 200, loadResponse(t, "status_pending_spec.json"), true, upicollect.TxnPending},
		{"404 shape, HTTP 404", 404, loadResponse(t, "status_not_found_404.json"), true, upicollect.TxnPending},
		{"404 shape, HTTP 200", 200, loadResponse(t, "status_not_found_404.json"), true, upicollect.TxnPending},
		{"PENDING with the order's data", 200, []byte(pendingKnown), false, upicollect.TxnPending},
		{"SUCCESS", 200, loadResponse(t, "status_success_spec.json"), false, upicollect.TxnSuccess},
		{"FAIL", 200, loadResponse(t, "status_fail.json"), false, upicollect.TxnFail},
		{"SUCCESS in data.status", 200, loadResponse(t, "status_success_data_status.json"), false, upicollect.TxnSuccess},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, always(tt.status, tt.body))
			c, _ := newClient(t, srv.BaseURL())
			st, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
			require.NoError(t, err)
			assert.Equal(t, tt.notFound, st.NotFound)
			assert.Equal(t, tt.txn, st.TxnStatus)
			assert.False(t, st.NotFound && st.Paid(), "never both")
		})
	}
}

// TestStatusNotFoundSandbox: against the sandbox, an order nobody created
// is NotFound in both of its not-found shapes; a paid one is not.
func TestStatusNotFoundSandbox(t *testing.T) {
	t.Parallel()
	for _, variants := range [][]string{nil, {sandbox.VariantNotFound404}} {
		t.Run("variants "+join(variants), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), waitBound)
			defer cancel()
			sb := sandbox.Start(t, sandbox.WithVariant(variants...))
			c := sb.Client()
			st, err := c.CheckPaymentStatus(ctx, "ord_never_created")
			require.NoError(t, err)
			assert.True(t, st.NotFound)
			assert.Equal(t, upicollect.TxnPending, st.TxnStatus)
			assert.Equal(t, "Transaction not found", st.Message)
			if len(variants) > 0 {
				assert.Equal(t, http.StatusNotFound, st.Response.HTTPStatus)
			}

			in, err := c.CreatePaymentIntent(ctx, &upicollect.IntentParams{
				Amount: upicollect.Rupees(499), OrderID: upicollect.NewOrderID(), RedirectURL: "https://shop.example.com/r",
				Note: "n", Customer: upicollect.Customer{Name: "R", Email: "r@example.com", Mobile: "9876543210"},
			})
			require.NoError(t, err)
			_, err = sb.Pay(in.OrderID)
			require.NoError(t, err)
			st, err = c.CheckPaymentStatus(ctx, in.OrderID)
			require.NoError(t, err)
			assert.False(t, st.NotFound)
			assert.True(t, st.Paid())
		})
	}
}

func join(s []string) string {
	if len(s) == 0 {
		return "default"
	}
	out := s[0]
	for _, v := range s[1:] {
		out += "," + v
	}
	return out
}

// TestWaitUnknownOrderTimeout: an order that stays unknown ends the wait
// after d of the client's clock with ErrNotFound, an *APIError carrying the
// last status check's answer; the last poll comes when d passes.
func TestWaitUnknownOrderTimeout(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, statusScript(t, pending))
	c, clk := newClient(t, srv.BaseURL())
	polls := 0
	st, err := c.WaitForPayment(context.Background(), testStatusOrder,
		upicollect.WithUnknownOrderTimeout(30*time.Second),
		upicollect.WithOnPoll(func(*upicollect.PaymentStatus) { polls++ }))
	require.Error(t, err)
	assertSentinels(t, err, upicollect.ErrNotFound)
	var ae *upicollect.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "checkPaymentStatus", ae.Op)
	assert.Equal(t, testStatusOrder, ae.OrderID)
	assert.Equal(t, http.StatusOK, ae.HTTPStatus)
	assert.Equal(t, http.StatusOK, ae.StatusCode)
	assert.Equal(t, "Transaction not found", ae.Message)
	require.NotNil(t, ae.Response)
	assert.Contains(t, err.Error(), `order "`+testStatusOrder+`" still unknown to the service after 30s`)
	require.NotNil(t, st, "the last status comes with the error")
	assert.True(t, st.NotFound)
	assert.Equal(t, upicollect.TxnPending, st.TxnStatus)
	// Delays 2, 3, 6, 7.5, 7.5 (26s); the next is cut to the 4s left.
	assert.Equal(t, []time.Duration{2 * time.Second, 3 * time.Second, 6 * time.Second,
		7500 * time.Millisecond, 7500 * time.Millisecond, 4 * time.Second}, clk.Sleeps())
	assert.Equal(t, 7, srv.Count())
	assert.Equal(t, 7, polls)
}

// TestWaitUnknownOrderTimeoutSandbox: the same against the sandbox's 404
// shape (HTTP 404, statusCode 404), for an order nobody created.
func TestWaitUnknownOrderTimeoutSandbox(t *testing.T) {
	t.Parallel()
	sb := sandbox.Start(t, sandbox.WithVariant(sandbox.VariantNotFound404))
	clk := newFakeClock()
	c := sb.Client(upicollect.WithClock(clk), upicollect.WithRand(fixedRand))
	// The fake clock bounds the wait: WithMaxWait's deadline is on it.
	st, err := c.WaitForPayment(context.Background(), "ord_typo",
		upicollect.WithUnknownOrderTimeout(time.Minute), upicollect.WithMaxWait(2*time.Minute))
	assertSentinels(t, err, upicollect.ErrNotFound)
	var ae *upicollect.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusNotFound, ae.HTTPStatus)
	assert.Equal(t, http.StatusNotFound, ae.StatusCode)
	assert.Equal(t, "ord_typo", ae.OrderID)
	require.NotNil(t, st)
	assert.True(t, st.NotFound)
	var waited time.Duration
	for _, d := range clk.Sleeps() {
		waited += d
	}
	assert.Equal(t, time.Minute, waited, "ends when the minute passes, on the client's clock")
}

// TestWaitUnknownOrderTimeoutKnownOrder: once an answer shows the order
// known, the timeout no longer applies; a payment before it ends the wait
// normally; zero means no timeout.
func TestWaitUnknownOrderTimeoutKnownOrder(t *testing.T) {
	t.Parallel()
	t.Run("known, still pending: the max wait ends it", func(t *testing.T) {
		t.Parallel()
		srv := newTestServer(t, always(200, []byte(pendingKnown)))
		c, _ := newClient(t, srv.BaseURL())
		st, err := c.WaitForPayment(context.Background(), "ORD-3001",
			upicollect.WithUnknownOrderTimeout(10*time.Second), upicollect.WithMaxWait(30*time.Second))
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.NotErrorIs(t, err, upicollect.ErrNotFound)
		require.NotNil(t, st)
		assert.False(t, st.NotFound)
		assert.Equal(t, 6, srv.Count(), "polled until the max wait, as without the option")
	})
	t.Run("unknown, then known: not ended", func(t *testing.T) {
		t.Parallel()
		srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				respond(w, 200, loadResponse(t, "status_pending_spec.json"))
				return
			}
			respond(w, 200, []byte(pendingKnown))
		})
		c, _ := newClient(t, srv.BaseURL())
		_, err := c.WaitForPayment(context.Background(), "ORD-3001",
			upicollect.WithUnknownOrderTimeout(5*time.Second), upicollect.WithMaxWait(30*time.Second))
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.NotErrorIs(t, err, upicollect.ErrNotFound)
	})
	t.Run("paid before the timeout", func(t *testing.T) {
		t.Parallel()
		srv := newTestServer(t, statusScript(t, pending, pending, paid))
		c, _ := newClient(t, srv.BaseURL())
		st, err := c.WaitForPayment(context.Background(), testStatusOrder, upicollect.WithUnknownOrderTimeout(time.Minute))
		require.NoError(t, err)
		assert.True(t, st.Paid())
		assert.Equal(t, 3, srv.Count())
	})
	t.Run("zero: no timeout", func(t *testing.T) {
		t.Parallel()
		srv := newTestServer(t, statusScript(t, pending))
		c, _ := newClient(t, srv.BaseURL())
		_, err := c.WaitForPayment(context.Background(), testStatusOrder,
			upicollect.WithUnknownOrderTimeout(0), upicollect.WithMaxWait(30*time.Second))
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.NotErrorIs(t, err, upicollect.ErrNotFound)
		assert.Equal(t, 6, srv.Count())
	})
	t.Run("transient errors after the timeout do not poll faster", func(t *testing.T) {
		t.Parallel()
		srv := newTestServer(t, statusScript(t, pending, "500", "500", "500", "500", "500", "500", pending))
		c, clk := newClient(t, srv.BaseURL(), noRetry())
		_, err := c.WaitForPayment(context.Background(), testStatusOrder,
			upicollect.WithUnknownOrderTimeout(3*time.Second))
		assertSentinels(t, err, upicollect.ErrNotFound)
		for _, d := range clk.Sleeps() {
			assert.Positive(t, d, "never a zero delay")
		}
	})
}
