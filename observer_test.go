package upicollect_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/internal/clock"
	"github.com/upicollect/upicollect-go/sandbox"
)

// event is one Observer call, as recordingObserver keeps it.
type event struct {
	Kind    string // "call", "attempt", "attempt end", "call end", "final"
	Call    upicollect.CallInfo
	N       int
	Attempt upicollect.AttemptEnd
	End     upicollect.CallEnd
	Final   upicollect.FinalState
	// Parent is the span-like id found in the context the method got: the
	// call's id for an attempt, the attempt's own id for its end.
	Parent string
}

type spanKey struct{}

// recordingObserver records every Observer call, and puts a span-like id in
// the contexts it returns, so that a test can see which context reached
// which method (and the HTTP request).
type recordingObserver struct {
	mu     sync.Mutex
	events []event
	calls  int
}

func (o *recordingObserver) add(e event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.events = append(o.events, e)
}

func spanOf(ctx context.Context) string { s, _ := ctx.Value(spanKey{}).(string); return s }

func (o *recordingObserver) StartCall(ctx context.Context, c upicollect.CallInfo) context.Context {
	o.mu.Lock()
	o.calls++
	id := fmt.Sprintf("call%d", o.calls)
	o.mu.Unlock()
	o.add(event{Kind: "call", Call: c, Parent: spanOf(ctx)})
	return context.WithValue(ctx, spanKey{}, id)
}

func (o *recordingObserver) StartAttempt(ctx context.Context, c upicollect.CallInfo, n int) context.Context {
	o.add(event{Kind: "attempt", Call: c, N: n, Parent: spanOf(ctx)})
	return context.WithValue(ctx, spanKey{}, fmt.Sprintf("%s/attempt%d", spanOf(ctx), n))
}

func (o *recordingObserver) EndAttempt(ctx context.Context, c upicollect.CallInfo, a upicollect.AttemptEnd) {
	o.add(event{Kind: "attempt end", Call: c, Attempt: a, Parent: spanOf(ctx)})
}

func (o *recordingObserver) EndCall(ctx context.Context, c upicollect.CallInfo, e upicollect.CallEnd) {
	o.add(event{Kind: "call end", Call: c, End: e, Parent: spanOf(ctx)})
}

func (o *recordingObserver) FinalState(ctx context.Context, f upicollect.FinalState) {
	o.add(event{Kind: "final", Final: f, Parent: spanOf(ctx)})
}

func (o *recordingObserver) Events() []event {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]event(nil), o.events...)
}

// kinds is the sequence of event kinds, for an overview assertion.
func kinds(es []event) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Kind
		if e.N != 0 {
			out[i] += fmt.Sprint(" ", e.N)
		}
	}
	return out
}

