package webhook_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/webhook"
)

// paidEvent is an event as a sweeper hands it to its handler.
func paidEvent() reconcile.Event {
	return reconcile.NewEvent(reconcile.Order{ID: "order-1001", Amount: 49900, Created: t0}, reconcile.Paid,
		&upicollect.PaymentStatus{OrderID: "order-1001", TxnStatus: upicollect.TxnSuccess, Amount: 49900, UTR: "412345678901"},
		t0.Add(2*time.Minute+10*time.Second), "")
}

// captured is one request a test server received.
type captured struct {
	method, path, contentType, userAgent string
	signatures                           []string
	body                                 []byte
}

// answering is a server that records each request and answers with
// status and body.
func answering(t *testing.T, status int, body string) (*httptest.Server, func() []captured) {
	var mu sync.Mutex
	var got []captured
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, captured{r.Method, r.URL.Path, r.Header.Get("Content-Type"), r.Header.Get("User-Agent"),
			r.Header.Values(webhook.SignatureHeader), b})
		mu.Unlock()
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []captured {
		mu.Lock()
		defer mu.Unlock()
		return append([]captured(nil), got...)
	}
}

// TestSenderRequest: one POST of the event's Delivery as JSON, with its
// content type, the SDK's User-Agent and a signature dated by the clock
// that Receive accepts.
func TestSenderRequest(t *testing.T) {
	srv, got := answering(t, http.StatusOK, "ok")
	at := t0.Add(3 * time.Minute)
	send, err := webhook.Sender(srv.URL+"/hooks/upicollect?shop=7", secret,
		webhook.WithHTTPClient(srv.Client()), webhook.WithClock(func() time.Time { return at }))
	require.NoError(t, err)
	require.NoError(t, send(boundedCtx(t), paidEvent()))
	reqs := got()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, http.MethodPost, r.method)
	assert.Equal(t, "/hooks/upicollect", r.path)
	assert.Equal(t, "application/json", r.contentType)
	assert.Equal(t, "upicollect-go/"+upicollect.Version+" (webhook)", r.userAgent)
	want, err := json.Marshal(webhook.NewDelivery(paidEvent()))
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(r.body))
	assert.Equal(t, []string{webhook.Sign(at, r.body, secret)}, r.signatures)

	// Again: a second delivery of the same event, signed at its own time.
	at = at.Add(time.Minute)
	require.NoError(t, send(boundedCtx(t), paidEvent()))
	reqs = got()
	require.Len(t, reqs, 2)
	assert.Equal(t, reqs[0].body, reqs[1].body, "the same body, the same id")
	assert.Equal(t, []string{webhook.Sign(at, r.body, secret)}, reqs[1].signatures)
}

// TestSenderPreviousSecret: while a secret is replaced, each delivery
// carries a v1 for each, and a receiver holding either accepts it.
func TestSenderPreviousSecret(t *testing.T) {
	old := []byte("whsec_old_one")
	srv, got := answering(t, http.StatusNoContent, "")
	send, err := webhook.Sender(srv.URL, secret, webhook.WithHTTPClient(srv.Client()),
		webhook.WithClock(func() time.Time { return t0 }), webhook.WithPreviousSecret(old))
	require.NoError(t, err)
	require.NoError(t, send(boundedCtx(t), paidEvent()))
	r := got()[0]
	assert.Equal(t, []string{webhook.Sign(t0, r.body, secret, old)}, r.signatures)
	for _, s := range [][]byte{secret, old} {
		req, err := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(r.body))
		require.NoError(t, err)
		req.Header.Set(webhook.SignatureHeader, r.signatures[0])
		d, err := webhook.ReceiveAt(req, s, time.Minute, t0)
		require.NoError(t, err)
		assert.Equal(t, "order-1001", d.OrderID)
	}
}

