package upicollect_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/internal/clock"
)

// failBody is a failure answer for an HTTP status.
func failBody(t testing.TB, code int) []byte {
	switch code {
	case 429:
		return loadResponse(t, "rate_limited_429.json")
	case 502:
		return loadResponse(t, "bad_gateway_502.html")
	case 409:
		return loadResponse(t, "duplicate_409.json")
	case 401:
		return loadResponse(t, "unauthorized_401.json")
	case 400:
		return loadResponse(t, "invalid_400.json")
	}
	return []byte(fmt.Sprintf(`{"status":false,"statusCode":%d,"msg":"failure %d"}`, code, code))
}

// script answers the n-th request with steps[n-1], the last step repeating.
// A step is an HTTP status (0 resets the connection, -1 blocks until the
// client gives up); 200 is the success shape of the operation called.
func script(t testing.TB, steps ...int) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, n int) {
		step := steps[min(n, len(steps))-1]
		switch step {
		case 0:
			resetConn(t, w)
		case -1:
			block(r)
		case 200:
			bySuccess(t)(w, r, n)
		default:
			respond(w, step, failBody(t, step))
		}
	}
}

func TestStatusRetriedOnTransientFailures(t *testing.T) {
	t.Parallel()
	for _, code := range []int{500, 502, 503, 504, 429} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, script(t, code, code, 200))
			c, clk := newClient(t, srv.BaseURL())
			st, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
			require.NoError(t, err)
			assert.Equal(t, upicollect.TxnSuccess, st.TxnStatus)
			assert.Equal(t, 3, st.Response.Attempts)
			assert.Equal(t, 3, srv.Count())
			// Full jitter with rand 0.5: half of 200ms, then half of 400ms.
			assert.Equal(t, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, clk.Sleeps())
			assert.Equal(t, 300*time.Millisecond, st.Response.Duration, "duration on the client's clock")
		})
	}
}

func TestStatusRetriesExhausted(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, script(t, 503))
	var logs syncBuffer
	c, clk := newClient(t, srv.BaseURL(), attempts(4),
		upicollect.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	st, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
	assert.Nil(t, st)
	assertSentinels(t, err, upicollect.ErrServer)
	var ae *upicollect.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 4, ae.Response.Attempts)
	assert.Equal(t, upicollect.ReasonAttemptsExhausted, ae.Reason)
	assert.Contains(t, err.Error(), "(attempts exhausted)")
	assert.Equal(t, 4, srv.Count())
	assert.Equal(t, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}, clk.Sleeps())
	out := logs.String()
	assert.Equal(t, 4, strings.Count(out, `"msg":"upicollect: attempt"`), out)
	assert.Equal(t, 3, strings.Count(out, `"msg":"upicollect: retrying"`), out)
	assert.Equal(t, 1, strings.Count(out, `"msg":"upicollect: call failed"`), out)
	assert.Contains(t, out, `"reason":"attempts exhausted"`)
}

func TestBackoffCappedAtMaxDelay(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, script(t, 500))
	c, clk := newClient(t, srv.BaseURL(), upicollect.WithRetryPolicy(upicollect.RetryPolicy{
		MaxAttempts: 6, BaseDelay: time.Second, MaxDelay: 3 * time.Second,
	}), upicollect.WithRand(func() float64 { return 1 }))
	_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
	assert.ErrorIs(t, err, upicollect.ErrServer)
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second}, clk.Sleeps())
}

