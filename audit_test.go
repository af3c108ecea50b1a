package upicollect_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
)

// echoCreds have a secret whose base64 pair holds a '/', which JSON may
// escape as "\/".
var echoCreds = upicollect.Credentials{MID: "MID-ECHO", PublicKey: "pub-echo", SecretKey: "sk_live_????"}

// TestEchoedCredentialsScrubbed: a service or proxy that echoes the
// Authorization header, its base64 pair, the secret or public:secret gets
// none of them into the error, its message or any log record.
func TestEchoedCredentialsScrubbed(t *testing.T) {
	t.Parallel()
	header := basicAuth(echoCreds.PublicKey, echoCreds.SecretKey)
	pair := strings.TrimPrefix(header, "Basic ")
	require.Contains(t, pair, "/", "the test needs a pair that JSON escapes")
	forbidden := []string{header, pair, echoCreds.SecretKey, strings.ReplaceAll(pair, "/", `\/`)}

	echoes := map[string]func(r *http.Request) string{
		"header":        func(r *http.Request) string { return r.Header.Get("Authorization") },
		"pair":          func(r *http.Request) string { return strings.TrimPrefix(r.Header.Get("Authorization"), "Basic ") },
		"secret":        func(*http.Request) string { return echoCreds.SecretKey },
		"public:secret": func(*http.Request) string { return echoCreds.PublicKey + ":" + echoCreds.SecretKey },
	}
	// Where the echo sits: the error's message, the missing-auth message,
	// an unreadable body's snippet, the data of an accepted answer.
	shapes := map[string]struct {
		status int
		body   func(echo string) string
		op     string
	}{
		"msg": {400, func(e string) string {
			return fmt.Sprintf(`{"status":false,"statusCode":400,"msg":"bad header %s"}`, e)
		}, opStatus},
		"message":      {401, func(e string) string { return fmt.Sprintf(`{"status":false,"message":"got %s"}`, e) }, opIntent},
		"HTML snippet": {502, func(e string) string { return "<html>" + e + "</html>" }, opStatus},
		"escaped in JSON": {400, func(e string) string {
			return `{"status":false,"statusCode":400,"msg":"` + strings.ReplaceAll(e, "/", `\/`) + `"}`
		}, opLink},
		"unreadable data": {200, func(e string) string {
			return `{"status":true,"statusCode":200,"msg":"` + e + `","data":{"payment_link":"` + e + `"}}`
		}, opLink},
	}
	for en, echo := range echoes {
		for sn, shape := range shapes {
			t.Run(en+"/"+sn, func(t *testing.T) {
				t.Parallel()
				srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
					respond(w, shape.status, []byte(shape.body(echo(r))))
				})
				var logs syncBuffer
				c, err := upicollect.NewClient(echoCreds, upicollect.WithBaseURL(srv.BaseURL()),
					upicollect.WithClock(newFakeClock()), upicollect.WithRand(fixedRand),
					upicollect.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
				require.NoError(t, err)
				_, _, err = callOp(context.Background(), c, shape.op, "")
				require.Error(t, err)
				var ae *upicollect.APIError
				require.ErrorAs(t, err, &ae)
				require.NotEmpty(t, ae.Response.Body, "the raw body is kept")
				for _, s := range forbidden {
					assert.NotContains(t, err.Error(), s)
					assert.NotContains(t, ae.Message, s)
					assert.NotContains(t, logs.String(), s)
				}
				assert.Contains(t, logs.String(), "upicollect: call failed", "the give-up record was checked")
			})
		}
	}
}

