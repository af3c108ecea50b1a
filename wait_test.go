package upicollect_test

import (
	"context"
	"math"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
)

// statusScript answers the n-th status check with the named answer of
// testdata/responses, the last repeating; "500" is a server error and "401"
// an unauthorized answer.
func statusScript(t testing.TB, steps ...string) handlerFunc {
	return func(w http.ResponseWriter, _ *http.Request, n int) {
		switch step := steps[min(n, len(steps))-1]; step {
		case "500":
			respond(w, 500, loadResponse(t, "server_error_500.json"))
		case "401":
			respond(w, 401, loadResponse(t, "unauthorized_401.json"))
		case "400":
			respond(w, 400, loadResponse(t, "invalid_400.json"))
		case "429":
			respond(w, 429, loadResponse(t, "rate_limited_429.json"))
		case "garbage":
			respond(w, 200, loadResponse(t, "truncated.json"))
		case "html404":
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte("<html><body>Not Found</body></html>"))
		default:
			respond(w, 200, loadResponse(t, step+".json"))
		}
	}
}

const (
	pending = "status_pending_spec"
	paid    = "status_success_spec"
	failed  = "status_fail"
)

func TestWaitForPaymentPendingThenSuccess(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, statusScript(t, pending, pending, paid))
	c, clk := newClient(t, srv.BaseURL())
	var seen []upicollect.TxnStatus
	st, err := c.WaitForPayment(context.Background(), testStatusOrder,
		upicollect.WithOnPoll(func(s *upicollect.PaymentStatus) { seen = append(seen, s.TxnStatus) }))
	require.NoError(t, err)
	require.NotNil(t, st)
	assert.Equal(t, upicollect.TxnSuccess, st.TxnStatus)
	assert.True(t, st.Paid())
	assert.Equal(t, int64(49900), st.Amount.Paise())
	assert.Equal(t, []upicollect.TxnStatus{upicollect.TxnPending, upicollect.TxnPending, upicollect.TxnSuccess}, seen)
	assert.Equal(t, 3, srv.Count())
	// Default interval 2s..10s: the first delay is the minimum, the second
	// grows (4s ceiling, jittered over its upper half with rand 0.5).
	assert.Equal(t, []time.Duration{2 * time.Second, 3 * time.Second}, clk.Sleeps())
	for _, req := range srv.Requests() {
		assert.Equal(t, apiPrefix+"/v1/payments/checkPaymentStatus", req.Path)
		assert.Equal(t, testStatusOrder, req.Form.Get("order_id"))
	}
}

func TestWaitForPaymentTerminalFailureIsAResult(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		want upicollect.TxnStatus
	}{
		{failed, upicollect.TxnFail},
		{"status_reject", upicollect.TxnReject},
		{"status_unknown_txn", "REVERSED"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, statusScript(t, pending, tc.file))
			c, _ := newClient(t, srv.BaseURL())
			st, err := c.WaitForPayment(context.Background(), testStatusOrder)
			require.NoError(t, err)
			assert.Equal(t, tc.want, st.TxnStatus)
			assert.False(t, st.Paid())
			assert.Equal(t, 2, srv.Count())
		})
	}
}

func TestWaitForPaymentMaxWait(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, statusScript(t, pending))
	c, clk := newClient(t, srv.BaseURL())
	polls := 0
	st, err := c.WaitForPayment(context.Background(), testStatusOrder,
		upicollect.WithMaxWait(30*time.Second),
		upicollect.WithOnPoll(func(*upicollect.PaymentStatus) { polls++ }))
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	require.NotNil(t, st, "the last status seen")
	assert.Equal(t, upicollect.TxnPending, st.TxnStatus)
	assert.Contains(t, err.Error(), "last status PENDING")
	// Delays 2, 3, 6, 7.5, 7.5 (26s in all); the next 7.5s passes the 30s.
	assert.Equal(t, []time.Duration{
		2 * time.Second, 3 * time.Second, 6 * time.Second, 7500 * time.Millisecond, 7500 * time.Millisecond, 7500 * time.Millisecond,
	}, clk.Sleeps())
	assert.Equal(t, 6, srv.Count())
	assert.Equal(t, 6, polls)
}