// TestSenderStatuses: a 2xx answer is handled; every other one is an
// error that names the delivery and the status.
func TestSenderStatuses(t *testing.T) {
	for _, c := range []struct {
		status int
		ok     bool
	}{
		{200, true}, {201, true}, {204, true}, {299, true},
		{300, false}, {304, false}, {400, false}, {401, false}, {404, false}, {409, false},
		{500, false}, {502, false}, {503, false},
	} {
		srv, got := answering(t, c.status, "")
		send, err := webhook.Sender(srv.URL, secret, webhook.WithHTTPClient(srv.Client()))
		require.NoError(t, err)
		err = send(boundedCtx(t), paidEvent())
		if c.ok {
			assert.NoError(t, err, "%d", c.status)
		} else {
			require.Error(t, err, "%d", c.status)
			assert.Contains(t, err.Error(), "answered "+itoa(c.status))
			assert.Contains(t, err.Error(), webhook.DeliveryID("order-1001", reconcile.Paid))
		}
		assert.Len(t, got(), 1, "%d: one request, no retry inside the handler", c.status)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestSenderDoesNotFollowRedirects: a 3xx is a failed delivery; the place
// it points to is never asked.
func TestSenderDoesNotFollowRedirects(t *testing.T) {
	var moved atomic.Int32
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/new" {
				moved.Add(1)
				return
			}
			http.Redirect(w, r, "/new", code)
		}))
		// The caller's client follows redirects; the Sender's copy must not,
		// and the caller's client keeps its own policy.
		client := srv.Client()
		send, err := webhook.Sender(srv.URL+"/old", secret, webhook.WithHTTPClient(client))
		require.NoError(t, err)
		err = send(boundedCtx(t), paidEvent())
		assert.ErrorContains(t, err, "answered "+itoa(code))
		assert.Nil(t, client.CheckRedirect, "the caller's client is left as it was")
		srv.Close()
	}
	assert.Zero(t, moved.Load())
}

// TestSenderTimeout: a receiver that never answers costs one timeout,
// and the delivery fails with context.DeadlineExceeded.
func TestSenderTimeout(t *testing.T) {
	release := make(chan struct{})
	var entered atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // before Close, which waits for the handler
	send, err := webhook.Sender(srv.URL, secret, webhook.WithHTTPClient(srv.Client()), webhook.WithTimeout(50*time.Millisecond))
	require.NoError(t, err)
	ctx := boundedCtx(t)
	err = send(ctx, paidEvent())
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.NoError(t, ctx.Err(), "the delivery's own timeout ended it, not the caller's")
	assert.Equal(t, int32(1), entered.Load())
}

// TestSenderEndsWithItsContext: a caller's context that ends ends the
// delivery, whatever the timeout.
func TestSenderEndsWithItsContext(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	send, err := webhook.Sender(srv.URL, secret, webhook.WithHTTPClient(srv.Client()), webhook.WithTimeout(time.Hour))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(boundedCtx(t))
	done := make(chan error, 1)
	go func() { done <- send(ctx, paidEvent()) }()
	select {
	case <-entered:
	case <-boundedCtx(t).Done():
		t.Fatal("the delivery never arrived")
	}
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-boundedCtx(t).Done():
		t.Fatal("the delivery did not end with its context")
	}
}

// TestSenderRefusedConnection: no one listening is an error, as a
// failed delivery.
func TestSenderRefusedConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	send, err := webhook.Sender("http://"+addr+"/hook?token=q_s3cr3t", secret)
	require.NoError(t, err)
	err = send(boundedCtx(t), paidEvent())
	require.Error(t, err)
	var op *net.OpError
	assert.ErrorAs(t, err, &op)
	assert.Contains(t, err.Error(), "http://"+addr+"/hook")
	assert.NotContains(t, err.Error(), "q_s3cr3t", "the endpoint's query is not repeated")
}

// TestSenderReadsAnswerBounded: of a long answer, 4 KiB are read and 128
// bytes quoted in the error and the log, escaped.
func TestSenderReadsAnswerBounded(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer string
		quoted string
	}{
		{"short", "no such order", `"no such order"`},
		{"128 bytes", strings.Repeat("a", 128), `"` + strings.Repeat("a", 128) + `"`},
		{"129 bytes", strings.Repeat("a", 129), `"` + strings.Repeat("a", 128) + `"…`},
		{"control characters", "bad\x1b[31m\nthing\xff", `"bad\x1b[31m\nthing\xff"`},
		{"1 MiB", "HEAD" + strings.Repeat("z", 1<<20) + "TAIL", `"HEAD` + strings.Repeat("z", 124) + `"…`},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := answering(t, http.StatusBadGateway, c.answer)
			var read atomic.Int64
			client := srv.Client()
			client.Transport = countingTransport{client.Transport, &read}
			var logs bytes.Buffer
			send, err := webhook.Sender(srv.URL, secret, webhook.WithHTTPClient(client),
				webhook.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
			require.NoError(t, err)
			err = send(boundedCtx(t), paidEvent())
			require.Error(t, err)
			assert.True(t, strings.HasSuffix(err.Error(), "answered 502: "+c.quoted), err.Error())
			assert.LessOrEqual(t, read.Load(), int64(4096))
			assert.Equal(t, min(int64(len(c.answer)), 4096), read.Load())
			assert.NotContains(t, logs.String(), "TAIL")
			assert.NotContains(t, logs.String(), "\x1b")
			assert.Contains(t, logs.String(), "level=WARN")
		})
	}
}

