package upicollectotel_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/upicollect/upicollect-go"
	upicollectotel "github.com/upicollect/upicollect-go/otel"
	"github.com/upicollect/upicollect-go/reconcile"
)

// waitBound bounds every wait of a test, so that a regression fails instead
// of hanging. It is never a measurement.
const waitBound = 30 * time.Second

var creds = upicollect.Credentials{MID: "MID-OTEL", PublicKey: "pub-otel", SecretKey: "secret-otel-key"}

// Answers of the scripted server.
const (
	pending = `{"status":true,"statusCode":200,"msg":"ok","txnStatus":"PENDING"}`
	paid    = `{"status":true,"statusCode":200,"msg":"ok","txnStatus":"SUCCESS","data":{"amount":200,"status":"SUCCESS"}}`
	link    = `{"status":true,"statusCode":200,"msg":"ok","data":{"payment_link":"https://pay.example.com/l/1"}}`
)

// scripted is a loopback server that answers the n-th request (1-based)
// with the n-th step, the last repeating: an HTTP status (200 answers body),
// or -1 to hold the request until the client gives up.
type scripted struct {
	*httptest.Server
	n       atomic.Int64
	arrived chan struct{} // closed at the first request
	once    sync.Once
}

func newScripted(t *testing.T, body string, steps ...int) *scripted {
	s := &scripted{arrived: make(chan struct{})}
	done := make(chan struct{})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(s.n.Add(1))
		s.once.Do(func() { close(s.arrived) })
		step := steps[min(n, len(steps))-1]
		w.Header().Set("Content-Type", "application/json")
		switch step {
		case 200:
			_, _ = w.Write([]byte(body))
		case -1:
			select {
			case <-r.Context().Done():
			case <-done:
			}
		default:
			w.WriteHeader(step)
			fmt.Fprintf(w, `{"status":false,"statusCode":%d,"msg":"failure %d"}`, step, step)
		}
	}))
	t.Cleanup(func() { close(done); s.Close() })
	return s
}

// env is a tracer and meter provider that keep everything in memory.
type env struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	obs    upicollect.Observer
}

func newEnv(t *testing.T) *env {
	e := &env{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(e.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(e.reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	e.obs = upicollectotel.NewObserver(tp, mp)
	return e
}

// client is a client of srv observed by e, with retries 1ns apart.
func (e *env) client(t *testing.T, srv *scripted, opts ...upicollect.Option) *upicollect.Client {
	c, err := upicollect.NewClient(creds, append([]upicollect.Option{
		upicollect.WithBaseURL(srv.URL), upicollect.WithObserver(e.obs),
		upicollect.WithRetryPolicy(upicollect.RetryPolicy{BaseDelay: time.Nanosecond, MaxDelay: time.Nanosecond}),
	}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// byName splits the ended spans into calls (internal) and attempts
// (client).
func (e *env) ended() (calls, attempts []sdktrace.ReadOnlySpan) {
	for _, s := range e.spans.Ended() {
		switch s.SpanKind() {
		case trace.SpanKindInternal:
			calls = append(calls, s)
		case trace.SpanKindClient:
			attempts = append(attempts, s)
		}
	}
	return calls, attempts
}

// sums are the counters' totals by name, and the histograms' counts.
func (e *env) sums(t *testing.T) map[string]int64 {
	var rm metricdata.ResourceMetrics
	require.NoError(t, e.reader.Collect(context.Background(), &rm))
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		assert.Equal(t, upicollectotel.ScopeName, sm.Scope.Name)
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out[m.Name] += p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out[m.Name] += int64(p.Count)
				}
			}
		}
	}
	return out
}

// points are a metric's data points as attribute sets and values.
func (e *env) points(t *testing.T, name string) map[string]int64 {
	var rm metricdata.ResourceMetrics
	require.NoError(t, e.reader.Collect(context.Background(), &rm))
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out[p.Attributes.Encoded(attribute.DefaultEncoder())] += p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out[p.Attributes.Encoded(attribute.DefaultEncoder())] += int64(p.Count)
				}
			}
		}
	}
	return out
}

