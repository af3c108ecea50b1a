package upicollect_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
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
)

func TestNewClient(t *testing.T) {
	t.Parallel()
	good := upicollect.WithBaseURL("https://api.example.com")
	tests := []struct {
		name    string
		creds   upicollect.Credentials
		opts    []upicollect.Option
		wantErr []string // substrings of the error; nil = success
		notWant []string // substrings the error must not hold
		base    string   // BaseURL on success
	}{
		{name: "https", creds: testCreds, opts: []upicollect.Option{good}, base: "https://api.example.com"},
		{name: "https with path and slash", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("https://api.example.com/pcs/")}, base: "https://api.example.com/pcs"},
		{name: "http 127.0.0.1", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("http://127.0.0.1:8080")}, base: "http://127.0.0.1:8080"},
		{name: "http 127.1.2.3", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("http://127.1.2.3")}, base: "http://127.1.2.3"},
		{name: "http localhost", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("http://LocalHost:9000/api")}, base: "http://LocalHost:9000/api"},
		{name: "http ::1", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("http://[::1]:8080")}, base: "http://[::1]:8080"},
		{name: "http remote with WithInsecureHTTP", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("http://gateway.internal:8080"), upicollect.WithInsecureHTTP()}, base: "http://gateway.internal:8080"},
		{name: "nil option skipped", creds: testCreds, opts: []upicollect.Option{nil, good}, base: "https://api.example.com"},
		{name: "every option valid", creds: testCreds, opts: []upicollect.Option{
			good, upicollect.WithTimeout(time.Second), upicollect.WithRateLimit(10, 5),
			upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 5, BaseDelay: time.Second, MaxDelay: time.Second, MaxRetryAfter: time.Minute}),
			upicollect.WithRetryPolicy(upicollect.RetryPolicy{BaseDelay: time.Minute}), // MaxDelay default raised to BaseDelay
			upicollect.WithHTTPClient(&http.Client{}), upicollect.WithLogger(slog.Default()),
			upicollect.WithUserAgent("acme/1.0"), upicollect.WithRetryBudget(0),
		}, base: "https://api.example.com"},
		{name: "WithRateLimit at its bounds", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithRateLimit(1e6, 1)}, base: "https://api.example.com"},
		{name: "RetryPolicy at the most attempts", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 20})}, base: "https://api.example.com"},
		{name: "WithMaxConns(1)", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithMaxConns(1)}, base: "https://api.example.com"},
		{name: "path ending in v1 is a path", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("https://api.example.com/apiv1")}, base: "https://api.example.com/apiv1"},

		{name: "empty MID", creds: upicollect.Credentials{PublicKey: "pub", SecretKey: "secret"}, opts: []upicollect.Option{good}, wantErr: []string{"MID is empty"}},
		{name: "empty public key", creds: upicollect.Credentials{MID: "m", SecretKey: "secret"}, opts: []upicollect.Option{good}, wantErr: []string{"PublicKey is empty"}},
		{name: "empty secret key", creds: upicollect.Credentials{MID: "m", PublicKey: "pub"}, opts: []upicollect.Option{good}, wantErr: []string{"SecretKey is empty"}},
		{name: "all credentials empty", opts: []upicollect.Option{good}, wantErr: []string{"MID is empty", "PublicKey is empty", "SecretKey is empty"}},
		{name: "newline in secret", creds: upicollect.Credentials{MID: "m", PublicKey: "pub", SecretKey: "secret\n"}, opts: []upicollect.Option{good}, wantErr: []string{"SecretKey contains whitespace or control characters"}},
		{name: "leading newline in secret", creds: upicollect.Credentials{MID: "m", PublicKey: "pub", SecretKey: "\nsecret"}, opts: []upicollect.Option{good}, wantErr: []string{"SecretKey contains whitespace or control characters"}},
		{name: "NUL in public key", creds: upicollect.Credentials{MID: "m", PublicKey: "p\x00ub", SecretKey: "secret"}, opts: []upicollect.Option{good}, wantErr: []string{"PublicKey contains whitespace or control characters"}},
		{name: "space in MID", creds: upicollect.Credentials{MID: "M 1", PublicKey: "pub", SecretKey: "secret"}, opts: []upicollect.Option{good}, wantErr: []string{"MID contains whitespace"}},
		{name: "colon in public key", creds: upicollect.Credentials{MID: "m", PublicKey: "pub:x", SecretKey: "secret"}, opts: []upicollect.Option{good}, wantErr: []string{"PublicKey contains ':'"}},

		{name: "no base URL", creds: testCreds, wantErr: []string{"no base URL"}},
		{name: "empty base URL", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL(" ")}, wantErr: []string{"empty URL"}},
		{name: "unparseable base URL", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("https://api.example.com:port/")}, wantErr: []string{"WithBaseURL"}},
		{name: "base URL without scheme", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("api.example.com")}, wantErr: []string{"scheme must be http or https"}},
		{name: "ftp base URL", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("ftp://api.example.com")}, wantErr: []string{"scheme must be http or https"}},
		{name: "base URL without host", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("https:///v1")}, wantErr: []string{"no host"}},
		{name: "base URL with user info", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("https://pub:secret@api.example.com")}, wantErr: []string{"credentials in the URL"}},
		{name: "base URL with query", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("https://api.example.com/?x=1")}, wantErr: []string{"query or fragment"}},
		{name: "base URL with fragment", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("https://api.example.com/#x")}, wantErr: []string{"query or fragment"}},
		{name: "base URL ending in ?", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("https://api.example.com/?")}, wantErr: []string{"query or fragment"}},
		{name: "base URL ending in ? without path", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("https://api.example.com?")}, wantErr: []string{"query or fragment"}},
		{name: "base URL ending in #", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("https://api.example.com/pcs#")}, wantErr: []string{"query or fragment"}},
		{name: "base URL with the API path", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("https://api.example.com/v1/payments")}, wantErr: []string{"should not include the API path", "https://api.example.com"}, notWant: []string{"no base URL"}},
		{name: "base URL with the API path and slash", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("https://api.example.com/pcs/V1/Payments/")}, wantErr: []string{"should not include the API path"}},
		{name: "base URL with /v1", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("https://api.example.com/v1/")}, wantErr: []string{"should not include the API path"}},
		{name: "malformed base URL with a password", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("https://user:s3cr3t-pw@api.example.com:port/")}, wantErr: []string{"WithBaseURL: malformed URL"}, notWant: []string{"s3cr3t-pw", "user:"}},
		{name: "base URL with a password", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("https://user:s3cr3t-pw@api.example.com/")}, wantErr: []string{"credentials in the URL"}, notWant: []string{"s3cr3t-pw", "user:"}},
		{name: "http base URL with a password", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("http://user:s3cr3t-pw@api.example.com/")}, wantErr: []string{"credentials in the URL"}, notWant: []string{"s3cr3t-pw", "user:"}},
		{name: "WithMaxConns(0)", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithMaxConns(0)}, wantErr: []string{"WithMaxConns: must be at least 1, got 0"}},
		{name: "WithMaxConns negative", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithMaxConns(-3)}, wantErr: []string{"WithMaxConns: must be at least 1, got -3"}},
		{name: "WithMaxConns with WithHTTPClient", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithMaxConns(4), upicollect.WithHTTPClient(&http.Client{})}, wantErr: []string{"WithMaxConns and WithHTTPClient"}},
		{name: "http to a remote host", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("http://api.example.com")}, wantErr: []string{"https is required"}},
		{name: "http to a private address", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("http://10.0.0.1")}, wantErr: []string{"https is required"}},
		{name: "http to localhost lookalike", creds: testCreds, opts: []upicollect.Option{upicollect.WithBaseURL("http://localhost.example.com")}, wantErr: []string{"https is required"}},

		{name: "WithTimeout(0)", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithTimeout(0)}, wantErr: []string{"WithTimeout: must be positive"}},
		{name: "WithTimeout negative", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithTimeout(-time.Second)}, wantErr: []string{"WithTimeout"}},
		{name: "WithRateLimit(0,1)", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithRateLimit(0, 1)}, wantErr: []string{"WithRateLimit: rate"}},
		{name: "WithRateLimit NaN", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithRateLimit(math.NaN(), 1)}, wantErr: []string{"WithRateLimit: rate"}},
		{name: "WithRateLimit +Inf", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithRateLimit(math.Inf(1), 1)}, wantErr: []string{"WithRateLimit: rate"}},
		{name: "WithRateLimit above 1e6", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithRateLimit(1e6+1, 1)}, wantErr: []string{"WithRateLimit: rate"}},
		{name: "WithRateLimit burst 0", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithRateLimit(1, 0)}, wantErr: []string{"WithRateLimit: burst"}},
		{name: "RetryPolicy negative attempts", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: -1})}, wantErr: []string{"MaxAttempts"}},
		{name: "RetryPolicy too many attempts", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 21})}, wantErr: []string{"MaxAttempts"}},
		{name: "RetryPolicy negative BaseDelay", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithRetryPolicy(upicollect.RetryPolicy{BaseDelay: -1})}, wantErr: []string{"negative delay"}},
		{name: "RetryPolicy negative MaxDelay", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxDelay: -1})}, wantErr: []string{"negative delay"}},
		{name: "RetryPolicy negative MaxRetryAfter", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxRetryAfter: -1})}, wantErr: []string{"negative delay"}},
		{name: "RetryPolicy BaseDelay above MaxDelay", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithRetryPolicy(upicollect.RetryPolicy{BaseDelay: time.Minute, MaxDelay: time.Second})}, wantErr: []string{"exceeds MaxDelay"}},
		{name: "WithHTTPClient(nil)", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithHTTPClient(nil)}, wantErr: []string{"WithHTTPClient: nil client"}},
		{name: "WithLogger(nil)", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithLogger(nil)}, wantErr: []string{"WithLogger: nil logger"}},
		{name: "WithRetryBudget negative", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithRetryBudget(-1)}, wantErr: []string{"WithRetryBudget"}},
		{name: "WithUserAgent control", creds: testCreds, opts: []upicollect.Option{good, upicollect.WithUserAgent("acme\r\nX-Evil: 1")}, wantErr: []string{"WithUserAgent"}},
		{name: "every problem at once", creds: upicollect.Credentials{SecretKey: "secret"}, opts: []upicollect.Option{upicollect.WithTimeout(0), upicollect.WithLogger(nil)},
			wantErr: []string{"MID is empty", "PublicKey is empty", "WithTimeout", "WithLogger", "no base URL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := upicollect.NewClient(tt.creds, tt.opts...)
			if tt.wantErr == nil {
				require.NoError(t, err)
				require.NotNil(t, c)
				assert.Equal(t, tt.base, c.BaseURL())
				assert.Equal(t, tt.creds.MID, c.MID())
				return
			}
			require.Error(t, err)
			assert.Nil(t, c)
			for _, want := range tt.wantErr {
				assert.Contains(t, err.Error(), want)
			}
			for _, bad := range tt.notWant {
				assert.NotContains(t, err.Error(), bad)
			}
			if tt.creds.SecretKey != "" {
				assert.NotContains(t, err.Error(), strings.TrimSpace(tt.creds.SecretKey), "errors never hold the secret key")
			}
			assertSentinels(t, err)
		})
	}
}

