package upicollect_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
)

// goldenLogCases are calls whose whole log TestLoggerOnlyLogsAsBefore
// compares with testdata/logs: every record the client writes (an attempt,
// a retry, a failed call, a dropped app link) and a wait's polls, which log
// only their calls' records. A case
// without a handler calls an address nothing listens on.
var goldenLogCases = []struct {
	name string
	h    func(t *testing.T) handlerFunc
	call func(ctx context.Context, c *upicollect.Client) error
}{
	{"status first try", func(t *testing.T) handlerFunc { return script(t, 200) }, checkStatus},
	{"status retried then failed", func(t *testing.T) handlerFunc { return script(t, 503) }, checkStatus},
	{"status 429 then paid", func(t *testing.T) handlerFunc { return script(t, 429, 200) }, checkStatus},
	{"intent refused", func(t *testing.T) handlerFunc { return script(t, 400) }, createIntent},
	{"intent unreadable data", func(t *testing.T) handlerFunc {
		return always(200, []byte(`{"status":true,"statusCode":200,"msg":"ok","data":{"amount":"x"}}`))
	}, createIntent},
	{"intent app links dropped", func(t *testing.T) handlerFunc {
		return always(200, intentAnswer(t, map[string]string{"phonepe": goodPhonePe, "cred": "credpay://upi/pay?am=499.00&tr=ORD-1001", "paytm": "paytmmp://pay?am=499.00&tr=ORD-1001"}))
	}, createIntent},
	{"do 500", func(t *testing.T) handlerFunc { return always(500, failBody(t, 500)) }, func(ctx context.Context, c *upicollect.Client) error {
		_, err := c.Do(ctx, "/v1/payments/refundStatus", url.Values{"order_id": {"ORD-7"}}, nil)
		return err
	}},
	{"status nothing listening", nil, checkStatus},
	{"canceled before any attempt", func(t *testing.T) handlerFunc { return script(t, 200) }, func(ctx context.Context, c *upicollect.Client) error {
		ctx, cancel := context.WithCancel(ctx)
		cancel()
		return checkStatus(ctx, c)
	}},
	{"wait polls past a failure", func(t *testing.T) handlerFunc { return script(t, 500, 500, 500, 200) }, func(ctx context.Context, c *upicollect.Client) error {
		_, err := c.WaitForPayment(ctx, testStatusOrder)
		return err
	}},
}

// handlerOf is h's handler, or nil for no server.
func handlerOf(t *testing.T, h func(*testing.T) handlerFunc) handlerFunc {
	if h == nil {
		return nil
	}
	return h(t)
}

func checkStatus(ctx context.Context, c *upicollect.Client) error {
	_, err := c.CheckPaymentStatus(ctx, testStatusOrder)
	return err
}

func createIntent(ctx context.Context, c *upicollect.Client) error {
	_, err := c.CreatePaymentIntent(ctx, validInput().intent())
	return err
}

// baseOf is the base URL of a server with h, or of an address nothing
// listens on when h is nil.
func baseOf(t *testing.T, h handlerFunc) string {
	if h == nil {
		return "http://" + closedAddr(t) + apiPrefix
	}
	return newTestServer(t, h).BaseURL()
}

// logOf runs call on a client of baseOf(h), logging at debug level
// through a JSON handler without times, and returns the log with the
// server's address written as ADDR.
func logOf(t *testing.T, h handlerFunc, call func(context.Context, *upicollect.Client) error, opts ...upicollect.Option) string {
	t.Helper()
	base := baseOf(t, h)
	var logs syncBuffer
	handler := slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}})
	c, _ := newClient(t, base, append([]upicollect.Option{upicollect.WithLogger(slog.New(handler))}, opts...)...)
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	_ = call(ctx, c)
	u, err := url.Parse(base)
	require.NoError(t, err)
	return strings.ReplaceAll(logs.String(), u.Host, "ADDR")
}

// TestLoggerOnlyLogsAsBefore: a client given only WithLogger writes the
// same records as the SDK did before its log became an Observer: the same
// messages, levels, fields and masking, in the same order
// (testdata/logs/*.jsonl were written by the client of 0.3.0; -update
// rewrites them). One record is gone on purpose: WaitForPayment's own
// "poll failed, polling on" warning, which repeated the failed call's
// record from outside the Observer.
func TestLoggerOnlyLogsAsBefore(t *testing.T) {
	t.Parallel()
	for _, tt := range goldenLogCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := logOf(t, handlerOf(t, tt.h), tt.call)
			file := filepath.Join("testdata", "logs", strings.ReplaceAll(tt.name, " ", "_")+".jsonl")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
				require.NoError(t, os.WriteFile(file, []byte(got), 0o644))
			}
			want, err := os.ReadFile(file)
			require.NoError(t, err)
			assert.Equal(t, string(want), got)
		})
	}
}