// countingTransport counts the bytes read of each answer's body.
type countingTransport struct {
	rt   http.RoundTripper
	read *atomic.Int64
}

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := c.rt.RoundTrip(r)
	if err == nil {
		res.Body = countingBody{res.Body, c.read}
	}
	return res, err
}

type countingBody struct {
	io.ReadCloser
	read *atomic.Int64
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.read.Add(int64(n))
	return n, err
}

// TestSenderRefusesBadSetup: a bad endpoint, secret or option is a
// *upicollect.ValidationError naming each, before any delivery; an
// endpoint's credentials are never repeated.
func TestSenderRefusesBadSetup(t *testing.T) {
	cases := []struct {
		endpoint string
		secret   []byte
		opts     []webhook.Option
		fields   []string // nil: accepted
	}{
		{"https://shop.example.com/hook", secret, nil, nil},
		{"HTTPS://shop.example.com/hook", secret, nil, nil},
		{"http://127.0.0.1:8080/hook", secret, nil, nil},
		{"http://127.9.9.9/hook", secret, nil, nil},
		{"http://[::1]:8080/hook", secret, nil, nil},
		{"http://localhost:8080/hook", secret, nil, nil},
		{"http://LocalHost/hook", secret, nil, nil},
		{"https://shop.example.com/hook", secret, []webhook.Option{nil, webhook.WithLogger(nil)}, nil},
		{"http://shop.example.com/hook", secret, nil, []string{"endpoint"}},
		{"http://user:pa55w0rd@shop.example.com/hook?token=t0k3n", secret, nil, []string{"endpoint"}},
		{"http://10.0.0.7/hook", secret, nil, []string{"endpoint"}},
		{"http://128.0.0.1/hook", secret, nil, []string{"endpoint"}},
		{"http://[::2]/hook", secret, nil, []string{"endpoint"}},
		{"http://localhost.shop.example.com/hook", secret, nil, []string{"endpoint"}},
		{"http://0.0.0.0:8080/hook", secret, nil, []string{"endpoint"}},
		{"ftp://shop.example.com/hook", secret, nil, []string{"endpoint"}},
		{"exec:/usr/bin/true", secret, nil, []string{"endpoint"}},
		{"https:///hook", secret, nil, []string{"endpoint"}},
		{"shop.example.com/hook", secret, nil, []string{"endpoint"}},
		{"https://sh op.example.com/%zz", secret, nil, []string{"endpoint"}},
		{"", secret, nil, []string{"endpoint"}},
		{"https://shop.example.com/hook", nil, nil, []string{"secret"}},
		{"https://shop.example.com/hook", []byte{}, nil, []string{"secret"}},
		{"https://shop.example.com/hook", secret, []webhook.Option{webhook.WithTimeout(0)}, []string{"timeout"}},
		{"https://shop.example.com/hook", secret, []webhook.Option{webhook.WithTimeout(-time.Second)}, []string{"timeout"}},
		{"https://shop.example.com/hook", secret, []webhook.Option{webhook.WithClock(nil)}, []string{"clock"}},
		{"https://shop.example.com/hook", secret, []webhook.Option{webhook.WithHTTPClient(nil)}, []string{"http client"}},
		{"https://shop.example.com/hook", secret, []webhook.Option{webhook.WithPreviousSecret(nil)}, []string{"previous secret"}},
		{"http://shop.example.com/hook", nil, []webhook.Option{webhook.WithTimeout(0)}, []string{"endpoint", "secret", "timeout"}},
	}
	for _, c := range cases {
		h, err := webhook.Sender(c.endpoint, c.secret, c.opts...)
		if c.fields == nil {
			assert.NoError(t, err, c.endpoint)
			assert.NotNil(t, h)
			continue
		}
		assert.Nil(t, h, c.endpoint)
		var ve *upicollect.ValidationError
		if assert.ErrorAs(t, err, &ve, c.endpoint) {
			var fields []string
			for _, f := range ve.Fields {
				fields = append(fields, f.Field)
			}
			assert.Equal(t, c.fields, fields, c.endpoint)
		}
		for _, leak := range []string{"pa55w0rd", "t0k3n", string(secret)} {
			assert.NotContains(t, err.Error(), leak)
		}
	}
	_, err := webhook.Sender("http://shop.example.com/hook", secret)
	assert.ErrorContains(t, err, "loopback")
}