// TestObserverRetries: an observed call reports one StartCall, one
// StartAttempt/EndAttempt pair per request the server received, each
// retry's reason and delay, and the call's outcome; the attempts' contexts
// descend from the call's.
func TestObserverRetries(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		op      string
		orderID string
		steps   []int
		want    upicollect.CallEnd
		retries []string // each attempt's retry reason, "" for the last
		status  []int
	}{
		{
			name: "status 429 then 503 then success", op: opStatus, steps: []int{429, 503, 200},
			want:    upicollect.CallEnd{Attempts: 3, HTTPStatus: 200, Outcome: upicollect.OutcomeSuccess},
			retries: []string{"rate limited (429)", "server error (503)", ""},
			status:  []int{429, 503, 200},
		},
		{
			name: "status 503 exhausted", op: opStatus, steps: []int{503},
			want: upicollect.CallEnd{Attempts: 3, HTTPStatus: 503, Outcome: upicollect.OutcomeFailure,
				ErrorType: "server_error", Reason: upicollect.ReasonAttemptsExhausted},
			retries: []string{"server error (503)", "server error (503)", ""},
			status:  []int{503, 503, 503},
		},
		{
			name: "keyed intent 500 exhausted", op: opIntent, orderID: "ORD-OBS-1", steps: []int{500},
			want: upicollect.CallEnd{Attempts: 3, HTTPStatus: 500, Outcome: upicollect.OutcomeUnknown,
				ErrorType: "server_error", Reason: upicollect.ReasonAttemptsExhausted},
			retries: []string{"server error (500)", "server error (500)", ""},
			status:  []int{500, 500, 500},
		},
		{
			name: "link 429 not retried", op: opLink, steps: []int{429},
			want: upicollect.CallEnd{Attempts: 1, HTTPStatus: 429, Outcome: upicollect.OutcomeUnknown,
				ErrorType: "rate_limited", Reason: "rate limited (429)"},
			retries: []string{""},
			status:  []int{429},
		},
		{
			name: "status 401 not retried", op: opStatus, steps: []int{401},
			want: upicollect.CallEnd{Attempts: 1, HTTPStatus: 401, Outcome: upicollect.OutcomeFailure,
				ErrorType: "unauthorized", Reason: "not retryable"},
			retries: []string{""},
			status:  []int{401},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, script(t, tt.steps...))
			obs := &recordingObserver{}
			c, clk := newClient(t, srv.BaseURL(), upicollect.WithObserver(obs))
			orderID := tt.orderID
			if tt.op == opStatus {
				orderID = testStatusOrder
			}
			_, _, err := callOp(context.Background(), c, tt.op, orderID)
			assert.Equal(t, tt.want.Outcome == upicollect.OutcomeSuccess, err == nil, "err: %v", err)

			es := obs.Events()
			n := srv.Count()
			require.Len(t, es, 2+2*n, "one call, one start and end per request the server got: %v", kinds(es))
			assert.Equal(t, "call", es[0].Kind)
			u, err := url.Parse(srv.URL)
			require.NoError(t, err)
			port, err := strconv.Atoi(u.Port())
			require.NoError(t, err)
			assert.Equal(t, upicollect.CallInfo{Op: tt.op, OrderID: orderID, ServerAddress: "127.0.0.1", ServerPort: port}, es[0].Call)
			assert.Equal(t, "", es[0].Parent)
			sleeps := clk.Sleeps()
			for i := 0; i < n; i++ {
				start, end := es[1+2*i], es[2+2*i]
				assert.Equal(t, "attempt", start.Kind)
				assert.Equal(t, i+1, start.N)
				assert.Equal(t, "call1", start.Parent, "the attempt starts in the call's context")
				assert.Equal(t, "attempt end", end.Kind)
				assert.Equal(t, fmt.Sprintf("call1/attempt%d", i+1), end.Parent, "the attempt ends with its own context")
				assert.Equal(t, i+1, end.Attempt.Attempt)
				assert.Equal(t, tt.status[i], end.Attempt.HTTPStatus)
				assert.Equal(t, tt.retries[i], end.Attempt.RetryReason)
				if tt.retries[i] != "" {
					assert.Equal(t, sleeps[i], end.Attempt.RetryDelay, "the delay slept is the one reported")
				}
				if tt.status[i] == 200 {
					assert.Empty(t, end.Attempt.ErrorType)
				} else {
					assert.NotEmpty(t, end.Attempt.ErrorType)
				}
			}
			last := es[len(es)-1]
			assert.Equal(t, "call end", last.Kind)
			assert.Equal(t, "call1", last.Parent)
			var total time.Duration
			for _, d := range sleeps {
				total += d
			}
			want := tt.want
			want.Duration = total // the fake clock moves only when the client sleeps
			assert.Equal(t, want, last.End)
		})
	}
}

