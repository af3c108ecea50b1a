package upicollect_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

// Hardening: the defaults a production client gets without asking.

var hardCreds = upicollect.Credentials{MID: "HARDMID", PublicKey: "pk_hard", SecretKey: "sk_hard_secret"}

const hardStatusBody = `{"status":true,"statusCode":200,"txnStatus":"SUCCESS","msg":"Transaction is successful",` +
	`"data":{"amount":499,"UTR":"123456789012","order_id":"ORD-H-1"}}`

// hardServer is an httptest server (TLS when cfg is set) that counts the
// requests it answers with handler.
func hardServer(t *testing.T, cfg *tls.Config, handler http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		handler(w, r)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // failed handshakes are expected
	if cfg != nil {
		srv.TLS = cfg
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, &hits
}

func hardStatusHandler(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, hardStatusBody)
}

// hardCertPool trusts srv's certificate.
func hardCertPool(srv *httptest.Server) *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return pool
}

// hardTrusting returns the SDK's default HTTP client, trusting srv's
// certificate and nothing else about it changed.
func hardTrusting(t *testing.T, srv *httptest.Server) *http.Client {
	t.Helper()
	hc := upicollect.DefaultHTTPClient()
	tr, ok := hc.Transport.(*http.Transport)
	require.True(t, ok, "the default transport is an *http.Transport")
	tr.TLSClientConfig.RootCAs = hardCertPool(srv)
	t.Cleanup(tr.CloseIdleConnections)
	return hc
}

func TestHardeningTLSMinimum(t *testing.T) {
	verifyNoLeaks(t)

	hc := upicollect.DefaultHTTPClient()
	tr, ok := hc.Transport.(*http.Transport)
	require.True(t, ok)
	require.NotNil(t, tr.TLSClientConfig)
	assert.Equal(t, uint16(tls.VersionTLS12), tr.TLSClientConfig.MinVersion, "the default transport's TLS floor")
	assert.NotSame(t, http.DefaultTransport, hc.Transport, "never http.DefaultTransport itself")

	tests := []struct {
		name     string
		min, max uint16
		wantOK   bool
	}{
		{"server speaks TLS 1.0 to 1.1 only", tls.VersionTLS10, tls.VersionTLS11, false},
		{"server speaks TLS 1.1 only", tls.VersionTLS11, tls.VersionTLS11, false},
		{"server speaks TLS 1.2 only", tls.VersionTLS12, tls.VersionTLS12, true},
		{"server speaks TLS 1.3 only", tls.VersionTLS13, tls.VersionTLS13, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, hits := hardServer(t, &tls.Config{MinVersion: tt.min, MaxVersion: tt.max}, hardStatusHandler)
			c, err := upicollect.NewClient(hardCreds, upicollect.WithBaseURL(srv.URL),
				upicollect.WithHTTPClient(hardTrusting(t, srv)), upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1}))
			require.NoError(t, err)

			st, err := c.CheckPaymentStatus(context.Background(), "ORD-H-1")
			if tt.wantOK {
				require.NoError(t, err)
				assert.True(t, st.Paid())
				assert.Equal(t, int64(1), hits.Load())
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "protocol version", "the handshake fails on the version")
			assert.Zero(t, hits.Load(), "no request reached the server")

			// Control: the server does speak its old version, so the failure
			// above is the client's floor at work.
			control := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
				MinVersion: tls.VersionTLS10, RootCAs: hardCertPool(srv),
			}}}
			defer control.CloseIdleConnections()
			res, err := control.Post(srv.URL, "application/x-www-form-urlencoded", nil)
			require.NoError(t, err, "a client without the floor connects")
			require.NoError(t, res.Body.Close())
			require.NotNil(t, res.TLS)
			assert.LessOrEqual(t, res.TLS.Version, uint16(tls.VersionTLS11))
		})
	}
}

// hardRoundTripFunc lets a test see the requests a client sends.
type hardRoundTripFunc func(*http.Request) (*http.Response, error)

