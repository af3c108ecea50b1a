package upicollect_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/internal/clock"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/decoded")

// The test credentials. The API is mounted under apiPrefix so that a client
// that builds absolute paths ("/v1/...") instead of joining them to the base
// URL hits the stray handler and fails the test.
const (
	testMID    = "MID123"
	testPublic = "pub"
	testSecret = "secret"
	apiPrefix  = "/api/prefix"
)

var testCreds = upicollect.Credentials{MID: testMID, PublicKey: testPublic, SecretKey: testSecret}

const (
	opIntent  = "createPaymentIntent"
	opRequest = "createPaymentRequest"
	opLink    = "createPaymentLink"
	opStatus  = "checkPaymentStatus"
)

var allOps = []string{opIntent, opRequest, opLink, opStatus}

// basicAuth is the Authorization value the service expects for pub:sec.
func basicAuth(pub, sec string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(pub+":"+sec))
}

// recorded is one request as the test server saw it.
type recorded struct {
	Method   string
	Path     string
	RawQuery string
	Header   http.Header
	Body     []byte
	Form     url.Values // the body parsed with url.ParseQuery
	FormErr  error
}

// handlerFunc answers the n-th request (1-based) the server received.
type handlerFunc func(w http.ResponseWriter, r *http.Request, n int)

// testServer is a loopback HTTP server with the API under apiPrefix. It
// records every request under the prefix and counts the stray ones outside
// it, which fail the test at cleanup.
type testServer struct {
	*httptest.Server
	mu    sync.Mutex
	reqs  []recorded
	stray atomic.Int64
	done  chan struct{} // closed when the test ends, to free blocked handlers
}

func newTestServer(t testing.TB, h handlerFunc) *testServer {
	t.Helper()
	ts := &testServer{done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc(apiPrefix+"/", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec := recorded{
			Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery,
			Header: r.Header.Clone(), Body: body,
		}
		rec.Form, rec.FormErr = url.ParseQuery(string(body))
		ts.mu.Lock()
		ts.reqs = append(ts.reqs, rec)
		n := len(ts.reqs)
		ts.mu.Unlock()
		h(w, r.WithContext(context.WithValue(r.Context(), serverKey{}, ts)), n)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		ts.stray.Add(1)
		http.Error(w, "outside the API prefix", http.StatusTeapot)
	})
	ts.Server = httptest.NewServer(mux)
	t.Cleanup(func() {
		close(ts.done)
		ts.Server.Close()
		if n := ts.stray.Load(); n != 0 {
			t.Errorf("%d request(s) reached the server outside %s", n, apiPrefix)
		}
	})
	return ts
}

type serverKey struct{}

// block holds a handler until the client gives up on the request (its
// context ends and the connection closes) or the test ends. It reports
// whether the client gave up.
func block(r *http.Request) bool {
	ts := r.Context().Value(serverKey{}).(*testServer)
	select {
	case <-r.Context().Done():
		return true
	case <-ts.done:
		return false
	}
}

// BaseURL is the base URL a client should be given: below the prefix.
func (ts *testServer) BaseURL() string { return ts.URL + apiPrefix }

// Count returns how many requests reached the API.
func (ts *testServer) Count() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return len(ts.reqs)
}

// Requests returns a copy of what the server received, in order.
func (ts *testServer) Requests() []recorded {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]recorded(nil), ts.reqs...)
}

// Last returns the last request received; it fails the test if none was.
func (ts *testServer) Last(t testing.TB) recorded {
	t.Helper()
	reqs := ts.Requests()
	require.NotEmpty(t, reqs, "no request reached the server")
	return reqs[len(reqs)-1]
}

// waitBound bounds every wait of a test for another goroutine or a server
// (select with time.After), so that a regression fails instead of hanging.
// It is never a measurement: only a limit far above any normal wait.
const waitBound = 10 * time.Second

// verifyNoLeaks fails t if goroutines it started are still running at its
// cleanup (goleak retries for a while first, so goroutines on their way out
// are not reported). Call it first in a test that does not run in parallel
// with others, so that its cleanup runs after every other one.
func verifyNoLeaks(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// fixedRand is the jitter source of test clients: backoff delays are then
// exactly half their ceiling.
func fixedRand() float64 { return 0.5 }

// newClient returns a client of baseURL with the test credentials, a fake
// clock (so backoff and polling take no wall time) and fixed jitter. The
// options given come last and win.
func newClient(t testing.TB, baseURL string, opts ...upicollect.Option) (*upicollect.Client, *clock.Fake) {
	t.Helper()
	clk := newFakeClock()
	all := append([]upicollect.Option{
		upicollect.WithBaseURL(baseURL),
		upicollect.WithClock(clk),
		upicollect.WithRand(fixedRand),
	}, opts...)
	c, err := upicollect.NewClient(testCreds, all...)
	require.NoError(t, err)
	return c, clk
}

// newFakeClock returns a fake clock at the wall time: contexts with real
// deadlines compare sensibly with it.
func newFakeClock() *clock.Fake { return clock.NewFake(time.Now()) }

// noRetry makes every call a single attempt.
func noRetry() upicollect.Option {
	return upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1})
}