// recordingTransport counts the requests sent through it.
type recordingTransport struct {
	base http.RoundTripper
	n    atomic.Int64
}

func (rt *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rt.n.Add(1)
	return rt.base.RoundTrip(r)
}

func TestWithHTTPClientUsedAsGivenNotMutated(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, bySuccess(t))
	rt := &recordingTransport{base: srv.Client().Transport}
	redirect := func(*http.Request, []*http.Request) error { return nil }
	hc := &http.Client{Transport: rt, CheckRedirect: redirect, Timeout: 7 * time.Second}
	before := *hc

	c, _ := newClient(t, srv.BaseURL(), upicollect.WithHTTPClient(hc), upicollect.WithTimeout(3*time.Second))
	for _, op := range allOps {
		_, _, err := callOp(context.Background(), c, op, "")
		require.NoError(t, err, op)
	}
	assert.Equal(t, int64(4), rt.n.Load(), "every request goes through the given client's transport")
	assert.Same(t, before.Transport, hc.Transport)
	assert.Equal(t, before.Timeout, hc.Timeout)
	assert.Equal(t, before.Jar, hc.Jar)
	assert.Equal(t, reflect.ValueOf(before.CheckRedirect).Pointer(), reflect.ValueOf(hc.CheckRedirect).Pointer())
	assert.Equal(t, 4, srv.Count())
}