// TestStatusAnswersThatAreNotPaid: answers that must never read as paid, or
// as PENDING.
func TestStatusAnswersThatAreNotPaid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		http     int
		body     string
		is       []error
		attempts int
		pending  bool
	}{
		{"another order's SUCCESS", 200, `{"status":true,"statusCode":200,"txnStatus":"SUCCESS","data":{"order_id":"ORD-OTHER","amount":499,"UTR":"1"}}`,
			[]error{upicollect.ErrUnexpectedResponse}, 1, false},
		{"another order, numeric id", 200, `{"status":true,"txnStatus":"SUCCESS","data":{"order_id":3002,"amount":499}}`,
			[]error{upicollect.ErrUnexpectedResponse}, 1, false},
		{"SUCCESS with amount 0", 200, `{"status":true,"txnStatus":"SUCCESS","data":{"order_id":"ORD-3001","amount":0,"UTR":"1"}}`,
			[]error{upicollect.ErrUnexpectedResponse}, 1, false},
		{"SUCCESS with a negative amount", 200, `{"status":true,"txnStatus":"SUCCESS","data":{"amount":"-1.00"}}`,
			[]error{upicollect.ErrUnexpectedResponse}, 1, false},
		{"SUCCESS without amount", 200, `{"status":true,"txnStatus":"SUCCESS","msg":"ok"}`,
			[]error{upicollect.ErrUnexpectedResponse}, 1, false},
		{"paid by data, amount 0", 200, `{"status":true,"data":{"UTR":"412345678902","amount":0}}`,
			[]error{upicollect.ErrUnexpectedResponse}, 1, false},
		{"refusal with no code and no state", 200, `{"status":false,"msg":"Invalid mid"}`,
			[]error{upicollect.ErrInvalidRequest}, 1, false},
		{"HTTP 500 with body statusCode 200", 500, `{"status":false,"statusCode":200,"msg":"Transaction not found"}`,
			[]error{upicollect.ErrServer}, 3, false},
		{"HTTP 500 with statusCode 200 and PENDING", 500, `{"status":false,"statusCode":200,"txnStatus":"PENDING"}`,
			[]error{upicollect.ErrServer}, 3, false},
		{"HTTP 404 that is not the envelope", 404, `<html>Not Found</html>`,
			[]error{upicollect.ErrUnexpectedResponse, upicollect.ErrNotFound}, 1, false},
		{"document's not found", 200, `{"status":false,"statusCode":200,"txnStatus":"PENDING","msg":"Transaction not found"}`, nil, 1, true},
		{"live not found", 200, `{"status":false,"statusCode":404,"msg":"Transaction not found"}`, nil, 1, true},
		{"live not found in a 404", 404, `{"status":false,"statusCode":404,"msg":"Transaction not found"}`, nil, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, always(tt.http, []byte(tt.body)))
			c, _ := newClient(t, srv.BaseURL())
			st, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
			assert.Equal(t, tt.attempts, srv.Count())
			if tt.pending {
				require.NoError(t, err)
				assert.Equal(t, upicollect.TxnPending, st.TxnStatus)
				assert.False(t, st.Paid())
				return
			}
			assert.Nil(t, st)
			assertSentinels(t, err, tt.is...)
			var ae *upicollect.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, testStatusOrder, ae.OrderID)
			assert.Equal(t, opStatus, ae.Op)
			assert.Equal(t, 1, strings.Count(err.Error(), "upicollect: "), "one prefix: %s", err)
		})
	}
}

// TestMessageCappedAndEscaped: the service's message is cut at 512 bytes
// on a rune boundary and its control characters cannot forge log lines;
// the raw body stays in the Response.
func TestMessageCappedAndEscaped(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 511) + "é" + strings.Repeat("b", 100<<10) // é straddles byte 512
	tests := []struct {
		name, msg, wantMsg string
		wantInError        string
	}{
		{"long", long, strings.Repeat("a", 511), strings.Repeat("a", 511)},
		{"at the cap", strings.Repeat("c", 512), strings.Repeat("c", 512), strings.Repeat("c", 512)},
		{"control characters", "bad\r\nlevel=ERROR msg=forged\x1b[31m\x00\u0085", "bad\r\nlevel=ERROR msg=forged\x1b[31m\x00\u0085",
			`bad\r\nlevel=ERROR msg=forged\x1b[31m\x00\u0085`},
		{"printable text unchanged", "Ordre refusé: €5 ≠ ₹5", "Ordre refusé: €5 ≠ ₹5", "Ordre refusé: €5 ≠ ₹5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msg, err := json.Marshal(tt.msg)
			require.NoError(t, err)
			body := `{"status":false,"statusCode":400,"msg":` + string(msg) + `}`
			srv := newTestServer(t, always(400, []byte(body)))
			c, _ := newClient(t, srv.BaseURL())
			_, err = c.CheckPaymentStatus(context.Background(), testStatusOrder)
			var ae *upicollect.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tt.wantMsg, ae.Message)
			assert.LessOrEqual(t, len(ae.Message), 512)
			assert.True(t, utf8.ValidString(ae.Message))
			assert.Contains(t, err.Error(), tt.wantInError)
			assert.NotContains(t, err.Error(), "\r")
			assert.NotContains(t, err.Error(), "\n")
			assert.NotContains(t, err.Error(), "\x1b")
			assert.NotContains(t, err.Error(), "\x00")
			assert.Less(t, len(err.Error()), 700)
			assert.True(t, string(ae.Response.Body) == body, "the raw body is kept")
		})
	}
}