func TestStatusNotRetried(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		code int
		is   []error
	}{
		{400, []error{upicollect.ErrInvalidRequest}},
		{401, []error{upicollect.ErrUnauthorized}},
		{403, []error{upicollect.ErrUnauthorized}},
		{409, []error{upicollect.ErrDuplicateOrderID}},
		{422, []error{upicollect.ErrInvalidRequest}},
		{501, []error{upicollect.ErrServer}},
		{505, []error{upicollect.ErrServer}},
	} {
		t.Run(strconv.Itoa(tc.code), func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, script(t, tc.code, 200))
			c, clk := newClient(t, srv.BaseURL())
			_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
			assertSentinels(t, err, tc.is...)
			assert.Equal(t, 1, srv.Count())
			assert.Empty(t, clk.Sleeps())
		})
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	type tc struct {
		name       string
		code       int
		retryAfter func(now time.Time) string
		policy     upicollect.RetryPolicy
		wantCount  int
		wantSleeps []time.Duration // nil: checked by minSleep
		minSleep   time.Duration
	}
	for _, tt := range []tc{
		{name: "429 seconds", code: 429, retryAfter: func(time.Time) string { return "7" }, wantCount: 2, wantSleeps: []time.Duration{7 * time.Second}},
		{name: "503 seconds", code: 503, retryAfter: func(time.Time) string { return "2" }, wantCount: 2, wantSleeps: []time.Duration{2 * time.Second}},
		{name: "429 date", code: 429, retryAfter: func(now time.Time) string { return now.Add(10 * time.Second).UTC().Format(http.TimeFormat) }, wantCount: 2, minSleep: 9 * time.Second},
		{name: "429 zero keeps backoff", code: 429, retryAfter: func(time.Time) string { return "0" }, wantCount: 2, wantSleeps: []time.Duration{100 * time.Millisecond}},
		{name: "429 garbage keeps backoff", code: 429, retryAfter: func(time.Time) string { return "soon" }, wantCount: 2, wantSleeps: []time.Duration{100 * time.Millisecond}},
		{name: "500 ignores Retry-After", code: 500, retryAfter: func(time.Time) string { return "9" }, wantCount: 2, wantSleeps: []time.Duration{100 * time.Millisecond}},
		{name: "429 at MaxRetryAfter", code: 429, retryAfter: func(time.Time) string { return "30" }, wantCount: 2, wantSleeps: []time.Duration{30 * time.Second}},
		{name: "429 above MaxRetryAfter", code: 429, retryAfter: func(time.Time) string { return "31" }, wantCount: 1, wantSleeps: []time.Duration{}},
		{name: "503 above custom MaxRetryAfter", code: 503, retryAfter: func(time.Time) string { return "6" },
			policy: upicollect.RetryPolicy{MaxRetryAfter: 5 * time.Second}, wantCount: 1, wantSleeps: []time.Duration{}},
		{name: "429 far future date", code: 429, retryAfter: func(now time.Time) string { return now.Add(time.Hour).UTC().Format(http.TimeFormat) }, wantCount: 1, wantSleeps: []time.Duration{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := clock.NewFake(time.Now())
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					w.Header().Set("Retry-After", tt.retryAfter(clk.Now()))
					respond(w, tt.code, failBody(t, tt.code))
					return
				}
				bySuccess(t)(w, r, n)
			})
			c, _ := newClient(t, srv.BaseURL(), upicollect.WithClock(clk), upicollect.WithRetryPolicy(tt.policy))
			st, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
			assert.Equal(t, tt.wantCount, srv.Count())
			if tt.wantCount == 1 {
				require.Error(t, err)
				assert.Nil(t, st)
				var ae *upicollect.APIError
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, tt.code, ae.HTTPStatus)
				assert.NotEmpty(t, ae.Response.Header.Get("Retry-After"))
			} else {
				require.NoError(t, err)
				assert.Equal(t, 2, st.Response.Attempts)
			}
			if tt.wantSleeps != nil {
				assert.Equal(t, tt.wantSleeps, append([]time.Duration{}, clk.Sleeps()...))
			} else {
				require.Len(t, clk.Sleeps(), 1)
				assert.GreaterOrEqual(t, clk.Sleeps()[0], tt.minSleep)
				assert.LessOrEqual(t, clk.Sleeps()[0], 10*time.Second)
			}
		})
	}
}