// attempts sets the number of attempts and keeps the other defaults.
func attempts(n int) upicollect.Option {
	return upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: n})
}

// loadResponse reads a golden answer from testdata/responses. It reports a
// missing file with Errorf, not FailNow, because handlers call it from the
// server's goroutines.
func loadResponse(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "responses", name))
	if err != nil {
		t.Errorf("loading a golden answer: %v", err)
	}
	return b
}

// respond writes body with status and a JSON content type.
func respond(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// always answers every request with status and body.
func always(status int, body []byte) handlerFunc {
	return func(w http.ResponseWriter, _ *http.Request, _ int) { respond(w, status, body) }
}

// successBody is a success answer of op, shaped as the interface document
// shows it. The status answer names no order, so that it answers a check
// of any order id (an answer naming another order is refused).
func successBody(t testing.TB, op string) []byte {
	t.Helper()
	switch op {
	case opIntent:
		return loadResponse(t, "intent_success.json")
	case opRequest:
		return loadResponse(t, "request_success.json")
	case opLink:
		return loadResponse(t, "link_success.json")
	case opStatus:
		return loadResponse(t, "status_success_no_order.json")
	}
	t.Errorf("no success answer for operation %q", op) // from a handler: no FailNow
	return []byte(`{"status":false,"statusCode":404,"msg":"no such operation in the test server"}`)
}

// bySuccess answers every request with the success shape of the operation
// named in its path; an intent's answer carries the amount and order id
// the request asked for, and a payment request's its order id, as the
// service's do (a create refuses an answer for another payment).
func bySuccess(t testing.TB) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, n int) {
		op := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
		body := successBody(t, op)
		if ts, ok := r.Context().Value(serverKey{}).(*testServer); ok {
			switch op {
			case opIntent:
				body = echoIntent(body, ts.form(n))
			case opRequest:
				body = echoRequestOrder(body, ts.form(n))
			}
		}
		respond(w, http.StatusOK, body)
	}
}

// echoIntent rewrites the golden intent answer (₹499, ORD-1001) for the
// amount and order id of form.
func echoIntent(body []byte, form url.Values) []byte {
	s := string(body)
	if a := form.Get("amount"); a != "" {
		s = strings.ReplaceAll(s, "am=499.00", "am="+a+".00")
		s = strings.ReplaceAll(s, `"amount": "499"`, `"amount": "`+a+`"`)
	}
	if id := form.Get("order_id"); id != "" {
		s = strings.ReplaceAll(s, "tr=ORD-1001", "tr="+url.QueryEscape(id))
		j, _ := json.Marshal(id)
		s = strings.ReplaceAll(s, `"orderId": "ORD-1001"`, `"orderId": `+string(j))
	}
	return []byte(s)
}

// echoRequestOrder rewrites the golden payment request answer (ORD-2001)
// for the order id of form: a create refuses an answer naming another
// order.
func echoRequestOrder(body []byte, form url.Values) []byte {
	id := form.Get("order_id")
	if id == "" {
		return body
	}
	j, _ := json.Marshal(id)
	return []byte(strings.ReplaceAll(string(body), `"orderId": "ORD-2001"`, `"orderId": `+string(j)))
}

// form is the body of the n-th request, parsed.
func (ts *testServer) form(n int) url.Values {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if n < 1 || n > len(ts.reqs) {
		return nil
	}
	return ts.reqs[n-1].Form
}