// TestWaitForPaymentDefaultMaxWait: with context.Background and no
// WithMaxWait (or a WithMaxWait of zero or less), a wait on an order that
// stays PENDING ends after DefaultMaxWait of the client's clock.
func TestWaitForPaymentDefaultMaxWait(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 15*time.Minute, upicollect.DefaultMaxWait)
	for name, opts := range map[string][]upicollect.WaitOption{
		"no option": nil, "WithMaxWait(0)": {upicollect.WithMaxWait(0)}, "WithMaxWait(-1s)": {upicollect.WithMaxWait(-time.Second)},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, statusScript(t, pending))
			c, clk := newClient(t, srv.BaseURL())
			start := clk.Now()
			st, err := c.WaitForPayment(context.Background(), testStatusOrder, opts...)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			require.NotNil(t, st)
			assert.Equal(t, upicollect.TxnPending, st.TxnStatus)
			assert.Equal(t, upicollect.DefaultMaxWait, clk.Now().Sub(start))
			// Delays 2s, 3s, 6s, then 7.5s: 118 of those fit in the rest.
			assert.Equal(t, 1+3+118, srv.Count())
		})
	}
}

func TestWaitForPaymentContextDeadlineNoStatus(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, statusScript(t, "500"))
	c, clk := newClient(t, srv.BaseURL(), noRetry())
	ctx, cancel := context.WithDeadline(context.Background(), clk.Now().Add(4*time.Second))
	defer cancel()
	st, err := c.WaitForPayment(ctx, testStatusOrder)
	assert.Nil(t, st)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "no status seen")
	assert.Equal(t, 2, srv.Count())
}

func TestWaitForPaymentCancelled(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, statusScript(t, pending))
	c, _ := newClient(t, srv.BaseURL())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := c.WaitForPayment(ctx, testStatusOrder, upicollect.WithOnPoll(func(s *upicollect.PaymentStatus) {
		if srv.Count() == 2 {
			cancel()
		}
	}))
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	require.NotNil(t, st)
	assert.Equal(t, upicollect.TxnPending, st.TxnStatus)
	assert.Equal(t, 2, srv.Count())

	// Cancelled before it starts: nothing is sent.
	st, err = c.WaitForPayment(ctx, testStatusOrder)
	assert.Nil(t, st)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 2, srv.Count())
}

// cancelOnSecondPoll answers the first poll with first, and ends the wait
// (cancel) while the second poll is in flight.
func cancelOnSecondPoll(cancel context.CancelFunc, first handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			first(w, r, n)
			return
		}
		cancel()
		block(r)
	}
}

// TestWaitForPaymentCancelledDuringPoll: the context ends while a poll is
// in flight.
func TestWaitForPaymentCancelledDuringPoll(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := newTestServer(t, cancelOnSecondPoll(cancel, statusScript(t, pending)))
	c, _ := newClient(t, srv.BaseURL())
	st, err := c.WaitForPayment(ctx, testStatusOrder)
	assert.ErrorIs(t, err, context.Canceled)
	require.NotNil(t, st)
	assert.Equal(t, upicollect.TxnPending, st.TxnStatus)
}

func TestWaitForPaymentStopsOnPermanentErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		step string
		is   error
	}{
		{"401", upicollect.ErrUnauthorized},
		{"missing_auth", upicollect.ErrUnauthorized},
		{"400", upicollect.ErrInvalidRequest},
		// A 404 that is not the service's envelope: a wrong base URL.
		{"html404", upicollect.ErrUnexpectedResponse},
	} {
		t.Run(tc.step, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, statusScript(t, pending, tc.step, paid))
			c, clk := newClient(t, srv.BaseURL())
			st, err := c.WaitForPayment(context.Background(), testStatusOrder)
			assert.ErrorIs(t, err, tc.is)
			require.NotNil(t, st, "the last status seen")
			assert.Equal(t, upicollect.TxnPending, st.TxnStatus)
			assert.Equal(t, 2, srv.Count(), "no poll after a permanent error")
			assert.Len(t, clk.Sleeps(), 1)
		})
	}
	t.Run("unauthorized at once", func(t *testing.T) {
		t.Parallel()
		srv := newTestServer(t, statusScript(t, "401", paid))
		c, clk := newClient(t, srv.BaseURL())
		st, err := c.WaitForPayment(context.Background(), testStatusOrder)
		assert.Nil(t, st)
		assertSentinels(t, err, upicollect.ErrUnauthorized)
		assert.Equal(t, 1, srv.Count())
		assert.Empty(t, clk.Sleeps())
	})
}