func TestCreateRetries(t *testing.T) {
	t.Parallel()
	type tc struct {
		name      string
		ops       []string
		orderID   string
		steps     []int
		wantCount int
		is        []error // nil: success
	}
	keyedOps := []string{opIntent, opRequest}
	unkeyedOps := []string{opLink}
	for _, tt := range []tc{
		// A create without an order id (a link: intents and requests
		// always get one) is not repeated once it may have reached the service.
		{name: "500 without order id: not retried", ops: unkeyedOps, steps: []int{500, 200}, wantCount: 1,
			is: []error{upicollect.ErrServer, upicollect.ErrOutcomeUnknown}},
		{name: "502 without order id: not retried", ops: unkeyedOps, steps: []int{502, 200}, wantCount: 1,
			is: []error{upicollect.ErrServer, upicollect.ErrUnexpectedResponse, upicollect.ErrOutcomeUnknown}},
		{name: "reset without order id: not retried", ops: unkeyedOps, steps: []int{0, 200}, wantCount: 1,
			is: []error{upicollect.ErrOutcomeUnknown}},
		{name: "429 without order id: not retried, it reached the service", ops: unkeyedOps, steps: []int{429, 200}, wantCount: 1,
			is: []error{upicollect.ErrRateLimited, upicollect.ErrOutcomeUnknown}},
		// An intent or request without OrderID gets one from NewOrderID
		// before the first attempt: keyed, so retried like one with OrderID.
		{name: "500 without OrderID: the client's order id, retried", ops: keyedOps, steps: []int{500, 200}, wantCount: 2},
		{name: "502 without OrderID: the client's order id, retried", ops: keyedOps, steps: []int{502, 200}, wantCount: 2},
		{name: "reset without OrderID: the client's order id, retried", ops: keyedOps, steps: []int{0, 200}, wantCount: 2},
		{name: "429 without OrderID: the client's order id, retried", ops: keyedOps, steps: []int{429, 200}, wantCount: 2},
		{name: "500 then 409 without OrderID: outcome unknown for the client's order id", ops: keyedOps, steps: []int{500, 409}, wantCount: 2,
			is: []error{upicollect.ErrOutcomeUnknown}},
		{name: "500 exhausted without OrderID", ops: keyedOps, steps: []int{500}, wantCount: 3,
			is: []error{upicollect.ErrServer, upicollect.ErrOutcomeUnknown}},
		{name: "429 with order id: retried", ops: keyedOps, orderID: "ORD-K1", steps: []int{429, 200}, wantCount: 2},
		// The first 429 may have come after the order was made (a proxy forwarded it).
		{name: "429 exhausted with order id", ops: keyedOps, orderID: "ORD-K1", steps: []int{429}, wantCount: 3,
			is: []error{upicollect.ErrRateLimited, upicollect.ErrOutcomeUnknown}},
		{name: "500 with order id: retried", ops: keyedOps, orderID: "ORD-K1", steps: []int{500, 200}, wantCount: 2},
		{name: "503 twice with order id: retried", ops: keyedOps, orderID: "ORD-K1", steps: []int{503, 504, 200}, wantCount: 3},
		{name: "reset with order id: retried", ops: keyedOps, orderID: "ORD-K1", steps: []int{0, 200}, wantCount: 2},
		{name: "500 then 409 with order id: outcome unknown", ops: keyedOps, orderID: "ORD-K1", steps: []int{500, 409}, wantCount: 2,
			is: []error{upicollect.ErrOutcomeUnknown}},
		{name: "reset then 409 with order id: outcome unknown", ops: keyedOps, orderID: "ORD-K1", steps: []int{0, 409}, wantCount: 2,
			is: []error{upicollect.ErrOutcomeUnknown}},
		{name: "500 exhausted with order id", ops: keyedOps, orderID: "ORD-K1", steps: []int{500}, wantCount: 3,
			is: []error{upicollect.ErrServer, upicollect.ErrOutcomeUnknown}},
		{name: "409 first: duplicate", ops: keyedOps, orderID: "ORD-K1", steps: []int{409, 200}, wantCount: 1,
			is: []error{upicollect.ErrDuplicateOrderID}},
		{name: "429 then 409: outcome unknown", ops: keyedOps, orderID: "ORD-K1", steps: []int{429, 409}, wantCount: 2,
			is: []error{upicollect.ErrOutcomeUnknown}},
		{name: "429, 429 then 409: outcome unknown", ops: keyedOps, orderID: "ORD-K1", steps: []int{429, 429, 409}, wantCount: 3,
			is: []error{upicollect.ErrOutcomeUnknown}},
		{name: "500 then 400 with order id: outcome unknown", ops: keyedOps, orderID: "ORD-K1", steps: []int{500, 400}, wantCount: 2,
			is: []error{upicollect.ErrInvalidRequest, upicollect.ErrOutcomeUnknown}},
		{name: "303 with order id: outcome unknown", ops: keyedOps, orderID: "ORD-K1", steps: []int{303, 200}, wantCount: 1,
			is: []error{upicollect.ErrUnexpectedResponse, upicollect.ErrOutcomeUnknown}},
		{name: "300 without order id: outcome unknown", ops: createOps, steps: []int{300, 200}, wantCount: 1,
			is: []error{upicollect.ErrUnexpectedResponse, upicollect.ErrOutcomeUnknown}},
		{name: "401 not retried", ops: createOps, orderID: "ORD-K1", steps: []int{401, 200}, wantCount: 1,
			is: []error{upicollect.ErrUnauthorized}},
	} {
		for _, op := range tt.ops {
			t.Run(op+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				srv := newTestServer(t, script(t, tt.steps...))
				c, clk := newClient(t, srv.BaseURL())
				res, resp, err := callOp(context.Background(), c, op, tt.orderID)
				assert.Equal(t, tt.wantCount, srv.Count())
				assert.Len(t, clk.Sleeps(), tt.wantCount-1)
				for _, req := range srv.Requests() {
					assert.Equal(t, srv.Requests()[0].Form, req.Form, "a retry sends the same body")
				}
				wantOrder := tt.orderID
				switch {
				case op == opLink:
					wantOrder = ""
				case wantOrder == "":
					// The client set one from NewOrderID.
					wantOrder = srv.Requests()[0].Form.Get("order_id")
					assert.Regexp(t, newOrderIDPattern, wantOrder)
				}
				if tt.is == nil {
					require.NoError(t, err)
					require.NotNil(t, res)
					assert.Equal(t, tt.wantCount, resp.Attempts)
					return
				}
				require.Error(t, err)
				assertSentinels(t, err, tt.is...)
				var ae *upicollect.APIError
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, wantOrder, ae.OrderID)
				assert.Equal(t, op, ae.Op)
				if errors.Is(err, upicollect.ErrOutcomeUnknown) {
					if wantOrder != "" {
						assert.Contains(t, err.Error(), `outcome unknown for order "`+wantOrder+`"`)
					}
				}
				if tt.steps[len(tt.steps)-1] == 409 && tt.wantCount > 1 {
					assert.Equal(t, 409, ae.HTTPStatus)
					assert.Equal(t, "Order ID already exists", ae.Message)
				}
			})
		}
	}
}