// syncBuffer is a log sink safe for the concurrent writes of a logger.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// closedAddr returns a loopback address nothing listens on: connecting to it
// is refused.
func closedAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// resetConn hijacks the request's connection and closes it with a TCP reset,
// so that the client sees the connection die after its request went out.
func resetConn(t testing.TB, w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		t.Errorf("response writer cannot hijack")
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// Default parameters: valid for every operation.
const (
	testAmountRupees = 499
	testOrderID      = "ORD-1001"
	testStatusOrder  = "ORD-3001"
	testRedirect     = "https://shop.example.com/return?cart=42"
	testVPA          = "ravi.kumar@oksbi"
	testNote         = "Order #1001"
	testName         = "Ravi Kumar"
	testEmail        = "ravi.kumar@example.com"
	testMobile       = "+91 98765-43210"
	testMobileSent   = "9876543210"
)

// createInput holds every create parameter; each operation takes the ones
// it accepts.
type createInput struct {
	Amount      upicollect.Money
	OrderID     string
	RedirectURL string
	VPA         string
	Note        string
	Customer    upicollect.Customer
}

func validInput() createInput {
	return createInput{
		Amount:      upicollect.Rupees(testAmountRupees),
		OrderID:     testOrderID,
		RedirectURL: testRedirect,
		VPA:         testVPA,
		Note:        testNote,
		Customer:    upicollect.Customer{Name: testName, Email: testEmail, Mobile: testMobile},
	}
}

func (in createInput) intent() *upicollect.IntentParams {
	return &upicollect.IntentParams{Amount: in.Amount, OrderID: in.OrderID, RedirectURL: in.RedirectURL, Note: in.Note, Customer: in.Customer}
}

func (in createInput) request() *upicollect.RequestParams {
	return &upicollect.RequestParams{Amount: in.Amount, OrderID: in.OrderID, VPA: in.VPA, Note: in.Note, Customer: in.Customer}
}

func (in createInput) link() *upicollect.LinkParams {
	return &upicollect.LinkParams{Amount: in.Amount, Note: in.Note, Customer: in.Customer}
}

// call runs op with the input; for the status check, OrderID is the order
// to look up (testStatusOrder when empty). It returns the result, its
// Response and the error.
func (in createInput) call(ctx context.Context, c *upicollect.Client, op string) (any, *upicollect.Response, error) {
	switch op {
	case opIntent:
		r, err := c.CreatePaymentIntent(ctx, in.intent())
		if r == nil {
			return nil, nil, err
		}
		return r, r.Response, err
	case opRequest:
		r, err := c.CreatePaymentRequest(ctx, in.request())
		if r == nil {
			return nil, nil, err
		}
		return r, r.Response, err
	case opLink:
		r, err := c.CreatePaymentLink(ctx, in.link())
		if r == nil {
			return nil, nil, err
		}
		return r, r.Response, err
	case opStatus:
		id := in.OrderID
		if id == "" {
			id = testStatusOrder
		}
		r, err := c.CheckPaymentStatus(ctx, id)
		if r == nil {
			return nil, nil, err
		}
		return r, r.Response, err
	}
	panic("unknown op " + op)
}

// callOp runs op with valid parameters and the given order id (ignored by
// createPaymentLink).
func callOp(ctx context.Context, c *upicollect.Client, op, orderID string) (any, *upicollect.Response, error) {
	in := validInput()
	in.OrderID = orderID
	return in.call(ctx, c, op)
}

// sentinels are every sentinel error of the package, by name.
var sentinels = []struct {
	name string
	err  error
}{
	{"ErrValidation", upicollect.ErrValidation},
	{"ErrUnauthorized", upicollect.ErrUnauthorized},
	{"ErrDuplicateOrderID", upicollect.ErrDuplicateOrderID},
	{"ErrInvalidRequest", upicollect.ErrInvalidRequest},
	{"ErrNotFound", upicollect.ErrNotFound},
	{"ErrRateLimited", upicollect.ErrRateLimited},
	{"ErrServer", upicollect.ErrServer},
	{"ErrUnexpectedResponse", upicollect.ErrUnexpectedResponse},
	{"ErrOutcomeUnknown", upicollect.ErrOutcomeUnknown},
}

// assertSentinels checks that err matches exactly the sentinels in want and
// none of the others.
func assertSentinels(t testing.TB, err error, want ...error) {
	t.Helper()
	for _, s := range sentinels {
		should := false
		for _, w := range want {
			if w == s.err {
				should = true
			}
		}
		if got := errors.Is(err, s.err); got != should {
			t.Errorf("errors.Is(%q, %s) = %v, want %v", err, s.name, got, should)
		}
	}
}

// matchedSentinels names the sentinels err matches.
func matchedSentinels(err error) []string {
	names := []string{}
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			names = append(names, s.name)
		}
	}
	return names
}

// goldenJSON compares v, marshalled, with testdata/decoded/name.json, or
// rewrites the file under -update.
//
// replace holds old, new pairs applied to the encoding first, for values
// that differ on every run (an order id from NewOrderID).
func goldenJSON(t testing.TB, name string, v any, replace ...string) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(v))
	got := buf.Bytes()
	if len(replace) > 0 {
		got = []byte(strings.NewReplacer(replace...).Replace(string(got)))
	}
	path := filepath.Join("testdata", "decoded", name+".json")
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test -run %s -update", t.Name())
	require.JSONEq(t, string(want), string(got), "decoded %s differs from %s", name, path)
}