// TestSnippetBoundary: an unreadable body is quoted up to 120 bytes, cut on
// a rune boundary, with an ellipsis only when something was cut.
func TestSnippetBoundary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, want string
	}{
		{"119", strings.Repeat("x", 119), `body "` + strings.Repeat("x", 119) + `"` + ": "},
		{"120", strings.Repeat("x", 120), `body "` + strings.Repeat("x", 120) + `"`},
		{"121", strings.Repeat("x", 121), `body "` + strings.Repeat("x", 120) + `"…`},
		{"rune across 120", strings.Repeat("x", 119) + "é", `body "` + strings.Repeat("x", 119) + `"…`},
		{"empty", "", "empty body"},
	}
	for _, tt := range tests {
		srv := newTestServer(t, always(200, []byte(tt.body)))
		c, _ := newClient(t, srv.BaseURL())
		_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
		require.Error(t, err, tt.name)
		msg := err.Error()
		if tt.name == "120" {
			assert.True(t, strings.HasSuffix(msg, tt.want), "%s: %s", tt.name, msg)
			continue
		}
		assert.Contains(t, msg+": ", tt.want, tt.name)
		if tt.name == "119" {
			assert.NotContains(t, msg, "…")
		}
	}
}

// TestResultLinksChecked: a hosted page must be an http(s) URL, an app
// link upi: or an app's scheme; a create answered otherwise may still have
// made the order.
func TestResultLinksChecked(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, op, data string
	}{
		{"javascript payment_link", opLink, `{"payment_link":"javascript:alert(1)"}`},
		{"relative payment_link", opLink, `{"payment_link":"/pay/1"}`},
		{"data payment_url", opRequest, `{"orderId":"ORD-L","payment_url":"data:text/html,<script>x</script>"}`},
		{"file payment_url", opRequest, `{"orderId":"ORD-L","payment_url":"file:///etc/passwd"}`},
		{"javascript intent", opIntent, `{"intent":"javascript:alert(1)","orderId":"ORD-L"}`},
		{"javascript app link", opIntent, `{"intent":"upi://pay?pa=a@b","phonepe":"javascript:alert(1)","orderId":"ORD-L"}`},
		{"vbscript app link", opIntent, `{"intent":"upi://pay?pa=a@b","gpay":"vbscript:x","orderId":"ORD-L"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, always(200, []byte(`{"status":true,"statusCode":200,"msg":"ok","data":`+tt.data+`}`)))
			c, _ := newClient(t, srv.BaseURL())
			res, _, err := callOp(context.Background(), c, tt.op, "ORD-L")
			assert.Nil(t, res)
			assertSentinels(t, err, upicollect.ErrUnexpectedResponse, upicollect.ErrOutcomeUnknown)
			assert.Equal(t, 1, srv.Count())
		})
	}
}

// traceKey is the context key of TestLogsCarryCallersContext's trace id.
type traceKey struct{}

// ctxHandler records the trace id of the context of every record.
type ctxHandler struct {
	mu     sync.Mutex
	traces map[string][]string // message -> trace ids
}

func (h *ctxHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *ctxHandler) Handle(ctx context.Context, r slog.Record) error {
	id, _ := ctx.Value(traceKey{}).(string)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.traces[r.Message] = append(h.traces[r.Message], id)
	return nil
}
func (h *ctxHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *ctxHandler) WithGroup(string) slog.Handler      { return h }

// TestLogsCarryCallersContext: every record of a call is logged with the
// caller's context, so that a context-aware handler keeps its trace id.
func TestLogsCarryCallersContext(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		h    handlerFunc
		msgs []string
	}{
		{"retried then failed", script(t, 503), []string{"upicollect: attempt", "upicollect: retrying", "upicollect: call failed"}},
		{"unreadable data", always(200, []byte(`{"status":true,"data":{"amount":"x"}}`)), []string{"upicollect: attempt", "upicollect: call failed"}},
	} {
		h := &ctxHandler{traces: map[string][]string{}}
		srv := newTestServer(t, tt.h)
		c, _ := newClient(t, srv.BaseURL(), upicollect.WithLogger(slog.New(h)))
		ctx := context.WithValue(context.Background(), traceKey{}, "trace-42")
		_, err := c.CheckPaymentStatus(ctx, testStatusOrder)
		require.Error(t, err)
		h.mu.Lock()
		for _, m := range tt.msgs {
			require.NotEmpty(t, h.traces[m], "%s: %s logged", tt.name, m)
			for _, id := range h.traces[m] {
				assert.Equal(t, "trace-42", id, "%s: %s", tt.name, m)
			}
		}
		h.mu.Unlock()
	}
}

// TestRetryBudgetRefilledByFirstTrySuccess: successes that needed no retry
// put tokens back, so a drained budget allows retries again.
func TestRetryBudgetRefilledByFirstTrySuccess(t *testing.T) {
	t.Parallel()
	fail := true
	var mu sync.Mutex
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		mu.Lock()
		f := fail
		mu.Unlock()
		if f {
			respond(w, 500, failBody(t, 500))
			return
		}
		bySuccess(t)(w, r, n)
	})
	c, _ := newClient(t, srv.BaseURL(), attempts(2), upicollect.WithRetryBudget(5))
	_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
	require.ErrorIs(t, err, upicollect.ErrServer)
	require.Equal(t, 2, srv.Count(), "the one retry took the whole budget")
	_, err = c.CheckPaymentStatus(context.Background(), testStatusOrder)
	var ae *upicollect.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, upicollect.ReasonBudgetExhausted, ae.Reason)
	assert.Contains(t, err.Error(), "(retry budget exhausted)")
	require.Equal(t, 3, srv.Count(), "an empty budget allows no retry")

	mu.Lock()
	fail = false
	mu.Unlock()
	for i := 0; i < 4; i++ {
		_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
		require.NoError(t, err)
	}
	mu.Lock()
	fail = true
	mu.Unlock()
	_, err = c.CheckPaymentStatus(context.Background(), testStatusOrder)
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, upicollect.ReasonBudgetExhausted, ae.Reason, "four successes refill four tokens, short of a retry")
	assert.Equal(t, 8, srv.Count())

	mu.Lock()
	fail = false
	mu.Unlock()
	_, err = c.CheckPaymentStatus(context.Background(), testStatusOrder) // the fifth token
	require.NoError(t, err)
	mu.Lock()
	fail = true
	mu.Unlock()
	_, err = c.CheckPaymentStatus(context.Background(), testStatusOrder)
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, upicollect.ReasonAttemptsExhausted, ae.Reason, "five tokens buy a retry")
	assert.Equal(t, 11, srv.Count())
}

// TestTimedOutAttemptCostsMore: a retry after a per-attempt timeout spends
// the timeout cost (10 tokens), whether the answer's headers or its body
// were late, and the log says why.
func TestTimedOutAttemptCostsMore(t *testing.T) {
	t.Parallel()
	for name, h := range map[string]handlerFunc{
		"headers late": func(_ http.ResponseWriter, r *http.Request, _ int) { block(r) },
		"body late": func(w http.ResponseWriter, r *http.Request, _ int) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"status":`))
			w.(http.Flusher).Flush()
			block(r)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, h)
			var logs syncBuffer
			c, _ := newClient(t, srv.BaseURL(), upicollect.WithTimeout(200*time.Millisecond), attempts(3),
				upicollect.WithRetryBudget(10), upicollect.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
			_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
			var ae *upicollect.APIError
			require.ErrorAs(t, err, &ae)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Equal(t, upicollect.ReasonBudgetExhausted, ae.Reason, "one timeout retry empties a budget of 10")
			assert.Equal(t, 2, srv.Count())
			assert.Contains(t, logs.String(), `"reason":"attempt timed out"`)
		})
	}
}