func TestConnectionRefusedRetriedForAllOps(t *testing.T) {
	t.Parallel()
	base := "http://" + closedAddr(t) + apiPrefix
	for _, op := range allOps {
		for _, orderID := range []string{"", "ORD-R1"} {
			t.Run(op+"/"+orderID, func(t *testing.T) {
				t.Parallel()
				c, clk := newClient(t, base)
				res, _, err := callOp(context.Background(), c, op, orderID)
				assert.Nil(t, res)
				require.Error(t, err)
				assert.ErrorIs(t, err, syscall.ECONNREFUSED)
				assertSentinels(t, err) // nothing went out: not outcome unknown
				assert.True(t, strings.HasPrefix(err.Error(), "upicollect: "+op+": "), err.Error())
				assert.Len(t, clk.Sleeps(), 2, "three attempts")
			})
		}
	}
}

func TestConnectionResetOnStatusRetried(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, script(t, 0, 0, 200))
	c, clk := newClient(t, srv.BaseURL())
	st, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
	require.NoError(t, err)
	assert.Equal(t, 3, st.Response.Attempts)
	assert.Equal(t, 3, srv.Count())
	assert.Len(t, clk.Sleeps(), 2)

	srv2 := newTestServer(t, script(t, 0))
	c2, _ := newClient(t, srv2.BaseURL())
	_, err = c2.CheckPaymentStatus(context.Background(), testStatusOrder)
	require.Error(t, err)
	assertSentinels(t, err)
	assert.Equal(t, 3, srv2.Count())
}