func attrOf(s sdktrace.ReadOnlySpan, k attribute.Key) attribute.Value {
	for _, a := range s.Attributes() {
		if a.Key == k {
			return a.Value
		}
	}
	return attribute.Value{}
}

// TestSpansUnderRetries: one call retried after a 429 and a 503 is one
// call span with three attempt spans below it, each with its status, the
// retried ones with a retry event naming the reason; the metrics count
// one call, three attempts and two retries.
func TestSpansUnderRetries(t *testing.T) {
	e := newEnv(t)
	srv := newScripted(t, pending, 429, 503, 200)
	c := e.client(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	_, err := c.CheckPaymentStatus(ctx, "ORD-1")
	require.NoError(t, err)

	calls, attempts := e.ended()
	require.Len(t, calls, 1)
	require.Len(t, attempts, 3)
	call := calls[0]
	assert.Equal(t, "checkPaymentStatus", call.Name())
	assert.Equal(t, "success", attrOf(call, upicollectotel.OutcomeKey).AsString())
	assert.Equal(t, int64(3), attrOf(call, upicollectotel.AttemptsKey).AsInt64())
	assert.Equal(t, "ORD-1", attrOf(call, upicollectotel.OrderIDKey).AsString())
	assert.Equal(t, "127.0.0.1", attrOf(call, "server.address").AsString())
	assert.Equal(t, int64(200), attrOf(call, "http.response.status_code").AsInt64())
	wantStatus := []int64{429, 503, 200}
	wantReason := []string{"rate limited (429)", "server error (503)", ""}
	for i, a := range attempts {
		assert.Equal(t, "POST /v1/payments/checkPaymentStatus", a.Name())
		assert.Equal(t, call.SpanContext().SpanID(), a.Parent().SpanID(), "attempt %d is the call's child", i+1)
		assert.Equal(t, call.SpanContext().TraceID(), a.SpanContext().TraceID())
		assert.Equal(t, int64(i), attrOf(a, "http.request.resend_count").AsInt64())
		assert.Equal(t, "POST", attrOf(a, "http.request.method").AsString())
		assert.Equal(t, wantStatus[i], attrOf(a, "http.response.status_code").AsInt64())
		assert.Equal(t, attribute.INVALID, attrOf(a, upicollectotel.RateLimitWaitKey).Type(), "no rate limiter, no wait recorded")
		if wantReason[i] == "" {
			assert.Empty(t, a.Events())
			continue
		}
		require.Len(t, a.Events(), 1)
		ev := a.Events()[0]
		assert.Equal(t, upicollectotel.RetryEvent, ev.Name)
		assert.Contains(t, ev.Attributes, upicollectotel.RetryReasonKey.String(wantReason[i]))
		assert.NotEmpty(t, attrOf(a, "error.type").AsString())
	}

	assert.Equal(t, map[string]int64{
		"upicollect.client.calls": 1, "upicollect.client.attempts": 3, "upicollect.client.retries": 2,
		"upicollect.client.call.duration": 1,
	}, e.sums(t))
	assert.Equal(t, map[string]int64{
		"error.type=rate_limited,http.response.status_code=429,upicollect.operation=checkPaymentStatus": 1,
		"error.type=server_error,http.response.status_code=503,upicollect.operation=checkPaymentStatus": 1,
		"http.response.status_code=200,upicollect.operation=checkPaymentStatus":                         1,
	}, e.points(t, "upicollect.client.attempts"))
}

// TestSpansMatchCalls: under concurrent calls that fail and retry at
// random, spans and calls match one to one: a call span per call, an
// attempt span per request the server received, and the counters agree.
func TestSpansMatchCalls(t *testing.T) {
	e := newEnv(t)
	var n atomic.Int64
	srv := &scripted{}
	srv.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		switch n.Load() % 3 { // a 503 or a 429 every third request
		case 0:
			w.WriteHeader(503)
			_, _ = w.Write([]byte(`{"status":false,"statusCode":503,"msg":"busy"}`))
		case 1:
			if n.Load()%2 == 0 {
				w.WriteHeader(429)
				_, _ = w.Write([]byte(`{"status":false,"statusCode":429,"msg":"slow down"}`))
				return
			}
			_, _ = w.Write([]byte(pending))
		default:
			_, _ = w.Write([]byte(pending))
		}
	}))
	t.Cleanup(srv.Close)
	c := e.client(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	const callers, each = 8, 25
	var wg sync.WaitGroup
	var failed atomic.Int64
	for g := 0; g < callers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, err := c.CheckPaymentStatus(ctx, fmt.Sprintf("ORD-%d", i)); err != nil {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	calls, attempts := e.ended()
	assert.Len(t, calls, callers*each)
	assert.Len(t, attempts, int(n.Load()), "one attempt span per request received")
	assert.Len(t, e.spans.Started(), len(calls)+len(attempts), "every span started was ended")
	parents := map[trace.SpanID]bool{}
	for _, s := range calls {
		parents[s.SpanContext().SpanID()] = true
	}
	retried := 0
	for _, a := range attempts {
		assert.True(t, parents[a.Parent().SpanID()], "an attempt's parent is a call span")
		retried += len(a.Events())
	}
	sums := e.sums(t)
	assert.Equal(t, int64(callers*each), sums["upicollect.client.calls"])
	assert.Equal(t, n.Load(), sums["upicollect.client.attempts"])
	assert.Equal(t, int64(retried), sums["upicollect.client.retries"])
	assert.Equal(t, n.Load()-int64(callers*each), sums["upicollect.client.retries"], "every attempt but a call's last is a retry")
	assert.Equal(t, failed.Load(), e.points(t, "upicollect.client.calls")["error.type=server_error,upicollect.operation=checkPaymentStatus,upicollect.outcome=failure"]+
		e.points(t, "upicollect.client.calls")["error.type=rate_limited,upicollect.operation=checkPaymentStatus,upicollect.outcome=failure"])
}

// TestSpansUnderCancellation: a call whose context ends during its attempt
// ends both spans, the call's as canceled (a status check) or of unknown
// outcome (a create, also counted as outcome-unknown); one canceled before
// its first attempt has a call span and no attempt span.
func TestSpansUnderCancellation(t *testing.T) {
	for _, tt := range []struct {
		name    string
		call    func(ctx context.Context, c *upicollect.Client) error
		outcome string
		unknown int64
	}{
		{"status", func(ctx context.Context, c *upicollect.Client) error {
			_, err := c.CheckPaymentStatus(ctx, "ORD-1")
			return err
		}, "canceled", 0},
		{"link", func(ctx context.Context, c *upicollect.Client) error {
			_, err := c.CreatePaymentLink(ctx, &upicollect.LinkParams{Amount: upicollect.Rupees(10), Note: "n",
				Customer: upicollect.Customer{Name: "Ravi", Email: "ravi@example.com", Mobile: "9876543210"}})
			return err
		}, "outcome_unknown", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			srv := newScripted(t, pending, -1)
			c := e.client(t, srv)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() { // cancel once the request is at the server
				select {
				case <-srv.arrived:
				case <-time.After(waitBound):
				}
				cancel()
			}()
			err := tt.call(ctx, c)
			require.ErrorIs(t, err, context.Canceled)
			calls, attempts := e.ended()
			require.Len(t, calls, 1)
			require.Len(t, attempts, 1)
			assert.Len(t, e.spans.Started(), 2)
			assert.Equal(t, tt.outcome, attrOf(calls[0], upicollectotel.OutcomeKey).AsString())
			assert.Equal(t, "canceled", attrOf(calls[0], "error.type").AsString())
			assert.Equal(t, "canceled", attrOf(attempts[0], "error.type").AsString())
			sums := e.sums(t)
			assert.Equal(t, int64(1), sums["upicollect.client.calls"])
			assert.Equal(t, int64(1), sums["upicollect.client.attempts"])
			assert.Equal(t, tt.unknown, sums["upicollect.client.outcome_unknown"])
		})
	}
	t.Run("before", func(t *testing.T) {
		e := newEnv(t)
		srv := newScripted(t, pending, 200)
		c := e.client(t, srv)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := c.CheckPaymentStatus(ctx, "ORD-1")
		require.ErrorIs(t, err, context.Canceled)
		calls, attempts := e.ended()
		require.Len(t, calls, 1)
		assert.Empty(t, attempts)
		assert.Equal(t, int64(0), srv.n.Load())
	})
}