// TestRedirectNotFollowed: a 3xx from the service is an error naming the
// Location's host, and the credentials never go there.
func TestRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		respond(w, http.StatusOK, successBody(t, opStatus))
	}))
	t.Cleanup(other.Close)
	otherHost := strings.TrimPrefix(other.URL, "http://")

	for _, code := range []int{301, 302, 303, 307, 308} {
		for _, op := range allOps {
			t.Run(fmt.Sprintf("%d/%s", code, op), func(t *testing.T) {
				t.Parallel()
				srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
					http.Redirect(w, r, other.URL+"/steal"+r.URL.Path, code)
				})
				c, _ := newClient(t, srv.BaseURL())
				_, _, err := callOp(context.Background(), c, op, testOrderID)
				require.Error(t, err)
				if op == opStatus {
					assertSentinels(t, err, upicollect.ErrUnexpectedResponse)
				} else {
					// The create reached the service; the answer says nothing of it.
					assertSentinels(t, err, upicollect.ErrUnexpectedResponse, upicollect.ErrOutcomeUnknown)
				}
				assert.Contains(t, err.Error(), otherHost)
				assert.Contains(t, err.Error(), "not followed")
				var ae *upicollect.APIError
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, code, ae.HTTPStatus)
				assert.Equal(t, other.URL+"/steal"+apiPrefix+"/v1/payments/"+op, ae.Response.Header.Get("Location"))
				assert.Equal(t, 1, srv.Count(), "a redirect is not retried")
				assert.Equal(t, int64(0), elsewhere.Load(), "the redirect target must get no request")
			})
		}
	}
	t.Run("no Location", func(t *testing.T) {
		t.Parallel()
		srv := newTestServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) { w.WriteHeader(http.StatusFound) })
		c, _ := newClient(t, srv.BaseURL())
		_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
		assertSentinels(t, err, upicollect.ErrUnexpectedResponse)
		assert.Contains(t, err.Error(), "redirect not followed (no valid Location)")
	})
}