func (f hardRoundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestHardeningHTTPSRequired(t *testing.T) {
	insecure := upicollect.WithInsecureHTTP()
	tests := []struct {
		base    string
		opts    []upicollect.Option
		wantErr string
	}{
		{base: "https://api.example.com"},
		{base: "https://203.0.113.7:8443/prefix"},
		{base: "http://api.example.com", wantErr: "https is required"},
		{base: "http://203.0.113.7", wantErr: "https is required"},
		{base: "http://10.0.0.5:8080", wantErr: "https is required"},
		{base: "http://localhost.example.com", wantErr: "https is required"},
		{base: "http://127.0.0.1.nip.io", wantErr: "https is required"},
		{base: "http://api.example.com", opts: []upicollect.Option{insecure}},
		{base: "http://10.0.0.5:8080", opts: []upicollect.Option{insecure}},
		{base: "http://127.0.0.1:8080"},
		{base: "http://127.1.2.3:8080"},
		{base: "http://localhost:8080"},
		{base: "http://LOCALHOST"},
		{base: "http://[::1]:8080"},
		{base: "ftp://api.example.com", wantErr: "scheme must be http or https"},
		{base: "ftp://api.example.com", opts: []upicollect.Option{insecure}, wantErr: "scheme must be http or https"},
	}
	for _, tt := range tests {
		name := tt.base
		if len(tt.opts) > 0 {
			name += " with WithInsecureHTTP"
		}
		t.Run(name, func(t *testing.T) {
			var sent []string
			var mu sync.Mutex
			hc := &http.Client{Transport: hardRoundTripFunc(func(r *http.Request) (*http.Response, error) {
				mu.Lock()
				sent = append(sent, r.URL.String())
				mu.Unlock()
				return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(hardStatusBody)), Request: r}, nil
			})}
			opts := append([]upicollect.Option{upicollect.WithBaseURL(tt.base), upicollect.WithHTTPClient(hc)}, tt.opts...)
			c, err := upicollect.NewClient(hardCreds, opts...)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Nil(t, c)
				assert.Contains(t, err.Error(), tt.wantErr)
				if tt.wantErr == "https is required" {
					assert.Contains(t, err.Error(), "WithInsecureHTTP", "the error names the way out")
				}
				return
			}
			require.NoError(t, err)
			_, err = c.CheckPaymentStatus(context.Background(), "ORD-H-1")
			require.NoError(t, err)
			require.Len(t, sent, 1)
			assert.Equal(t, strings.TrimSuffix(tt.base, "/")+"/v1/payments/checkPaymentStatus", sent[0],
				"the request goes to the base URL, scheme unchanged")
		})
	}
}

func TestHardeningBodyCap(t *testing.T) {
	verifyNoLeaks(t)
	const size = 100 << 20 // 100 MB
	for _, chunked := range []bool{false, true} {
		name := "Content-Length"
		if chunked {
			name = "chunked"
		}
		t.Run(name, func(t *testing.T) {
			var written atomic.Int64
			done := make(chan struct{})
			var once sync.Once
			srv, _ := hardServer(t, nil, func(w http.ResponseWriter, _ *http.Request) {
				defer once.Do(func() { close(done) })
				w.Header().Set("Content-Type", "application/json")
				if !chunked {
					w.Header().Set("Content-Length", strconv.Itoa(size))
				}
				w.WriteHeader(http.StatusOK)
				n, err := io.WriteString(w, `{"status":true,"pad":"`)
				written.Add(int64(n))
				pad := bytes.Repeat([]byte{'x'}, 32<<10)
				for err == nil && written.Load() < size {
					n, err = w.Write(pad[:min(int64(len(pad)), size-written.Load())])
					written.Add(int64(n))
				}
			})
			c, err := upicollect.NewClient(hardCreds, upicollect.WithBaseURL(srv.URL))
			require.NoError(t, err)
			t.Cleanup(func() { upicollect.CloseIdleConnections(c) })

			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err = c.CheckPaymentStatus(context.Background(), "ORD-H-1")
			hardWait(t, done, "the server's handler ends once the client hangs up")
			runtime.GC()
			runtime.ReadMemStats(&after)

			require.Error(t, err)
			assert.ErrorIs(t, err, upicollect.ErrUnexpectedResponse)
			assert.Contains(t, err.Error(), "body exceeds 1048576 bytes")
			var ae *upicollect.APIError
			require.ErrorAs(t, err, &ae)
			assert.Len(t, ae.Response.Body, 1<<20, "the Response keeps the first MiB")
			assert.Equal(t, 1, ae.Response.Attempts, "an unreadable 200 is not retried")

			// The client stopped reading: the server managed to write only
			// what the cap and the sockets' buffers took.
			t.Logf("server wrote %.1f MiB of 100; allocated during the call %.1f MiB; heap %+.1f MiB",
				float64(written.Load())/(1<<20), float64(after.TotalAlloc-before.TotalAlloc)/(1<<20),
				(float64(after.HeapAlloc)-float64(before.HeapAlloc))/(1<<20))
			assert.Less(t, written.Load(), int64(32<<20), "written bytes")
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(32<<20), "bytes allocated by the call")
			assert.Less(t, int64(after.HeapAlloc)-int64(before.HeapAlloc), int64(16<<20), "heap growth")
		})
	}
}