// failed is a status answer of a failed payment (it need not name its
// order).
const failed = `{"status":false,"statusCode":200,"txnStatus":"FAIL","msg":"Transaction failed"}`

// TestTimeToFinalState: WaitForPayment's final status and the final state
// a reconcile sweeper delivers reach the time-to-final-state histogram
// through the client's Observer, by source and state; a state the metric
// does not know is "other".
func TestTimeToFinalState(t *testing.T) {
	e := newEnv(t)
	srv := newScripted(t, paid, 200)
	c := e.client(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	st, err := c.WaitForPayment(ctx, "ORD-1")
	require.NoError(t, err)
	require.True(t, st.Paid())

	sw, err := reconcile.New(e.client(t, newScripted(t, failed, 200)), reconcile.NewMemoryStore(),
		func(context.Context, reconcile.Event) error { return nil })
	require.NoError(t, err)
	require.NoError(t, sw.Track(ctx, reconcile.Order{ID: "ORD-2", Amount: 200, Created: time.Now().Add(-time.Minute)}))
	state, err := sw.Confirm(ctx, "ORD-2")
	require.NoError(t, err)
	require.Equal(t, reconcile.Failed, state.State)

	e.obs.FinalState(ctx, upicollect.FinalState{Source: "reconcile", OrderID: "ORD-3", Status: "WEIRD", Elapsed: time.Minute})
	assert.Equal(t, map[string]int64{
		"upicollect.source=WaitForPayment,upicollect.txn_status=SUCCESS":                  1,
		"upicollect.result=failed,upicollect.source=reconcile,upicollect.txn_status=FAIL": 1,
		"upicollect.source=reconcile,upicollect.txn_status=other":                         1,
	}, e.points(t, "upicollect.payment.time_to_final_state"))
}

// TestNothingSecretRecorded: no span attribute, event or status, and no
// metric attribute, holds the secret key, the Authorization header or the
// customer's e-mail or mobile, even when the service's answers echo them.
func TestNothingSecretRecorded(t *testing.T) {
	e := newEnv(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(400)
		_ = r.ParseForm()
		fmt.Fprintf(w, `{"status":false,"statusCode":400,"msg":"bad %s %s %s"}`,
			r.Header.Get("Authorization"), r.PostForm.Get("customer_email"), r.PostForm.Get("customer_mobile"))
	}))
	t.Cleanup(srv.Close)
	c := e.client(t, &scripted{Server: srv})
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	_, err := c.CreatePaymentLink(ctx, &upicollect.LinkParams{Amount: upicollect.Rupees(10), Note: "n",
		Customer: upicollect.Customer{Name: "Ravi", Email: "ravi@example.com", Mobile: "9876543210"}})
	require.Error(t, err)
	var dump strings.Builder
	for _, s := range e.spans.Ended() {
		fmt.Fprintf(&dump, "%s %v %v %v\n", s.Name(), s.Attributes(), s.Events(), s.Status())
	}
	var rm metricdata.ResourceMetrics
	require.NoError(t, e.reader.Collect(ctx, &rm))
	fmt.Fprintf(&dump, "%+v", rm)
	require.Contains(t, dump.String(), "createPaymentLink")
	for _, s := range []string{creds.SecretKey, "ravi@example.com", "9876543210", "Basic "} {
		assert.NotContains(t, dump.String(), s)
	}
}