// TestBodyCapExact: a body of exactly the cap is read whole.
func TestBodyCapExact(t *testing.T) {
	t.Parallel()
	const maxBody = 1 << 20
	head := `{"status":true,"statusCode":200,"txnStatus":"FAIL","msg":"`
	body := head + strings.Repeat("a", maxBody-len(head)-2) + `"}`
	require.Len(t, body, maxBody)
	srv := newTestServer(t, always(http.StatusOK, []byte(body)))
	c, _ := newClient(t, srv.BaseURL())
	st, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
	require.NoError(t, err)
	assert.Equal(t, upicollect.TxnFail, st.TxnStatus)
	assert.Len(t, st.Response.Body, maxBody)
}

func TestDo(t *testing.T) {
	t.Parallel()
	refund := []byte(`{"status":true,"statusCode":200,"msg":"Refund initiated","data":{"refund_id":"RF-1","amount":"10.00"}}`)

	t.Run("mid added, data into out", func(t *testing.T) {
		t.Parallel()
		srv := newTestServer(t, always(http.StatusOK, refund))
		c, _ := newClient(t, srv.BaseURL())
		form := url.Values{"order_id": {"ORD-1"}, "amount": {"10"}}
		var out struct {
			RefundID string `json:"refund_id"`
			Amount   string `json:"amount"`
		}
		resp, err := c.Do(context.Background(), "/v1/payments/refund", form, &out)
		require.NoError(t, err)
		assert.Equal(t, "RF-1", out.RefundID)
		assert.Equal(t, "10.00", out.Amount)
		require.NotNil(t, resp)
		assert.Equal(t, http.StatusOK, resp.HTTPStatus)
		assert.Equal(t, refund, resp.Body)
		assert.Equal(t, 1, resp.Attempts)

		got := srv.Last(t)
		assert.Equal(t, http.MethodPost, got.Method)
		assert.Equal(t, apiPrefix+"/v1/payments/refund", got.Path)
		assert.Equal(t, "application/x-www-form-urlencoded", got.Header.Get("Content-Type"))
		assert.Equal(t, basicAuth(testPublic, testSecret), got.Header.Get("Authorization"))
		assert.Equal(t, url.Values{"mid": {testMID}, "order_id": {"ORD-1"}, "amount": {"10"}}, got.Form)
		assert.Equal(t, url.Values{"order_id": {"ORD-1"}, "amount": {"10"}}, form, "the caller's form is not modified")
	})
	t.Run("caller's mid kept, nil out, nil form", func(t *testing.T) {
		t.Parallel()
		srv := newTestServer(t, always(http.StatusOK, refund))
		c, _ := newClient(t, srv.BaseURL())
		_, err := c.Do(context.Background(), "/v1/payments/refund", url.Values{"mid": {"OTHER"}}, nil)
		require.NoError(t, err)
		assert.Equal(t, url.Values{"mid": {"OTHER"}}, srv.Last(t).Form)
		_, err = c.Do(context.Background(), "/v1/payments/refund", nil, nil)
		require.NoError(t, err)
		assert.Equal(t, url.Values{"mid": {testMID}}, srv.Last(t).Form)
	})
	t.Run("no data leaves out alone", func(t *testing.T) {
		t.Parallel()
		srv := newTestServer(t, always(http.StatusOK, loadResponse(t, "success_no_data.json")))
		c, _ := newClient(t, srv.BaseURL())
		out := map[string]any{"kept": true}
		resp, err := c.Do(context.Background(), "/v1/payments/ping", nil, &out)
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"kept": true}, out)
		assert.Equal(t, http.StatusOK, resp.HTTPStatus)
	})
	t.Run("data that does not fit out", func(t *testing.T) {
		t.Parallel()
		srv := newTestServer(t, always(http.StatusOK, refund))
		c, _ := newClient(t, srv.BaseURL())
		var out struct {
			Amount int `json:"amount"`
		}
		resp, err := c.Do(context.Background(), "/v1/payments/refund", url.Values{"order_id": {"ORD-1"}}, &out)
		assertSentinels(t, err, upicollect.ErrUnexpectedResponse, upicollect.ErrOutcomeUnknown)
		require.NotNil(t, resp)
		var ae *upicollect.APIError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, "refund", ae.Op)
		assert.Equal(t, "ORD-1", ae.OrderID)
	})
	t.Run("failure envelope", func(t *testing.T) {
		t.Parallel()
		srv := newTestServer(t, always(http.StatusConflict, loadResponse(t, "duplicate_409.json")))
		c, _ := newClient(t, srv.BaseURL())
		resp, err := c.Do(context.Background(), "/v1/payments/refund", nil, nil)
		assert.Nil(t, resp)
		assertSentinels(t, err, upicollect.ErrDuplicateOrderID)
		var ae *upicollect.APIError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, loadResponse(t, "duplicate_409.json"), ae.Response.Body)
	})
	t.Run("not retried after a 500", func(t *testing.T) {
		t.Parallel()
		srv := newTestServer(t, always(http.StatusInternalServerError, loadResponse(t, "server_error_500.json")))
		c, clk := newClient(t, srv.BaseURL())
		_, err := c.Do(context.Background(), "/v1/payments/refund", nil, nil)
		assertSentinels(t, err, upicollect.ErrServer, upicollect.ErrOutcomeUnknown)
		assert.Equal(t, 1, srv.Count())
		assert.Empty(t, clk.Sleeps())
	})
	for _, path := range []string{
		"https://evil.example.com/v1/payments/x",
		"http://127.0.0.1/v1/payments/x",
		"//evil.example.com/v1/payments/x",
		"v1/payments/x",
		"",
		"/v1/../admin",
		"/v1/payments/..",
		"/v1/payments/%2e%2e/%2e%2e/admin",
		"/v1/payments/%2E%2E/admin",
		"/v1/payments/x?debug=1",
		"/v1/payments/x#frag",
		"/v1/payments/\x7f",
		"/v1/payments/x y\n",
	} {
		t.Run("rejects "+path, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, always(http.StatusOK, refund))
			c, _ := newClient(t, srv.BaseURL())
			resp, err := c.Do(context.Background(), path, url.Values{"a": {"b"}}, nil)
			assert.Nil(t, resp)
			assertSentinels(t, err, upicollect.ErrValidation)
			var ve *upicollect.ValidationError
			require.ErrorAs(t, err, &ve)
			require.Len(t, ve.Fields, 1)
			assert.Equal(t, "path", ve.Fields[0].Field)
			assert.Equal(t, 0, srv.Count())
		})
	}
}