// TestObserverContextReachesRequest: the attempt's context is the one the
// HTTP request carries, so a transport's own instrumentation nests under
// the attempt.
func TestObserverContextReachesRequest(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, script(t, 503, 200))
	var mu sync.Mutex
	var seen []string
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		seen = append(seen, spanOf(r.Context()))
		mu.Unlock()
		return http.DefaultTransport.RoundTrip(r)
	})}
	obs := &recordingObserver{}
	c, _ := newClient(t, srv.BaseURL(), upicollect.WithObserver(obs), upicollect.WithHTTPClient(hc))
	_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
	require.NoError(t, err)
	assert.Equal(t, []string{"call1/attempt1", "call1/attempt2"}, seen)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestObserverContextCancellation: a call canceled before it starts has no
// attempts; one canceled during its attempt ends that attempt and the call,
// canceled for the status check and of unknown outcome for a create.
func TestObserverContextCancellation(t *testing.T) {
	t.Parallel()
	t.Run("before", func(t *testing.T) {
		t.Parallel()
		srv := newTestServer(t, bySuccess(t))
		obs := &recordingObserver{}
		c, _ := newClient(t, srv.BaseURL(), upicollect.WithObserver(obs))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := c.CheckPaymentStatus(ctx, testStatusOrder)
		require.ErrorIs(t, err, context.Canceled)
		es := obs.Events()
		assert.Equal(t, []string{"call", "call end"}, kinds(es))
		assert.Equal(t, upicollect.CallEnd{Outcome: upicollect.OutcomeCanceled, ErrorType: "canceled", Reason: "context done"}, es[1].End)
		assert.Equal(t, 0, srv.Count())
	})
	for _, tt := range []struct {
		op      string
		outcome upicollect.Outcome
	}{
		{opStatus, upicollect.OutcomeCanceled},
		{opIntent, upicollect.OutcomeUnknown},
		{opLink, upicollect.OutcomeUnknown},
	} {
		t.Run("during/"+tt.op, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				cancel()
				block(r)
			})
			obs := &recordingObserver{}
			c, _ := newClient(t, srv.BaseURL(), upicollect.WithObserver(obs))
			_, _, err := callOp(ctx, c, tt.op, testOrderID)
			require.ErrorIs(t, err, context.Canceled)
			es := obs.Events()
			require.Equal(t, []string{"call", "attempt 1", "attempt end", "call end"}, kinds(es))
			assert.Equal(t, 0, es[2].Attempt.HTTPStatus)
			assert.Equal(t, "canceled", es[2].Attempt.ErrorType)
			assert.Empty(t, es[2].Attempt.RetryReason)
			end := es[3].End
			assert.Equal(t, 1, end.Attempts)
			assert.Equal(t, tt.outcome, end.Outcome)
			assert.Equal(t, "canceled", end.ErrorType)
			assert.Equal(t, "context done", end.Reason)
			assert.Equal(t, 1, srv.Count())
		})
	}
	t.Run("during backoff", func(t *testing.T) {
		t.Parallel()
		srv := newTestServer(t, script(t, 503))
		obs := &recordingObserver{}
		c, clk := newClient(t, srv.BaseURL(), upicollect.WithObserver(obs),
			upicollect.WithRetryPolicy(upicollect.RetryPolicy{BaseDelay: time.Minute, MaxDelay: time.Minute}))
		ctx, cancel := context.WithDeadline(context.Background(), clk.Now().Add(10*time.Second))
		defer cancel()
		_, err := c.CheckPaymentStatus(ctx, testStatusOrder)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		es := obs.Events()
		require.Equal(t, []string{"call", "attempt 1", "attempt end", "call end"}, kinds(es))
		assert.Equal(t, "server error (503)", es[2].Attempt.RetryReason, "the attempt was to be retried")
		assert.Equal(t, 30*time.Second, es[2].Attempt.RetryDelay)
		// The fake clock's sleep ends at the deadline, 10s in.
		assert.Equal(t, upicollect.CallEnd{Attempts: 1, HTTPStatus: 503, Duration: 10 * time.Second,
			Outcome: upicollect.OutcomeCanceled, ErrorType: "timeout", Reason: "context done"}, es[3].End)
	})
}