// TestGiveUpLogCountsAttempts: the give-up record of a call whose context
// ended counts the attempts really made, whether the context ended before
// the first attempt or during a rate-limit wait.
func TestGiveUpLogCountsAttempts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts []upicollect.Option
		// before is how many calls go out first, each one attempt.
		before int
		ctx    func() (context.Context, context.CancelFunc)
		want   error
	}{
		{name: "context ended before the call",
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx, cancel
			}, want: context.Canceled},
		// One call an hour: the next slot lies far past the deadline however
		// slow the machine, so the limiter gives up at once.
		{name: "rate-limit slot after the deadline", opts: []upicollect.Option{upicollect.WithRateLimit(1.0/3600, 1)}, before: 1,
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 100*time.Millisecond)
			}, want: context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, script(t, 503))
			var logs syncBuffer
			c, _ := newClient(t, srv.BaseURL(), append([]upicollect.Option{noRetry(),
				upicollect.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil)))}, tt.opts...)...)
			for range tt.before {
				_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
				require.Error(t, err)
			}
			ctx, cancel := tt.ctx()
			defer cancel()
			_, err := c.CheckPaymentStatus(ctx, testStatusOrder)
			assert.ErrorIs(t, err, tt.want)
			assert.Equal(t, tt.before, srv.Count())
			assert.Contains(t, logs.String(), `"attempts":0,"reason":"context done"`)
		})
	}
}

// TestRedirect300NamesLocation: every 3xx, 300 included, names where it
// pointed, so that a wrong base URL is easy to see.
func TestRedirect300NamesLocation(t *testing.T) {
	t.Parallel()
	for _, code := range []int{300, 399} {
		srv := newTestServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
			w.Header().Set("Location", "https://elsewhere.example/v1")
			w.WriteHeader(code)
			_, _ = w.Write([]byte("moved elsewhere"))
		})
		c, _ := newClient(t, srv.BaseURL())
		_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
		assertSentinels(t, err, upicollect.ErrUnexpectedResponse)
		assert.Contains(t, err.Error(), `redirect to host "elsewhere.example" not followed`, code)
		assert.NotContains(t, err.Error(), "moved elsewhere", "a redirect's body is not quoted")
	}
}