// TestConcurrentUse shares one client between many goroutines (run with
// -race).
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n%3 == 0 {
			respond(w, http.StatusInternalServerError, loadResponse(t, "server_error_500.json"))
			return
		}
		bySuccess(t)(w, r, n)
	})
	c, _ := newClient(t, srv.BaseURL(), upicollect.WithRateLimit(1e6, 1000), upicollect.WithLogger(slog.New(slog.NewJSONHandler(&syncBuffer{}, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			op := allOps[i%len(allOps)]
			orderID := fmt.Sprintf("ORD-%d", i)
			_, _, err := callOp(context.Background(), c, op, orderID)
			if err != nil {
				assert.ErrorIs(t, err, upicollect.ErrServer)
			}
		}()
	}
	wg.Wait()
	assert.GreaterOrEqual(t, srv.Count(), 40)
}

// TestRateLimit: requests are spaced by the limiter, on the client's clock.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, bySuccess(t))
	c, clk := newClient(t, srv.BaseURL(), upicollect.WithRateLimit(2, 1))
	for i := 0; i < 4; i++ {
		_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
		require.NoError(t, err)
	}
	assert.Equal(t, []time.Duration{500 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond}, clk.Sleeps())
	assert.Equal(t, 4, srv.Count())

	// A wait for a token that would outlast the context ends the call
	// before anything is sent, and a create is then not "outcome unknown".
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.CreatePaymentLink(ctx, validInput().link())
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assertSentinels(t, err)
	assert.Equal(t, 4, srv.Count())
}