// TestObserverSeesNoSecrets: nothing an Observer receives holds the secret
// key, the Authorization header or the customer's e-mail or mobile, even on
// failures whose answers echo them.
func TestObserverSeesNoSecrets(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		body := fmt.Sprintf(`{"status":false,"statusCode":400,"msg":"bad %s %s %s"}`,
			r.Header.Get("Authorization"), testEmail, testMobileSent)
		respond(w, 400, []byte(body))
	})
	obs := &recordingObserver{}
	c, _ := newClient(t, srv.BaseURL(), upicollect.WithObserver(obs))
	for _, op := range allOps {
		_, _, err := callOp(context.Background(), c, op, testOrderID)
		require.Error(t, err)
	}
	dump := fmt.Sprintf("%+v %#v", obs.Events(), obs.Events())
	auth := basicAuth(testPublic, testSecret)
	for _, secret := range []string{auth, strings.TrimPrefix(auth, "Basic "), testSecret, testEmail, testMobileSent} {
		assert.NotContains(t, dump, secret)
	}
}

// TestObserverFinalState: WaitForPayment reports the final state it saw,
// with the time it waited on the client's clock.
func TestObserverFinalState(t *testing.T) {
	t.Parallel()
	sb := sandbox.Start(t, sandbox.Strict())
	obs := &recordingObserver{}
	clk := clock.NewFake(time.Now())
	c := sb.Client(upicollect.WithObserver(obs), upicollect.WithClock(clk), upicollect.WithRand(fixedRand))
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	in := validInput()
	in.OrderID = upicollect.NewOrderID()
	_, err := c.CreatePaymentIntent(ctx, in.intent())
	require.NoError(t, err)
	polls := 0
	st, err := c.WaitForPayment(ctx, in.OrderID, upicollect.WithOnPoll(func(*upicollect.PaymentStatus) {
		if polls++; polls == 2 {
			_, err := sb.Pay(in.OrderID)
			require.NoError(t, err)
		}
	}))
	require.NoError(t, err)
	require.True(t, st.Paid())
	var finals []upicollect.FinalState
	calls := 0
	for _, e := range obs.Events() {
		switch e.Kind {
		case "final":
			finals = append(finals, e.Final)
		case "call":
			calls++
		}
	}
	var waited time.Duration
	for _, d := range clk.Sleeps() {
		waited += d
	}
	assert.Equal(t, []upicollect.FinalState{{Source: "WaitForPayment", OrderID: in.OrderID, Status: upicollect.TxnSuccess, Elapsed: waited}}, finals)
	assert.Equal(t, 1+3, calls, "the create and three polls")

	c.ObserveFinalState(ctx, upicollect.FinalState{OrderID: "ORD-R", Status: upicollect.TxnFail, Result: "failed", Elapsed: time.Hour})
	es := obs.Events()
	assert.Equal(t, upicollect.FinalState{Source: "reconcile", OrderID: "ORD-R", Status: upicollect.TxnFail, Result: "failed", Elapsed: time.Hour}, es[len(es)-1].Final)
}

// countingLimiter counts its waits and fails when told to.
type countingLimiter struct {
	mu    sync.Mutex
	waits int
	fail  error
	clk   *clock.Fake
	delay time.Duration
}

func (l *countingLimiter) Wait(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.waits++
	if l.fail != nil {
		return l.fail
	}
	if l.clk != nil {
		l.clk.Advance(l.delay)
	}
	return ctx.Err()
}

// TestRateLimiterEveryAttempt: every attempt, retries included, waits on
// the RateLimiter, and the observer sees how long.
func TestRateLimiterEveryAttempt(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, script(t, 429, 503, 200))
	obs := &recordingObserver{}
	clk := newFakeClock()
	lim := &countingLimiter{clk: clk, delay: 40 * time.Millisecond}
	c, _ := newClient(t, srv.BaseURL(), upicollect.WithRateLimiter(lim), upicollect.WithObserver(obs), upicollect.WithClock(clk))
	_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
	require.NoError(t, err)
	assert.Equal(t, 3, lim.waits)
	assert.Equal(t, 3, srv.Count())
	for _, e := range obs.Events() {
		if e.Kind == "attempt end" {
			assert.Equal(t, 40*time.Millisecond, e.Attempt.RateLimitWait)
		}
	}
}