// TestSecretNeverInErrorsOrLogs drives every failure of a delivery with a
// logger at Debug and looks for the secret, in any encoding, in every
// error and log line.
func TestSecretNeverInErrorsOrLogs(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var errs []error
	deliver := func(endpoint string, client *http.Client, opts ...webhook.Option) {
		opts = append(opts, webhook.WithLogger(logger), webhook.WithPreviousSecret([]byte("whsec_0ld_s3cr3t_value")))
		if client != nil {
			opts = append(opts, webhook.WithHTTPClient(client))
		}
		send, err := webhook.Sender(endpoint, secret, opts...)
		if err != nil {
			errs = append(errs, err)
			return
		}
		errs = append(errs, send(boundedCtx(t), paidEvent()))
	}
	ok, _ := answering(t, http.StatusNoContent, "")
	deliver(ok.URL, ok.Client())
	failing, _ := answering(t, http.StatusInternalServerError, "database busy")
	deliver(failing.URL, failing.Client())
	moved, _ := answering(t, http.StatusFound, "")
	deliver(moved.URL, moved.Client())
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) })
	deliver(slow.URL, slow.Client(), webhook.WithTimeout(20*time.Millisecond))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	require.NoError(t, ln.Close())
	deliver("http://"+ln.Addr().String(), nil)
	deliver("http://shop.example.com", nil)
	deliver(ok.URL, ok.Client(), webhook.WithTimeout(-1))

	require.Len(t, errs, 7)
	assert.NoError(t, errs[0])
	var text strings.Builder
	for _, err := range errs[1:] {
		require.Error(t, err)
		text.WriteString(err.Error())
		text.WriteString("\n")
	}
	text.Write(logs.Bytes())
	assert.Contains(t, logs.String(), `"level":"DEBUG","msg":"webhook: delivered"`)
	assert.Contains(t, logs.String(), `"level":"WARN"`)
	for _, s := range []string{string(secret), "whsec_0ld_s3cr3t_value"} {
		for _, form := range []string{s, hex.EncodeToString([]byte(s)), base64.StdEncoding.EncodeToString([]byte(s)),
			base64.RawURLEncoding.EncodeToString([]byte(s)), s[len(s)/2:]} {
			assert.NotContains(t, text.String(), form)
		}
	}
	assert.NotContains(t, text.String(), "whsec_")
}

// TestSenderWithoutLogger: the default logs nothing and still delivers.
func TestSenderWithoutLogger(t *testing.T) {
	srv, got := answering(t, http.StatusAccepted, "")
	send, err := webhook.Sender(strings.Replace(srv.URL, "127.0.0.1", "localhost", 1), secret, webhook.WithHTTPClient(srv.Client()))
	require.NoError(t, err)
	require.NoError(t, send(boundedCtx(t), paidEvent()))
	assert.Len(t, got(), 1)
	var ve *upicollect.ValidationError
	assert.False(t, errors.As(err, &ve))
}

// headersServer is a loopback server that answers every request 200 with
// n bytes of headers, and returns its URL.
func headersServer(t *testing.T, n int) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var answer bytes.Buffer
	answer.WriteString("HTTP/1.1 200 OK\r\n")
	for i := 0; answer.Len() < n; i++ {
		fmt.Fprintf(&answer, "X-Pad-%d: %s\r\n", i, strings.Repeat("p", 1000))
	}
	answer.WriteString("Content-Length: 0\r\nConnection: close\r\n\r\n")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return // closed
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				_ = conn.SetDeadline(time.Now().Add(waitBound))
				req, err := http.ReadRequest(bufio.NewReader(conn))
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				_, _ = conn.Write(answer.Bytes()) // fails once the client hangs up
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	return "http://" + ln.Addr().String() + "/hook"
}