// hardWait waits for done, failing the test after 10s rather than hanging.
func hardWait(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		t.Fatalf("timed out waiting: %s", what)
	}
}

func TestHardeningSlowBodyEndsAtAttemptTimeout(t *testing.T) {
	verifyNoLeaks(t)
	for _, op := range fmOps {
		t.Run(string(op), func(t *testing.T) {
			t.Parallel()
			s := sandbox.Start(t, sandbox.Strict())
			s.InjectFault(sandbox.Fault{Op: op.wire(), SlowBody: time.Minute, Times: -1})
			// The real clock and the default retry policy: what production
			// would do, bounded only by the per-attempt timeout.
			c, err := upicollect.NewClient(s.Credentials(), upicollect.WithBaseURL(s.URL()),
				upicollect.WithTimeout(200*time.Millisecond))
			require.NoError(t, err)
			t.Cleanup(func() { upicollect.CloseIdleConnections(c) })

			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // guard
			defer cancel()
			orderID := ""
			if op != fmLink && op != fmIntentNoID {
				orderID = upicollect.NewOrderID()
			}
			_, _, err = fmCall(ctx, c, op, orderID, fmParams(op, orderID))
			require.Error(t, err)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.NoError(t, ctx.Err(), "the per-attempt timeout ended the call, not the guard")
			assert.LessOrEqual(t, len(s.Orders()), 1)
		})
	}
}

func TestHardeningWrongContentTypeStillRead(t *testing.T) {
	verifyNoLeaks(t)
	bodies := map[fmOp]string{
		fmIntent: `{"status":true,"statusCode":200,"msg":"Payment intent created successfully","data":{` +
			`"intent":"upi://pay?pa=m@upi&am=499.00&tr=ORD-H-1","phonepe":"phonepe://pay?pa=m@upi&am=499.00&tr=ORD-H-1","dynamicQR":"https://x.example/qr.png",` +
			`"expiry":"2025-01-15 15:35:00","amount":"499","orderId":"ORD-H-1"}}`,
		fmRequest: `{"status":true,"statusCode":200,"msg":"Payment request created successfully","data":{` +
			`"orderId":"ORD-H-1","payment_url":"https://x.example/pay/ORD-H-1"}}`,
		fmLink: `{"status":true,"statusCode":200,"msg":"Payment link created successfully","data":{` +
			`"payment_link":"https://x.example/pay/ORD-H-2"}}`,
		fmStatus: hardStatusBody,
	}
	for _, ct := range []string{"text/html; charset=utf-8", "text/plain", "application/octet-stream", "application/x-www-form-urlencoded"} {
		for _, op := range []fmOp{fmIntent, fmRequest, fmLink, fmStatus} {
			t.Run(ct+"/"+string(op), func(t *testing.T) {
				s := sandbox.Start(t, sandbox.Strict())
				s.InjectFault(sandbox.Fault{Op: op.wire(), Status: 200, Body: []byte(bodies[op]),
					Header: http.Header{"Content-Type": {ct}}})
				c, err := upicollect.NewClient(s.Credentials(), upicollect.WithBaseURL(s.URL()))
				require.NoError(t, err)
				t.Cleanup(func() { upicollect.CloseIdleConnections(c) })

				res, resp, err := fmCall(context.Background(), c, op, "ORD-H-1", fmParams(op, "ORD-H-1"))
				require.NoError(t, err)
				assert.Equal(t, ct, resp.Header.Get("Content-Type"), "the answer really had that type")
				switch r := res.(type) {
				case *upicollect.Intent:
					assert.Equal(t, "ORD-H-1", r.OrderID)
					assert.Equal(t, "upi://pay?pa=m@upi&am=499.00&tr=ORD-H-1", r.Link)
					assert.Equal(t, map[string]string{"phonepe": "phonepe://pay?pa=m@upi&am=499.00&tr=ORD-H-1"}, r.AppLinks)
				case *upicollect.PaymentRequest:
					assert.Equal(t, "https://x.example/pay/ORD-H-1", r.PaymentURL)
				case *upicollect.PaymentLink:
					assert.Equal(t, "https://x.example/pay/ORD-H-2", r.URL)
				case *upicollect.PaymentStatus:
					assert.True(t, r.Paid())
					assert.Equal(t, "123456789012", r.UTR)
				}
			})
		}
	}
}