func TestDefaultRetryPolicy(t *testing.T) {
	t.Parallel()
	assert.Equal(t, upicollect.RetryPolicy{
		MaxAttempts: 3, BaseDelay: 200 * time.Millisecond, MaxDelay: 5 * time.Second, MaxRetryAfter: 30 * time.Second,
	}, upicollect.DefaultRetryPolicy())
}

func TestCredentialsFromEnv(t *testing.T) {
	t.Setenv(upicollect.EnvMID, "MID9")
	t.Setenv(upicollect.EnvPublicKey, "pk9")
	t.Setenv(upicollect.EnvSecretKey, "sk9-very-secret")
	c, err := upicollect.CredentialsFromEnv()
	require.NoError(t, err)
	assert.Equal(t, upicollect.Credentials{MID: "MID9", PublicKey: "pk9", SecretKey: "sk9-very-secret"}, c)

	t.Setenv(upicollect.EnvMID, "")
	t.Setenv(upicollect.EnvSecretKey, "")
	c, err = upicollect.CredentialsFromEnv()
	require.Error(t, err)
	assert.Equal(t, upicollect.Credentials{}, c)
	assert.Contains(t, err.Error(), upicollect.EnvMID)
	assert.Contains(t, err.Error(), upicollect.EnvSecretKey)
	assert.NotContains(t, err.Error(), upicollect.EnvPublicKey)
}

func TestCredentialsRedacted(t *testing.T) {
	t.Parallel()
	c := upicollect.Credentials{MID: "MID123", PublicKey: "pub", SecretKey: "sk_live_hunter2"}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		s := fmt.Sprintf(verb, c)
		assert.NotContains(t, s, "hunter2", verb)
		s = fmt.Sprintf(verb, &c)
		assert.NotContains(t, s, "hunter2", verb)
	}
	assert.Equal(t, "{MID:MID123 PublicKey:pub SecretKey:[REDACTED]}", c.String())
	assert.Equal(t, "upicollect.Credentials{MID:MID123 PublicKey:pub SecretKey:[REDACTED]}", c.GoString())
	assert.Equal(t, "upicollect.Credentials{MID:MID123 PublicKey:pub SecretKey:[REDACTED]}", fmt.Sprintf("%#v", c))
	for _, verb := range []string{"%v", "%+v", "%s", "%#s"} {
		assert.Equal(t, c.String(), fmt.Sprintf(verb, c), verb)
	}
	assert.Equal(t, "{MID:MID123 PublicKey:pub SecretKey:}", upicollect.Credentials{MID: "MID123", PublicKey: "pub"}.String())

	var buf strings.Builder
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("creds", "creds", c)
	var rec map[string]any
	require.NoError(t, json.Unmarshal([]byte(buf.String()), &rec))
	assert.Equal(t, map[string]any{"mid": "MID123", "public_key": "pub"}, rec["creds"])
}

// TestRedirectRefusedThroughCallersClient: a caller's http.Client follows
// redirects by default; through the SDK a 307 or 308 to another port of the
// same host is still refused, so the body and the Authorization header never
// reach that server and its answer is never taken as the service's. The
// caller's client is left as it was.
func TestRedirectRefusedThroughCallersClient(t *testing.T) {
	t.Parallel()
	for _, code := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			t.Parallel()
			var stolen atomic.Int64
			other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				stolen.Add(1)
				respond(w, http.StatusOK, successBody(t, opStatus))
			}))
			t.Cleanup(other.Close)
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				http.Redirect(w, r, other.URL+r.URL.Path, code)
			})
			hc := &http.Client{Transport: srv.Client().Transport}
			c, _ := newClient(t, srv.BaseURL(), upicollect.WithHTTPClient(hc), noRetry())
			for _, op := range allOps {
				_, _, err := callOp(context.Background(), c, op, testOrderID)
				require.Error(t, err, op)
				assert.ErrorIs(t, err, upicollect.ErrUnexpectedResponse, op)
				var ae *upicollect.APIError
				require.ErrorAs(t, err, &ae, op)
				assert.Equal(t, code, ae.HTTPStatus, op)
			}
			assert.Equal(t, int64(0), stolen.Load(), "the other server got a request")
			assert.Equal(t, len(allOps), srv.Count())
			assert.Nil(t, hc.CheckRedirect, "the caller's client is not mutated")
		})
	}
}