func TestWaitForPaymentPollsThroughTransientErrors(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, statusScript(t, pending, "500", "429", "garbage", pending, paid))
	c, clk := newClient(t, srv.BaseURL(), noRetry())
	polls := 0
	st, err := c.WaitForPayment(context.Background(), testStatusOrder,
		upicollect.WithPollInterval(time.Second, 4*time.Second),
		upicollect.WithOnPoll(func(*upicollect.PaymentStatus) { polls++ }))
	require.NoError(t, err)
	assert.Equal(t, upicollect.TxnSuccess, st.TxnStatus)
	assert.Equal(t, 6, srv.Count())
	assert.Equal(t, 3, polls, "OnPoll sees every status, not the failures")
	require.Len(t, clk.Sleeps(), 5)
	for _, d := range clk.Sleeps() {
		assert.GreaterOrEqual(t, d, time.Second)
		assert.LessOrEqual(t, d, 4*time.Second)
	}
}

// TestWaitForPaymentPollDelaysWithinBounds checks every delay against
// [min, max] for jitter at both ends of its range, over many polls, with
// bounds up to the largest Duration.
func TestWaitForPaymentPollDelaysWithinBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		min, max time.Duration
		rand     float64
		polls    int
	}{
		{"default low jitter", 0, 0, 0, 70},
		{"default high jitter", 0, 0, 0.999999, 70},
		{"1s..1s", time.Second, time.Second, 0.5, 70},
		{"3s..7s", 3 * time.Second, 7 * time.Second, 0.999999, 70},
		{"max below min", 5 * time.Second, time.Second, 0.5, 70},
		{"min only: max stays the default", time.Second, 0, 0.5, 70},
		// Doubling from 1s, 30 polls add up to about 2^30 s: as far as a
		// wait can go before its deadline (even MaxInt64 from now) passes.
		{"huge max", time.Second, math.MaxInt64, 0.5, 30},
		{"huge max high jitter", time.Second, math.MaxInt64, 0.999999, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			polls := tc.polls
			steps := make([]string, polls)
			for i := range steps {
				steps[i] = pending
			}
			steps[polls-1] = paid
			srv := newTestServer(t, statusScript(t, steps...))
			r := tc.rand
			c, clk := newClient(t, srv.BaseURL(), upicollect.WithRand(func() float64 { return r }))
			st, err := c.WaitForPayment(context.Background(), testStatusOrder,
				upicollect.WithPollInterval(tc.min, tc.max), upicollect.WithMaxWait(math.MaxInt64))
			require.NoError(t, err)
			assert.True(t, st.Paid())
			lo, hi := tc.min, tc.max
			if lo <= 0 {
				lo = upicollect.DefaultPollMin
			}
			if hi <= 0 {
				hi = upicollect.DefaultPollMax
			}
			hi = max(hi, lo)
			require.Len(t, clk.Sleeps(), polls-1)
			prev := time.Duration(0)
			for i, d := range clk.Sleeps() {
				require.GreaterOrEqual(t, d, lo, "delay %d", i)
				require.LessOrEqual(t, d, hi, "delay %d", i)
				if tc.rand == 0.5 {
					require.GreaterOrEqual(t, d, prev, "delays never shrink with fixed jitter (delay %d)", i)
				}
				prev = d
			}
			if hi > lo {
				assert.Greater(t, prev, lo, "delays grow above min towards max")
			}
		})
	}
}

// TestWaitForPaymentExpectedAmount: a SUCCESS for another amount than
// expected ends the wait with the status and ErrAmountMismatch; the
// expected amount, a FAIL, or no expectation end it as before.
func TestWaitForPaymentExpectedAmount(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		steps    []string
		expected upicollect.Money
		mismatch bool
	}{
		{"another amount", []string{pending, paid}, upicollect.Rupees(500), true},
		{"a paisa less", []string{paid}, upicollect.Rupees(499) + 1, true},
		{"the amount expected", []string{pending, paid}, upicollect.Rupees(499), false},
		{"no expectation", []string{paid}, 0, false},
		{"a negative expectation is none", []string{paid}, -1, false},
		{"FAIL is no payment", []string{failed}, upicollect.Rupees(500), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, statusScript(t, tt.steps...))
			c, _ := newClient(t, srv.BaseURL())
			ctx, cancel := context.WithTimeout(context.Background(), waitBound)
			defer cancel()
			st, err := c.WaitForPayment(ctx, testStatusOrder, upicollect.WithExpectedAmount(tt.expected))
			require.NotNil(t, st, "the status comes with the error")
			assert.Equal(t, len(tt.steps), srv.Count())
			if !tt.mismatch {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, upicollect.ErrAmountMismatch)
			assertSentinels(t, err, upicollect.ErrAmountMismatch)
			var ae *upicollect.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, testStatusOrder, ae.OrderID)
			assert.Equal(t, 200, ae.HTTPStatus)
			assert.Equal(t, 200, ae.StatusCode)
			assert.Equal(t, "Payment was successful", ae.Message)
			assert.Same(t, st.Response, ae.Response)
			assert.Contains(t, err.Error(), "paid 499.00, expected "+tt.expected.String())
			assert.True(t, st.Paid(), "the status says what the service said")
		})
	}
}