func TestCancelledContext(t *testing.T) {
	t.Parallel()
	for _, op := range allOps {
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, bySuccess(t))
			c, _ := newClient(t, srv.BaseURL())
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, _, err := callOp(ctx, c, op, testOrderID)
			assert.ErrorIs(t, err, context.Canceled)
			assertSentinels(t, err) // nothing was sent
			assert.Equal(t, 0, srv.Count())

			dctx, dcancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
			defer dcancel()
			_, _, err = callOp(dctx, c, op, testOrderID)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assertSentinels(t, err)
			assert.Equal(t, 0, srv.Count())
		})
	}
}

// TestContextCancelledDuringAttempt: the call ends when its context does;
// a create that went out is then of unknown outcome.
func TestContextCancelledDuringAttempt(t *testing.T) {
	t.Parallel()
	for _, op := range allOps {
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			gaveUp := make(chan bool, 1)
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				cancel()
				gaveUp <- block(r)
			})
			c, clk := newClient(t, srv.BaseURL())
			_, _, err := callOp(ctx, c, op, testOrderID)
			require.Error(t, err)
			assert.ErrorIs(t, err, context.Canceled)
			if op == opStatus {
				assertSentinels(t, err)
			} else {
				assertSentinels(t, err, upicollect.ErrOutcomeUnknown)
			}
			select {
			case abandoned := <-gaveUp:
				assert.True(t, abandoned, "the request was abandoned")
			case <-time.After(10 * time.Second):
				t.Fatal("the handler never saw the client give up")
			}
			assert.Equal(t, 1, srv.Count())
			assert.Empty(t, clk.Sleeps())
		})
	}
}

// TestDeadlineDuringBackoff: a backoff that would outlast the context's
// deadline ends the call with the deadline and the last failure.
func TestDeadlineDuringBackoff(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		op, orderID string
		code        int
		is          []error
	}{
		{opStatus, "", 503, []error{upicollect.ErrServer}},
		{opStatus, "", 429, []error{upicollect.ErrRateLimited}},
		{opIntent, "ORD-D1", 503, []error{upicollect.ErrServer, upicollect.ErrOutcomeUnknown}},
		{opRequest, "ORD-D1", 500, []error{upicollect.ErrServer, upicollect.ErrOutcomeUnknown}},
		{opIntent, "ORD-D1", 429, []error{upicollect.ErrRateLimited, upicollect.ErrOutcomeUnknown}},
		{opRequest, "ORD-D1", 429, []error{upicollect.ErrRateLimited, upicollect.ErrOutcomeUnknown}},
	} {
		t.Run(fmt.Sprintf("%s/%s/%d", tt.op, tt.orderID, tt.code), func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, script(t, tt.code))
			c, clk := newClient(t, srv.BaseURL(), upicollect.WithRetryPolicy(upicollect.RetryPolicy{BaseDelay: time.Minute, MaxDelay: time.Minute}))
			// The backoff is 30s (rand 0.5); the deadline is 10s ahead.
			ctx, cancel := context.WithDeadline(context.Background(), clk.Now().Add(10*time.Second))
			defer cancel()
			_, _, err := callOp(ctx, c, tt.op, tt.orderID)
			require.Error(t, err)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assertSentinels(t, err, tt.is...)
			assert.Equal(t, 1, srv.Count())
			assert.Equal(t, []time.Duration{30 * time.Second}, clk.Sleeps())
		})
	}
}