// TestRateLimiterFailure: a limiter that fails (Redis down) ends the call at
// once, sends nothing, and says the rate limiter failed; its error stays
// matchable and is not taken for the context's.
func TestRateLimiterFailure(t *testing.T) {
	t.Parallel()
	down := errors.New("redis: connection refused")
	for _, op := range allOps {
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, bySuccess(t))
			obs := &recordingObserver{}
			c, clk := newClient(t, srv.BaseURL(), upicollect.WithRateLimiter(&countingLimiter{fail: down}), upicollect.WithObserver(obs))
			_, _, err := callOp(context.Background(), c, op, testOrderID)
			require.Error(t, err)
			assert.ErrorIs(t, err, down)
			assert.NotErrorIs(t, err, context.Canceled)
			assert.NotErrorIs(t, err, context.DeadlineExceeded)
			assertSentinels(t, err) // nothing was sent: no outcome unknown
			assert.Contains(t, err.Error(), "rate limiter failed: redis: connection refused")
			assert.Equal(t, 0, srv.Count())
			assert.Empty(t, clk.Sleeps(), "no retry of a limiter failure")
			es := obs.Events()
			require.Equal(t, []string{"call", "call end"}, kinds(es))
			assert.Equal(t, upicollect.CallEnd{Outcome: upicollect.OutcomeFailure, ErrorType: "rate_limiter", Reason: "rate limiter failed"}, es[1].End)
		})
	}
}

// limiterFunc is a RateLimiter of a func.
type limiterFunc func(context.Context) error

func (f limiterFunc) Wait(ctx context.Context) error { return f(ctx) }