// TestResponseHeaderCap: the SDK's own transport refuses an answer whose
// headers exceed 64 KiB instead of holding megabytes of them.
func TestResponseHeaderCap(t *testing.T) {
	t.Parallel()
	tr := upicollect.DefaultHTTPClient().Transport.(*http.Transport)
	assert.Equal(t, int64(64<<10), tr.MaxResponseHeaderBytes)
	tr.CloseIdleConnections()

	for _, tc := range []struct {
		name  string
		bytes int
		ok    bool
	}{{"small", 48 << 10, true}, {"huge", 256 << 10, false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("X-Padding", strings.Repeat("a", tc.bytes))
				respond(w, http.StatusOK, successBody(t, opStatus))
			})
			c, _ := newClient(t, srv.BaseURL(), noRetry())
			t.Cleanup(c.CloseIdleConnections)
			st, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
			if tc.ok {
				require.NoError(t, err)
				assert.True(t, st.Paid())
				return
			}
			require.Error(t, err)
			assert.Nil(t, st)
			assert.Contains(t, err.Error(), "exceeded")
		})
	}
}

// connCounter counts the connections a test server accepts and the most
// requests it handles at once.
type connCounter struct {
	opened            atomic.Int64
	active, maxActive atomic.Int64
}

func (cc *connCounter) track(_ net.Conn, s http.ConnState) {
	if s == http.StateNew {
		cc.opened.Add(1)
	}
}

// connServer starts a loopback server whose connections cc counts (and
// whose closed connections are sent on closed, when not nil).
func connServer(t *testing.T, cc *connCounter, closed chan<- struct{}, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(conn net.Conn, s http.ConnState) {
		cc.track(conn, s)
		if s == http.StateClosed && closed != nil {
			closed <- struct{}{}
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// TestMaxConns: calls beyond WithMaxConns queue for a connection. Handlers
// block until n requests are in, so that without the bound every call
// would open its own connection; with it, no more than n are ever opened.
func TestMaxConns(t *testing.T) {
	t.Parallel()
	const n, calls = 2, 8
	var cc connCounter
	var served atomic.Int64
	arrived := make(chan struct{}, calls)
	release := make(chan struct{})
	srv := connServer(t, &cc, nil, func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		cur := cc.active.Add(1)
		defer cc.active.Add(-1)
		for m := cc.maxActive.Load(); cur > m && !cc.maxActive.CompareAndSwap(m, cur); m = cc.maxActive.Load() {
		}
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		respond(w, http.StatusOK, successBody(t, opStatus))
	})
	c, _ := newClient(t, srv.URL, upicollect.WithMaxConns(n), noRetry())
	t.Cleanup(c.CloseIdleConnections)

	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	errs := make(chan error, calls)
	for i := 0; i < calls; i++ {
		go func() {
			_, err := c.CheckPaymentStatus(ctx, testStatusOrder)
			errs <- err
		}()
	}
	for i := 0; i < n; i++ {
		select {
		case <-arrived:
		case <-ctx.Done():
			t.Fatalf("only %d of %d requests arrived", i, n)
		}
	}
	close(release)
	for i := 0; i < calls; i++ {
		select {
		case err := <-errs:
			assert.NoError(t, err)
		case <-ctx.Done():
			t.Fatalf("%d of %d calls returned", i, calls)
		}
	}
	assert.LessOrEqual(t, cc.opened.Load(), int64(n), "connections opened")
	assert.LessOrEqual(t, cc.maxActive.Load(), int64(n), "requests handled at once")
	assert.Equal(t, int64(calls), served.Load())
}

// TestDefaultMaxConns: the SDK's own transport bounds connections to the
// host, idle and in use, at DefaultMaxConns.
func TestDefaultMaxConns(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 64, upicollect.DefaultMaxConns)
	tr := upicollect.DefaultHTTPClient().Transport.(*http.Transport)
	assert.Equal(t, upicollect.DefaultMaxConns, tr.MaxConnsPerHost)
	assert.Equal(t, upicollect.DefaultMaxConns, tr.MaxIdleConnsPerHost)
	assert.GreaterOrEqual(t, tr.MaxIdleConns, upicollect.DefaultMaxConns)
}

// TestCloseIdleConnections: the client's idle connection is closed, and
// the client still works afterwards on a new one.
func TestCloseIdleConnections(t *testing.T) {
	t.Parallel()
	closed := make(chan struct{}, 4)
	var cc connCounter
	srv := connServer(t, &cc, closed, func(w http.ResponseWriter, _ *http.Request) {
		respond(w, http.StatusOK, successBody(t, opStatus))
	})
	c, _ := newClient(t, srv.URL)
	_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
	require.NoError(t, err)
	c.CloseIdleConnections()
	select {
	case <-closed:
	case <-time.After(waitBound):
		t.Fatal("the idle connection was not closed")
	}
	_, err = c.CheckPaymentStatus(context.Background(), testStatusOrder)
	require.NoError(t, err)
	assert.Equal(t, int64(2), cc.opened.Load())
	c.CloseIdleConnections()
}

// TestCloseIdleConnectionsCallersClient: with WithHTTPClient the caller's
// transport is asked to close its idle connections.
func TestCloseIdleConnectionsCallersClient(t *testing.T) {
	t.Parallel()
	rt := &idleCloser{}
	c, _ := newClient(t, "https://api.example.com", upicollect.WithHTTPClient(&http.Client{Transport: rt}))
	c.CloseIdleConnections()
	assert.Equal(t, int64(1), rt.closes.Load())
}

type idleCloser struct{ closes atomic.Int64 }

func (*idleCloser) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("not used")
}
func (ic *idleCloser) CloseIdleConnections() { ic.closes.Add(1) }