// TestPerAttemptTimeout: each attempt has its own timeout; a status check
// that timed out is retried, a create without order id is not.
func TestPerAttemptTimeout(t *testing.T) {
	t.Parallel()
	const perAttempt = 750 * time.Millisecond
	t.Run("status retried", func(t *testing.T) {
		t.Parallel()
		srv := newTestServer(t, script(t, -1, 200))
		c, clk := newClient(t, srv.BaseURL(), upicollect.WithTimeout(perAttempt))
		st, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
		require.NoError(t, err)
		assert.Equal(t, upicollect.TxnSuccess, st.TxnStatus)
		assert.Equal(t, 2, st.Response.Attempts)
		assert.Equal(t, []time.Duration{100 * time.Millisecond}, clk.Sleeps())
	})
	t.Run("status exhausted", func(t *testing.T) {
		t.Parallel()
		srv := newTestServer(t, script(t, -1))
		c, _ := newClient(t, srv.BaseURL(), upicollect.WithTimeout(perAttempt), attempts(2))
		_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
		require.Error(t, err)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assertSentinels(t, err)
		assert.Equal(t, 2, srv.Count())
	})
	for _, op := range []string{opLink} { // intents and requests always carry an order id
		t.Run(op+" without order id not retried", func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, script(t, -1, 200))
			c, clk := newClient(t, srv.BaseURL(), upicollect.WithTimeout(perAttempt))
			_, _, err := callOp(context.Background(), c, op, "")
			require.Error(t, err)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assertSentinels(t, err, upicollect.ErrOutcomeUnknown)
			assert.Equal(t, 1, srv.Count())
			assert.Empty(t, clk.Sleeps())
		})
	}
	for _, op := range []string{opIntent, opRequest} {
		t.Run(op+" without OrderID: the client's order id, retried", func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, script(t, -1, 200))
			c, clk := newClient(t, srv.BaseURL(), upicollect.WithTimeout(perAttempt))
			_, resp, err := callOp(context.Background(), c, op, "")
			require.NoError(t, err)
			assert.Equal(t, 2, resp.Attempts)
			reqs := srv.Requests()
			require.Len(t, reqs, 2)
			assert.Regexp(t, newOrderIDPattern, reqs[0].Form.Get("order_id"))
			assert.Equal(t, reqs[0].Form, reqs[1].Form, "the same order id on the retry")
			assert.Len(t, clk.Sleeps(), 1)
		})
	}
	for _, op := range []string{opIntent, opRequest} {
		t.Run(op+" with order id retried, then 409", func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, script(t, -1, 409))
			c, _ := newClient(t, srv.BaseURL(), upicollect.WithTimeout(perAttempt))
			_, _, err := callOp(context.Background(), c, op, "ORD-T1")
			require.Error(t, err)
			assertSentinels(t, err, upicollect.ErrOutcomeUnknown)
			var ae *upicollect.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, "ORD-T1", ae.OrderID)
			assert.Equal(t, 2, srv.Count())
		})
	}
}

func TestRetryBudget(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, script(t, 500))
	var logs syncBuffer
	c, _ := newClient(t, srv.BaseURL(), attempts(5), upicollect.WithRetryBudget(5),
		upicollect.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
	assert.ErrorIs(t, err, upicollect.ErrServer)
	assert.Equal(t, 2, srv.Count(), "one retry costs the whole budget")
	_, err = c.CheckPaymentStatus(context.Background(), testStatusOrder)
	assert.ErrorIs(t, err, upicollect.ErrServer)
	assert.Equal(t, 3, srv.Count(), "an empty budget allows no retry")
	assert.Contains(t, logs.String(), "retry budget exhausted")

	// Unlimited budget: every attempt is made.
	srv2 := newTestServer(t, script(t, 500))
	c2, _ := newClient(t, srv2.BaseURL(), attempts(5), upicollect.WithRetryBudget(0))
	for i := 0; i < 3; i++ {
		_, err = c2.CheckPaymentStatus(context.Background(), testStatusOrder)
		assert.ErrorIs(t, err, upicollect.ErrServer)
	}
	assert.Equal(t, 15, srv2.Count())
}