// TestWaitForPaymentCarriesTheLastPollsCause: a wait that ends while its
// polls fail is an *APIError with the last poll's cause and answer: against
// a dead port it says "connection refused", not only "no status seen".
func TestWaitForPaymentCarriesTheLastPollsCause(t *testing.T) {
	t.Parallel()
	c, clk := newClient(t, deadURL(t), noRetry())
	ctx, cancel := context.WithDeadline(context.Background(), clk.Now().Add(5*time.Second))
	defer cancel()
	bound, stop := context.WithTimeout(ctx, waitBound) // a regression fails, not hangs
	defer stop()
	st, err := c.WaitForPayment(bound, testStatusOrder)
	assert.Nil(t, st)
	var ae *upicollect.APIError
	require.ErrorAs(t, err, &ae)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)
	assert.Equal(t, testStatusOrder, ae.OrderID)
	assert.Contains(t, err.Error(), "no status seen")
	assert.Contains(t, err.Error(), "connection refused")

	// A poll that failed with an answer: its status and message come along.
	srv := newTestServer(t, statusScript(t, pending, "500"))
	c, clk = newClient(t, srv.BaseURL(), noRetry())
	ctx2, cancel2 := context.WithDeadline(context.Background(), clk.Now().Add(4*time.Second))
	defer cancel2()
	st, err = c.WaitForPayment(ctx2, testStatusOrder)
	require.NotNil(t, st)
	require.ErrorAs(t, err, &ae)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, 500, ae.HTTPStatus)
	assert.NotNil(t, ae.Response)
	assert.Equal(t, `upicollect: checkPaymentStatus: HTTP 500: Internal server error: waiting for payment of order "ORD-3001": last status PENDING: context deadline exceeded`,
		err.Error(), "a poll refused in the envelope adds its status and message, no detail")
	assert.NotErrorIs(t, err, upicollect.ErrServer, "the wait's error is the deadline, the poll's answer its detail")

	// A poll whose answer is not the envelope: what was wrong with it follows.
	srv = newTestServer(t, statusScript(t, pending, "garbage"))
	c, clk = newClient(t, srv.BaseURL(), noRetry())
	ctx4, cancel4 := context.WithDeadline(context.Background(), clk.Now().Add(4*time.Second))
	defer cancel4()
	_, err = c.WaitForPayment(ctx4, testStatusOrder)
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 200, ae.HTTPStatus)
	assert.Contains(t, err.Error(), `"ORD-3001": last status PENDING; last poll: body is not valid JSON: unexpected end of JSON input: body "{`)
	assert.True(t, strings.HasSuffix(err.Error(), ": context deadline exceeded"), err.Error())

	// A wait whose last poll succeeded carries no poll error.
	srv = newTestServer(t, statusScript(t, pending))
	c, clk = newClient(t, srv.BaseURL(), noRetry())
	ctx3, cancel3 := context.WithDeadline(context.Background(), clk.Now().Add(3*time.Second))
	defer cancel3()
	_, err = c.WaitForPayment(ctx3, testStatusOrder)
	require.ErrorAs(t, err, &ae)
	assert.Zero(t, ae.HTTPStatus)
	assert.Nil(t, ae.Response)
}

// TestWaitForPaymentKeepsTheCauseACutPollHides: when the context ends
// during a poll, that poll learned nothing, so the wait's error carries the
// poll before it (here an HTTP 500), not the cut-short one.
func TestWaitForPaymentKeepsTheCauseACutPollHides(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := newTestServer(t, cancelOnSecondPoll(cancel, func(w http.ResponseWriter, _ *http.Request, _ int) {
		respond(w, 500, loadResponse(t, "server_error_500.json"))
	}))
	c, _ := newClient(t, srv.BaseURL(), noRetry())
	bound, stop := context.WithTimeout(ctx, waitBound) // a regression fails, not hangs
	defer stop()
	st, err := c.WaitForPayment(bound, testStatusOrder)
	assert.Nil(t, st)
	var ae *upicollect.APIError
	require.ErrorAs(t, err, &ae)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 500, ae.HTTPStatus, "the last poll that learned something: %v", err)
	assert.Equal(t, "Internal server error", ae.Message)
	assert.Equal(t, 2, srv.Count())
}

// deadURL is the base URL of a loopback port nothing listens on.
func deadURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "http://" + addr
}