// TestLoggerAndObserverBothObserve: a client given WithLogger and
// WithObserver logs exactly what the logger alone logs, and the observer
// sees each call and attempt once, without the log's detail.
func TestLoggerAndObserverBothObserve(t *testing.T) {
	t.Parallel()
	for _, tt := range goldenLogCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			alone := logOf(t, handlerOf(t, tt.h), tt.call)
			obs := &recordingObserver{}
			both := logOf(t, handlerOf(t, tt.h), tt.call, upicollect.WithObserver(obs))
			assert.Equal(t, alone, both, "the log with an observer beside it")

			starts, ends, attempts, attemptEnds := 0, 0, 0, 0
			for _, e := range obs.Events() {
				switch e.Kind {
				case "call":
					starts++
				case "call end":
					ends++
				case "attempt":
					attempts++
				case "attempt end":
					attemptEnds++
				}
			}
			assert.Equal(t, strings.Count(both, `"msg":"upicollect: attempt"`), attempts, "one StartAttempt per attempt logged")
			assert.Equal(t, attempts, attemptEnds)
			assert.Equal(t, starts, ends)
			assert.Positive(t, starts)
			assert.NotContains(t, fmt.Sprintf("%+v", obs.Events()), "/v1/", "no path reaches the observer")
		})
	}
}

// TestLoggerAndObserverOnePerAttempt: with both, each attempt has one
// debug record and one StartAttempt/EndAttempt pair, each retry one
// warning and one retry reason, the call one error record and one
// EndCall; the log's records carry the contexts the observer returned, so
// a context-aware handler sees the observer's spans.
func TestLoggerAndObserverOnePerAttempt(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, script(t, 503, 429, 500))
	h := &spanHandler{}
	obs := &recordingObserver{}
	c, _ := newClient(t, srv.BaseURL(), upicollect.WithLogger(slog.New(h)), upicollect.WithObserver(obs))
	_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
	require.ErrorIs(t, err, upicollect.ErrServer)
	assert.Equal(t, []string{"call", "attempt 1", "attempt end", "attempt 2", "attempt end", "attempt 3", "attempt end", "call end"}, kinds(obs.Events()))
	assert.Equal(t, []string{
		"upicollect: attempt call1/attempt1", "upicollect: retrying call1/attempt1",
		"upicollect: attempt call1/attempt2", "upicollect: retrying call1/attempt2",
		"upicollect: attempt call1/attempt3", "upicollect: call failed call1",
	}, h.got())
	var reasons []string
	for _, e := range obs.Events() {
		if e.Kind == "attempt end" {
			reasons = append(reasons, e.Attempt.RetryReason)
		}
	}
	assert.Equal(t, []string{"server error (503)", "rate limited (429)", ""}, reasons)
	assert.Equal(t, 3, srv.Count())
}

// spanHandler records each record's message and the span-like id of its
// context (see recordingObserver).
type spanHandler struct {
	mu   sync.Mutex
	recs []string
}

func (h *spanHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *spanHandler) Handle(ctx context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recs = append(h.recs, r.Message+" "+spanOf(ctx))
	return nil
}
func (h *spanHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *spanHandler) WithGroup(string) slog.Handler      { return h }
func (h *spanHandler) got() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.recs...)
}

// TestNoObserverNoLogger: a client given neither a logger nor an observer
// (its no-op observer) completes every kind of call, failure and wait
// without a panic, and a level that turns the debug records off leaves the
// others.
func TestNoObserverNoLogger(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	for _, tt := range goldenLogCases {
		for _, opts := range [][]upicollect.Option{nil, {upicollect.WithRateLimiter(freeLimiter{})}} {
			c, _ := newClient(t, baseOf(t, handlerOf(t, tt.h)), opts...)
			assert.NotPanics(t, func() { _ = tt.call(ctx, c) }, tt.name)
		}
	}

	var logs bytes.Buffer
	warn, _ := newClient(t, "http://"+closedAddr(t)+apiPrefix,
		upicollect.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	_, err := warn.CheckPaymentStatus(ctx, testStatusOrder)
	require.Error(t, err)
	assert.NotContains(t, logs.String(), "upicollect: attempt")
	assert.Equal(t, 2, strings.Count(logs.String(), "upicollect: retrying"), logs.String())
	assert.Equal(t, 1, strings.Count(logs.String(), "upicollect: call failed"), logs.String())
}

// TestDeprecatedObserveFinalState: the deprecated method still reaches
// the client's observer, with Source "reconcile" when f names none.
func TestDeprecatedObserveFinalState(t *testing.T) {
	t.Parallel()
	obs := &recordingObserver{}
	c, _ := newClient(t, "http://127.0.0.1:1", upicollect.WithObserver(obs))
	ctx := context.Background()
	c.ObserveFinalState(ctx, upicollect.FinalState{OrderID: "ORD-R", Status: upicollect.TxnFail, Result: "failed", Elapsed: time.Hour})
	c.ObserveFinalState(ctx, upicollect.FinalState{Source: "mine", OrderID: "ORD-M", Status: upicollect.TxnSuccess})
	var finals []upicollect.FinalState
	for _, e := range obs.Events() {
		finals = append(finals, e.Final)
	}
	assert.Equal(t, []upicollect.FinalState{
		{Source: "reconcile", OrderID: "ORD-R", Status: upicollect.TxnFail, Result: "failed", Elapsed: time.Hour},
		{Source: "mine", OrderID: "ORD-M", Status: upicollect.TxnSuccess},
	}, finals)
	assert.Panics(t, func() {
		new(upicollect.Client).ObserveFinalState(ctx, upicollect.FinalState{})
	})
}
