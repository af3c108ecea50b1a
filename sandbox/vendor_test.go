package sandbox

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVendorStyleRequests sends what the vendor's own clients send on the
// wire; each must get the live-like answer, and Strict must refuse the
// extras.
func TestVendorStyleRequests(t *testing.T) {
	tests := []struct {
		name, op, contentType, userAgent string
		body                             func(mid string) string
		strictMsg                        string // "" when Strict accepts it too
	}{
		{"woocommerce json", OpCreatePaymentIntent, "application/json; charset=utf-8", "WordPress/6.4; https://shop.example", func(mid string) string {
			return `{"mid":"` + mid + `","amount":"123.00","order_id":"utz_65a4f3c2b1d0e",` +
				`"redirect_url":"https:\/\/shop.example\/wc-api\/WC_Gateway\/?order_id=77&txn_id=utz_65a4f3c2b1d0e",` +
				`"note":"Order 77","customer_name":"Asha","customer_email":"asha@example.com",` +
				`"customer_mobile":"9876543210","woo_order_id":77}`
		}, "woo_order_id is not accepted by createPaymentIntent"},
		{"php float amount", OpCreatePaymentLink, "application/json", "PHP", func(mid string) string {
			return `{"mid":"` + mid + `","amount":123.0,"note":"n","customer_name":"A","customer_email":"a@example.com","customer_mobile":"9876543210"}`
		}, ""},
		{"typed amount string", OpCreatePaymentRequest, "application/json", "WHMCS", func(mid string) string {
			return `{"mid":"` + mid + `","amount":"499","vpa":"asha@oksbi","note":"n","customer_name":"A","customer_email":"a@example.com","customer_mobile":"9876543210"}`
		}, ""},
		{"mobile app api_key and nulls", OpCreatePaymentIntent, "application/json", "okhttp/4.12", func(mid string) string {
			return `{"mid":"` + mid + `","api_key":"k-123","amount":250,"order_id":null,"redirect_url":"https://app.example/done",` +
				`"note":"n","customer_name":"A","customer_email":"a@example.com","customer_mobile":"9876543210"}`
		}, "api_key is not accepted by createPaymentIntent"},
		{"json null only", OpCheckPaymentStatus, "application/json", "PHP", func(mid string) string {
			return `{"mid":"` + mid + `","order_id":"x","note":null}`
		}, "note is not accepted by checkPaymentStatus"},
		{"android form", OpCreatePaymentIntent, "application/x-www-form-urlencoded", "Mozilla/5.0 (Linux; Android 10; Mobile)", func(mid string) string {
			return "mid=" + mid + "&amount=10&order_id=ORDER_1736935200000_1a2b3c4d&redirect_url=https%3A%2F%2Fapp.example%2Fdone" +
				"&note=n&customer_name=A&customer_email=a%40example.com&customer_mobile=9876543210"
		}, ""},
		{"form with charset", OpCreatePaymentLink, "application/x-www-form-urlencoded; charset=UTF-8", "curl/8", func(mid string) string {
			return "mid=" + mid + "&amount=1.00&note=n&customer_name=A&customer_email=a%40example.com&customer_mobile=9876543210"
		}, ""},
	}
	for _, strict := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/strict=%v", tt.name, strict), func(t *testing.T) {
				opts := []Option{}
				if strict {
					opts = append(opts, Strict())
				}
				s := fixed(t, opts...)
				req := newReq(t, s, tt.op, tt.contentType, strings.NewReader(tt.body(s.Credentials().MID)))
				req.SetBasicAuth(s.Credentials().PublicKey, s.Credentials().SecretKey)
				req.Header.Set("User-Agent", tt.userAgent)
				req.Header.Set("Accept-Encoding", "gzip")
				a := send(t, s, req)
				if strict && tt.strictMsg != "" {
					assert.Equal(t, 400, a.code, "%s", a.body)
					assert.Equal(t, map[string]any{"status": false, "statusCode": 400.0, "msg": tt.strictMsg}, a.json(t))
					return
				}
				assert.Equal(t, 200, a.code, "%s", a.body)
				assert.Equal(t, "application/json", a.header.Get("Content-Type"))
				m := a.json(t)
				assert.EqualValues(t, 200, m["statusCode"])
				if tt.op != OpCheckPaymentStatus { // an unknown order is status:false
					assert.Equal(t, true, m["status"], "%s", a.body)
				}
			})
		}
	}
}

// TestVendorIntentKeepsRedirectAndAmount checks what the WooCommerce
// request stored: the unescaped redirect_url, whole rupees, the given id.
func TestVendorIntentKeepsRedirectAndAmount(t *testing.T) {
	s := fixed(t)
	body := `{"mid":"` + s.Credentials().MID + `","amount":"123.00","order_id":"utz_65a4f3c2b1d0e",` +
		`"redirect_url":"https:\/\/shop.example\/wc-api\/WC_Gateway\/?order_id=77","note":"n","customer_name":"A",` +
		`"customer_email":"a@example.com","customer_mobile":"9876543210","woo_order_id":77}`
	req := newReq(t, s, OpCreatePaymentIntent, "application/json; charset=utf-8", strings.NewReader(body))
	req.SetBasicAuth(s.Credentials().PublicKey, s.Credentials().SecretKey)
	golden(t, s, "vendor_woocommerce_intent", send(t, s, req))
	o, ok := s.Order("utz_65a4f3c2b1d0e")
	require.True(t, ok)
	assert.Equal(t, int64(12300), o.AmountPaise)
	assert.Equal(t, "https://shop.example/wc-api/WC_Gateway/?order_id=77", o.RedirectURL)
}

// TestHTTP10 speaks HTTP/1.0 over a raw connection, as WordPress's
// transport can, without a Host header: the answer's links still point at
// the sandbox.
func TestHTTP10(t *testing.T) {
	s := fixed(t)
	c := s.Credentials()
	body := `{"mid":"` + c.MID + `","amount":"5.00","note":"n","customer_name":"A","customer_email":"a@example.com","customer_mobile":"9876543210"}`
	a := rawExchange(t, s, []byte(fmt.Sprintf("POST /v1/payments/createPaymentLink HTTP/1.0\r\nAuthorization: %s\r\n"+
		"Content-Type: application/json; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s",
		basic(c.PublicKey, c.SecretKey), len(body), body)))
	assert.Equal(t, 200, a.code, "%s", a.body)
	assert.Contains(t, string(a.body), `"payment_link":"`+s.URL()+`/sandbox/pay/utz_`)
}