// TestSenderCapsAnswerHeaders: Sender's own client reads at most 64 KiB
// of an answer's headers, as the SDK's client does: 1 MB of them fail the
// delivery, while 60 KiB are read. A client given with WithHTTPClient is
// used as given: with net/http's default limit, the same answer is read.
func TestSenderCapsAnswerHeaders(t *testing.T) {
	ctx := boundedCtx(t)
	huge := headersServer(t, 1<<20)
	send, err := webhook.Sender(huge, secret)
	require.NoError(t, err)
	err = send(ctx, paidEvent())
	require.Error(t, err)
	assert.ErrorContains(t, err, "headers exceeded 65536 bytes")

	send, err = webhook.Sender(headersServer(t, 60<<10), secret)
	require.NoError(t, err)
	assert.NoError(t, send(ctx, paidEvent()), "60 KiB of headers are within the cap")

	transport := &http.Transport{}
	t.Cleanup(transport.CloseIdleConnections)
	send, err = webhook.Sender(huge, secret, webhook.WithHTTPClient(&http.Client{Transport: transport}))
	require.NoError(t, err)
	assert.NoError(t, send(ctx, paidEvent()), "the caller's client reads what its transport allows")
}

// TestSenderRedeliversTheFirstBody: an event whose delivery failed comes
// again, from the sweeper's next check, with that check's time in At; the
// Sender sends the body of its first try again, byte for byte, and only
// the signature's t changes. Once delivered, the body is forgotten: a
// later delivery of the same event is the event as given.
func TestSenderRedeliversTheFirstBody(t *testing.T) {
	var refusals atomic.Int32
	refusals.Store(2)
	var mu sync.Mutex
	var bodies, sigs []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies, sigs = append(bodies, string(b)), append(sigs, r.Header.Get(webhook.SignatureHeader))
		mu.Unlock()
		if refusals.Add(-1) >= 0 {
			http.Error(w, "database busy", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	clock := t0
	send, err := webhook.Sender(srv.URL, secret, webhook.WithHTTPClient(srv.Client()),
		webhook.WithClock(func() time.Time { return clock }))
	require.NoError(t, err)
	ctx := boundedCtx(t)
	found := func(at time.Time) reconcile.Event { // the event as a check at at finds it
		e := paidEvent()
		e.At = at
		return e
	}
	first := paidEvent()
	want, err := json.Marshal(webhook.NewDelivery(first))
	require.NoError(t, err)

	require.Error(t, send(ctx, first))
	clock = clock.Add(time.Minute)
	require.Error(t, send(ctx, found(first.At.Add(time.Minute))))
	clock = clock.Add(2 * time.Minute)
	require.NoError(t, send(ctx, found(first.At.Add(3*time.Minute))))
	clock = clock.Add(time.Minute)
	later := found(first.At.Add(4 * time.Minute))
	require.NoError(t, send(ctx, later))

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, bodies, 4)
	for i, b := range bodies[:3] {
		assert.Equal(t, string(want), b, "delivery %d is the first body", i)
	}
	for i, at := range []time.Time{t0, t0.Add(time.Minute), t0.Add(3 * time.Minute)} {
		assert.Equal(t, webhook.Sign(at, want, secret), sigs[i], "delivery %d is signed at its own time", i)
	}
	assert.NotEqual(t, sigs[0], sigs[1])
	again, err := json.Marshal(webhook.NewDelivery(later))
	require.NoError(t, err)
	assert.Equal(t, string(again), bodies[3], "delivered: the first body is forgotten")
}

// TestDeliveryBodyIsTheEvent: two deliveries of one Event value at two
// times are the same body, and their signatures differ in t alone.
func TestDeliveryBodyIsTheEvent(t *testing.T) {
	srv, got := answering(t, http.StatusOK, "")
	clock := t0
	send, err := webhook.Sender(srv.URL, secret, webhook.WithHTTPClient(srv.Client()),
		webhook.WithClock(func() time.Time { return clock }))
	require.NoError(t, err)
	e := paidEvent()
	require.NoError(t, send(boundedCtx(t), e))
	clock = clock.Add(90 * time.Second)
	require.NoError(t, send(boundedCtx(t), e))
	reqs := got()
	require.Len(t, reqs, 2)
	assert.Equal(t, string(reqs[0].body), string(reqs[1].body))
	assert.Equal(t, []string{webhook.Sign(t0, reqs[0].body, secret)}, reqs[0].signatures)
	assert.Equal(t, []string{webhook.Sign(t0.Add(90*time.Second), reqs[0].body, secret)}, reqs[1].signatures)
}
