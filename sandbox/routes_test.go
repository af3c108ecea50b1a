package sandbox

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRouting checks the route table. The 405s of the sandbox's own paths
// are ServeMux's: its text, and Allow sorted with HEAD beside GET.
func TestRouting(t *testing.T) {
	s := Start(t)
	tests := []struct {
		method, path string
		header       map[string]string
		code         int
		allow, body  string
	}{
		{"GET", "/nope", nil, 404, "", "404 page not found"},
		{"POST", "/v1/payments/a/b", nil, 404, "", `"statusCode":404`},
		{"POST", "/sandbox/orders", nil, 405, "GET, HEAD", "Method Not Allowed"},
		{"PUT", "/sandbox/faults", nil, 405, "DELETE, POST", ""},
		{"HEAD", "/sandbox/orders", nil, 200, "", ""},
		{"DELETE", "/sandbox/faults", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, "", "cross-site"},
		{"DELETE", "/sandbox/faults", nil, 204, "", ""},
		{"GET", "/sandbox/orders/x/pay", nil, 405, "POST", "Method Not Allowed"},
		{"PUT", "/sandbox/stats", nil, 405, "DELETE, GET, HEAD", "Method Not Allowed"},
		{"DELETE", "/sandbox/clock", nil, 405, "GET, HEAD, POST", "Method Not Allowed"},
		{"POST", "/sandbox/clock", nil, 409, "", "cannot be moved"},
		{"GET", "/v1/payments/checkPaymentStatus", nil, 405, "POST", `"statusCode":405`},
		{"GET", "/v1/payments/refund", nil, 404, "", `"msg":"Unknown operation refund"`},
		{"GET", "/sandbox/pay/", nil, 404, "", "404 page not found"},
		{"GET", "/index.html", nil, 404, "", "404 page not found"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, s.URL()+tt.path, nil)
			require.NoError(t, err)
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			resp, err := s.HTTPClient().Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, tt.code, resp.StatusCode, "%s", b)
			assert.Equal(t, tt.allow, resp.Header.Get("Allow"))
			assert.Contains(t, string(b), tt.body)
		})
	}
	assert.Len(t, s.Requests(), len(tests), "every request recorded, routed or not")
}

// TestServiceMounted serves a Service from another server: the state is
// its own and links follow the outer server's host.
func TestServiceMounted(t *testing.T) {
	svc, err := NewService(WithCredentials(credentials("M", "pk", "sk")))
	require.NoError(t, err)
	outer := httptest.NewServer(svc)
	defer outer.Close()
	defer svc.Close()
	req, err := http.NewRequest("POST", outer.URL+"/v1/payments/createPaymentLink", strings.NewReader(
		"mid=M&amount=5&note=n&customer_name=A&customer_email=a%40example.com&customer_mobile=9876543210"))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("pk", "sk")
	resp, err := outer.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, 200, resp.StatusCode, "%s", b)
	assert.Contains(t, string(b), `"payment_link":"`+outer.URL+`/sandbox/pay/utz_`)
	assert.Equal(t, 1, len(svc.Orders()))

	_, err = NewService(WithIntentTTL(-1))
	assert.ErrorContains(t, err, "not positive")
}