// TestRateLimiterOptions: the options refuse nil, also a nil pointer or
// func in the interface, and NewClient refuses both limiters at once.
func TestRateLimiterOptions(t *testing.T) {
	t.Parallel()
	base := upicollect.WithBaseURL("http://127.0.0.1:1")
	for _, tt := range []struct {
		name string
		opts []upicollect.Option
		want string
	}{
		{"nil limiter", []upicollect.Option{upicollect.WithRateLimiter(nil)}, "WithRateLimiter: nil limiter"},
		{"nil observer", []upicollect.Option{upicollect.WithObserver(nil)}, "WithObserver: nil observer"},
		// A nil pointer in a non-nil interface would panic on the first call.
		{"typed nil limiter", []upicollect.Option{upicollect.WithRateLimiter((*countingLimiter)(nil))}, "WithRateLimiter: nil limiter"},
		{"typed nil observer", []upicollect.Option{upicollect.WithObserver((*recordingObserver)(nil))}, "WithObserver: nil observer"},
		{"typed nil NopObserver", []upicollect.Option{upicollect.WithObserver((*upicollect.NopObserver)(nil))}, "WithObserver: nil observer"},
		{"nil func limiter", []upicollect.Option{upicollect.WithRateLimiter(limiterFunc(nil))}, "WithRateLimiter: nil limiter"},
		{"both limiters", []upicollect.Option{upicollect.WithRateLimit(10, 1), upicollect.WithRateLimiter(&countingLimiter{})}, "WithRateLimit and WithRateLimiter"},
		{"a struct observer", []upicollect.Option{upicollect.WithObserver(upicollect.NopObserver{})}, ""},
		{"a func limiter", []upicollect.Option{upicollect.WithRateLimiter(limiterFunc(func(context.Context) error { return nil }))}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := upicollect.NewClient(testCreds, append(tt.opts, base)...)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestErrorType: the vocabulary of ErrorType, one word per failure.
func TestErrorType(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		code int
		want string
	}{
		{401, "unauthorized"}, {400, "invalid_request"}, {409, "duplicate_order_id"},
		{429, "rate_limited"}, {503, "server_error"}, {502, "server_error"}, {404, "not_found"},
	} {
		srv := newTestServer(t, script(t, tt.code))
		c, _ := newClient(t, srv.BaseURL(), noRetry())
		_, _, err := callOp(context.Background(), c, opIntent, testOrderID)
		assert.Equal(t, tt.want, upicollect.ErrorType(err), "HTTP %d: %v", tt.code, err)
	}
	_, _, err := callOp(context.Background(), newClientOnly(t, "http://"+closedAddr(t)), opStatus, testStatusOrder)
	assert.Equal(t, "transport", upicollect.ErrorType(err))
	_, err = newClientOnly(t, "http://127.0.0.1:1").CreatePaymentIntent(context.Background(), &upicollect.IntentParams{})
	assert.Equal(t, "validation", upicollect.ErrorType(err))
	assert.Equal(t, "", upicollect.ErrorType(nil))
	assert.Equal(t, "canceled", upicollect.ErrorType(context.Canceled))
	assert.Equal(t, "timeout", upicollect.ErrorType(fmt.Errorf("x: %w", context.DeadlineExceeded)))
	assert.Equal(t, "amount_mismatch", upicollect.ErrorType(fmt.Errorf("x: %w", upicollect.ErrAmountMismatch)))
	assert.False(t, strings.Contains(upicollect.ErrorType(errors.New(testSecret)), testSecret))
}

func newClientOnly(t *testing.T, base string) *upicollect.Client {
	c, _ := newClient(t, base, noRetry())
	return c
}

// TestClientObserverIsTheClients: what Observer is given reaches the
// Observer given WithObserver, the one the client's own calls report to
// beside its log; a client given neither has a no-op one.
func TestClientObserverIsTheClients(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	obs := &recordingObserver{}
	var logs syncBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, _ := newClient(t, "http://127.0.0.1:1", upicollect.WithObserver(obs), upicollect.WithLogger(logger))
	f := upicollect.FinalState{Source: "mine", OrderID: "ORD-R", Status: upicollect.TxnFail, Result: "failed", Elapsed: time.Hour}
	c.Observer().FinalState(ctx, f)
	es := obs.Events()
	require.Len(t, es, 1)
	assert.Equal(t, event{Kind: "final", Final: f}, es[0])
	_, err := c.CheckPaymentStatus(ctx, testStatusOrder)
	require.Error(t, err)
	assert.Equal(t, "call", obs.Events()[1].Kind, "the client reports to the same observer")
	assert.Contains(t, logs.String(), "upicollect: call failed", "and to its log")

	assert.Equal(t, upicollect.Observer(upicollect.NopObserver{}), newClientOnly(t, "http://127.0.0.1:1").Observer())
}

// TestNopObserver: the no-op observer returns the contexts it is given,
// and a client without an observer ignores ObserveFinalState.
func TestNopObserver(t *testing.T) {
	t.Parallel()
	ctx := context.WithValue(context.Background(), spanKey{}, "x")
	var o upicollect.Observer = upicollect.NopObserver{}
	assert.Equal(t, ctx, o.StartCall(ctx, upicollect.CallInfo{}))
	assert.Equal(t, ctx, o.StartAttempt(ctx, upicollect.CallInfo{}, 1))
	o.EndAttempt(ctx, upicollect.CallInfo{}, upicollect.AttemptEnd{})
	o.EndCall(ctx, upicollect.CallInfo{}, upicollect.CallEnd{})
	o.FinalState(ctx, upicollect.FinalState{})
	newClientOnly(t, "http://127.0.0.1:1").ObserveFinalState(ctx, upicollect.FinalState{OrderID: "ORD-1"})
}
