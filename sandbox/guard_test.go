package sandbox

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHostCheck: the order list, hosted pages and control endpoints answer
// loopback and configured hosts only (DNS rebinding); the API and QR
// images answer any.
func TestHostCheck(t *testing.T) {
	s := Start(t, WithPublicURL("http://laptop.lan:8787"))
	tests := []struct {
		method, path, host string
		want               int
	}{
		{"GET", "/", "evil.example", http.StatusMisdirectedRequest},
		{"GET", "/sandbox/orders", "evil.example:8787", http.StatusMisdirectedRequest},
		{"GET", "/sandbox/orders/x", "127.0.0.1.nip.io", http.StatusMisdirectedRequest},
		{"GET", "/sandbox/variants", "evil.example", http.StatusMisdirectedRequest},
		{"POST", "/sandbox/faults", "evil.example", http.StatusMisdirectedRequest},
		{"POST", "/sandbox/orders/x/pay", "evil.example", http.StatusMisdirectedRequest},
		{"GET", "/sandbox/orders", "localhost:1234", http.StatusOK},
		{"GET", "/sandbox/orders", "app.localhost", http.StatusOK},
		{"GET", "/sandbox/orders", "127.0.0.2", http.StatusOK},
		{"GET", "/sandbox/orders", "[::1]:80", http.StatusOK},
		{"GET", "/sandbox/orders", "LAPTOP.lan:8787", http.StatusOK},
		{"GET", "/sandbox/orders", strings.TrimPrefix(s.URL(), "http://"), http.StatusOK},
		{"GET", "/sandbox/pay/x", "evil.example", http.StatusMisdirectedRequest}, // it shows the customer's name
		{"GET", "/sandbox/pay/x", "LAPTOP.lan:8787", http.StatusNotFound},
		{"GET", "/sandbox/qr/x.png", "evil.example", http.StatusNotFound}, // a QR code of a link: any host
		{"POST", "/v1/payments/checkPaymentStatus", "evil.example", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path+" "+tt.host, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, s.URL()+tt.path, strings.NewReader("result=SUCCESS"))
			require.NoError(t, err)
			req.Host = tt.host
			resp, err := s.HTTPClient().Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, tt.want, resp.StatusCode)
		})
	}
}

// TestPayGuards: the pay endpoint refuses cross-site browser requests and
// requires an explicit result.
func TestPayGuards(t *testing.T) {
	s := Start(t)
	tests := []struct {
		name   string
		header map[string]string
		form   url.Values
		want   int
	}{
		{"no result", nil, url.Values{}, http.StatusBadRequest},
		{"empty result", nil, url.Values{"result": {""}}, http.StatusBadRequest},
		{"cross-site fetch", map[string]string{"Sec-Fetch-Site": "cross-site"}, url.Values{"result": {"SUCCESS"}}, http.StatusForbidden},
		{"same-site fetch", map[string]string{"Sec-Fetch-Site": "same-site"}, url.Values{"result": {"SUCCESS"}}, http.StatusForbidden},
		{"foreign origin", map[string]string{"Origin": "https://evil.example"}, url.Values{"result": {"SUCCESS"}}, http.StatusForbidden},
		{"null origin", map[string]string{"Origin": "null"}, url.Values{"result": {"SUCCESS"}}, http.StatusForbidden},
		{"same origin", map[string]string{"Origin": s.URL(), "Sec-Fetch-Site": "same-origin"}, url.Values{"result": {"FAIL"}}, http.StatusOK},
		{"curl", nil, url.Values{"result": {"SUCCESS"}}, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := call(t, s, OpCreatePaymentLink, linkForm(s)).json(t)["data"].(map[string]any)["payment_link"].(string)
			id = id[strings.LastIndexByte(id, '/')+1:]
			req, err := http.NewRequest("POST", s.URL()+ordersPath+"/"+id+"/pay", strings.NewReader(tt.form.Encode()))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			resp, err := s.HTTPClient().Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, tt.want, resp.StatusCode)
			o, _ := s.Order(id)
			assert.Equal(t, tt.want == http.StatusOK, o.Status != StatusPending, "settled only when allowed")
		})
	}
}

// TestRedirectExactlyAsGiven: after a hosted-page payment the payer goes
// to redirect_url untouched, whatever its query holds.
func TestRedirectExactlyAsGiven(t *testing.T) {
	for _, redirect := range []string{
		"https://shop.example/wc-api/WC_Gateway/?order_id=77&txn_id=utz_1",
		"https://shop.example/return",
		"https://shop.example/r?a=1&a=2&b=%2F#frag",
	} {
		s := Start(t)
		a := call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "i-1", "redirect_url", redirect))
		require.Equal(t, 200, a.code)
		c := s.HTTPClient()
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		resp, err := c.PostForm(s.URL()+ordersPath+"/i-1/pay", url.Values{"result": {"SUCCESS"}, "return": {"page"}})
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
		assert.Equal(t, redirect, resp.Header.Get("Location"))
	}
}

// TestClientRefusesRedirects: like the SDK's default client, the one
// Server.Client builds does not follow a redirect to another host.
func TestClientRefusesRedirects(t *testing.T) {
	s := Start(t)
	other := Start(t)
	s.InjectFault(Fault{Op: OpCheckPaymentStatus, Status: http.StatusTemporaryRedirect, Times: -1,
		Header: http.Header{"Location": {other.URL() + "/v1/payments/checkPaymentStatus"}}})
	_, err := s.Client().CheckPaymentStatus(context.Background(), "x")
	require.Error(t, err)
	assert.Zero(t, len(other.Requests()), "the redirect was not followed")
}

// TestHostedPageRefusesRebindingHost: an order's hosted page shows the
// customer's name; asked for with a Host that is neither loopback nor
// configured (a domain rebound to 127.0.0.1), it answers 421 and shows
// nothing of the order, as its pay POST does. Asked for properly it shows
// the page.
func TestHostedPageRefusesRebindingHost(t *testing.T) {
	s := fixed(t)
	call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "host-1", "customer_name", "Ravi Kumar"))
	page := func(host string) (int, string) {
		req, err := http.NewRequest(http.MethodGet, s.URL()+"/sandbox/pay/host-1", nil)
		require.NoError(t, err)
		req.Host = host
		resp, err := s.HTTPClient().Do(req)
		require.NoError(t, err)
		a := readAnswer(t, resp)
		return a.code, string(a.body)
	}
	status, body := page("evil.example")
	assert.Equal(t, http.StatusMisdirectedRequest, status)
	assert.NotContains(t, body, "Ravi")
	assert.NotContains(t, body, "host-1")
	status, body = page(strings.TrimPrefix(s.URL(), "http://"))
	assert.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, "Ravi Kumar")
}