// TestRetryBudgetRefilledBySuccess: a retry that succeeds gives its tokens
// back, so the budget does not drain while the service recovers.
func TestRetryBudgetRefilledBySuccess(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n%2 == 1 {
			respond(w, 500, failBody(t, 500))
			return
		}
		bySuccess(t)(w, r, n)
	})
	c, _ := newClient(t, srv.BaseURL(), upicollect.WithRetryBudget(5))
	for i := 0; i < 5; i++ {
		st, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
		require.NoError(t, err, "call %d", i)
		assert.Equal(t, 2, st.Response.Attempts)
	}
}

// shortBody promises more body than it sends, so reading it fails with an
// unexpected EOF after the status and part of the body arrived.
func shortBody(w http.ResponseWriter) {
	w.Header().Set("Content-Length", "1000")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(`{"status":true,`))
}

func TestBodyReadError(t *testing.T) {
	t.Parallel()
	t.Run("status retried", func(t *testing.T) {
		t.Parallel()
		srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				shortBody(w)
				return
			}
			bySuccess(t)(w, r, n)
		})
		c, _ := newClient(t, srv.BaseURL())
		st, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
		require.NoError(t, err)
		assert.Equal(t, 2, st.Response.Attempts)
	})
	for _, op := range createOps {
		t.Run(op+" without order id", func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) { shortBody(w) })
			c, _ := newClient(t, srv.BaseURL())
			_, _, err := callOp(context.Background(), c, op, "")
			require.Error(t, err)
			assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
			assertSentinels(t, err, upicollect.ErrOutcomeUnknown)
			var ae *upicollect.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, http.StatusOK, ae.HTTPStatus)
			assert.Equal(t, `{"status":true,`, string(ae.Response.Body))
			assert.Contains(t, err.Error(), "reading the body")
			// A link is sent once; an intent or request carries the
			// client's order id and is retried, and every attempt's body
			// is cut short.
			want := 1
			if op != opLink {
				want = 3
				assert.Equal(t, srv.Requests()[0].Form.Get("order_id"), ae.OrderID)
				assert.Regexp(t, newOrderIDPattern, ae.OrderID)
			}
			assert.Equal(t, want, srv.Count())
		})
	}
}

// TestAPIErrorRetryAfter: the error of a call that stopped carries the
// last answer's Retry-After as the retry rules read it (a 429 or a 503, in
// seconds or as a date), and 0 where they ignore it.
func TestAPIErrorRetryAfter(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name       string
		code       int
		retryAfter func(now time.Time) string
		min, max   time.Duration
	}{
		{"429 seconds", 429, func(time.Time) string { return "3" }, 3 * time.Second, 3 * time.Second},
		{"503 seconds", 503, func(time.Time) string { return "45" }, 45 * time.Second, 45 * time.Second},
		{"429 date", 429, func(now time.Time) string { return now.Add(time.Hour).UTC().Format(http.TimeFormat) }, time.Hour - time.Second, time.Hour},
		{"429 none", 429, func(time.Time) string { return "" }, 0, 0},
		{"429 garbage", 429, func(time.Time) string { return "soon" }, 0, 0},
		{"500 is not asked to wait", 500, func(time.Time) string { return "9" }, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := clock.NewFake(time.Now())
			srv := newTestServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
				if v := tt.retryAfter(clk.Now()); v != "" {
					w.Header().Set("Retry-After", v)
				}
				respond(w, tt.code, failBody(t, tt.code))
			})
			c, _ := newClient(t, srv.BaseURL(), upicollect.WithClock(clk), upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1}))
			_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
			var ae *upicollect.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, 1, srv.Count())
			assert.GreaterOrEqual(t, ae.RetryAfter, tt.min)
			assert.LessOrEqual(t, ae.RetryAfter, tt.max)
		})
	}
}