// TestZeroClientPanicsClearly: every method of a nil or zero Client panics
// with a message that says what to do, not a bare nil dereference.
func TestZeroClientPanicsClearly(t *testing.T) {
	t.Parallel()
	const want = "upicollect: nil or zero Client: create one with NewClient"
	ctx := context.Background()
	in := validInput()
	for name, c := range map[string]*upicollect.Client{"nil": nil, "zero": {}} {
		for method, call := range map[string]func(){
			"CreatePaymentIntent":  func() { _, _ = c.CreatePaymentIntent(ctx, in.intent()) },
			"CreatePaymentRequest": func() { _, _ = c.CreatePaymentRequest(ctx, in.request()) },
			"CreatePaymentLink":    func() { _, _ = c.CreatePaymentLink(ctx, in.link()) },
			"CheckPaymentStatus":   func() { _, _ = c.CheckPaymentStatus(ctx, testStatusOrder) },
			"WaitForPayment":       func() { _, _ = c.WaitForPayment(ctx, testStatusOrder) },
			"Do":                   func() { _, _ = c.Do(ctx, "/v1/payments/refund", nil, nil) },
			"CloseIdleConnections": func() { c.CloseIdleConnections() },
			"BaseURL":              func() { _ = c.BaseURL() },
			"MID":                  func() { _ = c.MID() },
		} {
			assert.PanicsWithValue(t, want, call, "%s client, %s", name, method)
		}
		assert.NotPanics(t, func() { _ = fmt.Sprint(c) }, "printing a %s client", name)
	}
}

// TestDefaultRetryBudget: the default budget allows DefaultRetryBudget /
// 5 = 100 retries while the service keeps failing, then none.
func TestDefaultRetryBudget(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 500, upicollect.DefaultRetryBudget)
	srv := newTestServer(t, always(http.StatusInternalServerError, loadResponse(t, "server_error_500.json")))
	c, _ := newClient(t, srv.BaseURL(), attempts(2))
	const calls = 150
	for i := 0; i < calls; i++ {
		_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
		require.ErrorIs(t, err, upicollect.ErrServer)
	}
	assert.Equal(t, calls+upicollect.DefaultRetryBudget/5, srv.Count(), "one attempt per call, and 100 retries")
}

// TestUserAgentDefault: without WithUserAgent the header is exactly the
// SDK's name, version and Go version.
func TestUserAgentDefault(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, bySuccess(t))
	c, _ := newClient(t, srv.BaseURL())
	_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
	require.NoError(t, err)
	assert.Equal(t, "upicollect-go/"+upicollect.Version+" ("+runtime.Version()+")", srv.Last(t).Header.Get("User-Agent"))
}
