package sandbox

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/internal/testkit/rawhttp"
)

// replay sends a request recorded from a vendor client
// (testdata/vendor/*.http) to s byte for byte, with its host, MID and
// Authorization filled in.
func replay(t *testing.T, s *Server, file string) answer {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "vendor", file))
	require.NoError(t, err)
	c := s.Credentials()
	msg, err := rawhttp.Message(raw, map[string]string{"HOST": strings.TrimPrefix(s.URL(), "http://"),
		"MID": c.MID, "AUTHORIZATION": basic(c.PublicKey, c.SecretKey)})
	require.NoError(t, err)
	return rawExchange(t, s, msg)
}

// TestVendorCheckout replays what the vendor's PHP SDK, WooCommerce plugin
// and WHMCS module send to createOrderRequest, then does what their code
// does next: send the payer to payment_url, where the payer picks an app
// and pays (or fails, or rejects), follow the payer back to redirect_url
// exactly as given, read the shop's own reference from it, and confirm
// with the status check.
func TestVendorCheckout(t *testing.T) {
	tests := []struct {
		file, orderID, redirect string
		amount                  float64
		shopRef, shopValue      string // what the shop reads back from redirect_url
	}{
		{"php_sdk_createOrderRequest.http", "utz_6651f0c3a2b7e",
			"https://merchant.example/payment/return.php?ref=INV-1042", 499, "ref", "INV-1042"},
		{"woocommerce_createOrderRequest.http", "utz_6651f0d91c4f2",
			"https://shop.example/wc-api/WC_Gateway_Upitz/?order_id=1287&txn_id=utz_6651f0d91c4f2", 1234, "order_id", "1287"},
		{"whmcs_createOrderRequest.http", "utz_6651f12e0b3a9",
			"https://billing.example.com/viewinvoice.php?id=3391&paymentsuccess=true", 123, "id", "3391"},
	}
	for _, tt := range tests {
		for _, result := range []string{StatusSuccess, StatusFail, StatusReject} {
			name := strings.TrimSuffix(tt.file, ".http")
			t.Run(name+"/"+result, func(t *testing.T) {
				s := fixed(t)
				a := replay(t, s, tt.file)
				require.Equal(t, 200, a.code, "%s", a.body)
				assert.Equal(t, "application/json", a.header.Get("Content-Type"))
				if result == StatusSuccess {
					golden(t, s, filepath.Join("vendor", name+".answer"), a)
				}

				// What the plugins read: status true, data.orderId, data.payment_url.
				var created struct {
					Status     bool
					StatusCode int
					Data       struct {
						OrderID    string `json:"orderId"`
						PaymentURL string `json:"payment_url"`
					}
				}
				require.NoError(t, json.Unmarshal(a.body, &created))
				require.True(t, created.Status)
				assert.Equal(t, 200, created.StatusCode)
				assert.Equal(t, tt.orderID, created.Data.OrderID)
				require.True(t, strings.HasPrefix(created.Data.PaymentURL, s.URL()+"/"), created.Data.PaymentURL)

				// The payer at payment_url: a choice of apps, a QR code, the buttons.
				page := get(t, s, strings.TrimPrefix(created.Data.PaymentURL, s.URL()))
				require.Equal(t, 200, page.code)
				html := string(page.body)
				for _, app := range []string{"PhonePe", "Paytm", "Google Pay", "CRED"} {
					assert.Contains(t, html, ">"+app+"</a>")
				}
				assert.Contains(t, html, `href="phonepe://pay?pa=sandbox.merchant@upicollect&amp;pn=Sandbox%20Merchant&amp;am=`)
				assert.Contains(t, html, `<img class="qr" src="/sandbox/qr/`+tt.orderID+`.png"`)
				assert.Contains(t, html, `value="`+result+`"`)
				checkPageBasics(t, page)
				if result == StatusSuccess {
					goldenHTML(t, name+"_checkout", page.body)
				}

				resp, err := noRedirect(s).PostForm(s.URL()+"/sandbox/orders/"+tt.orderID+"/pay",
					url.Values{"result": {result}, "return": {"page"}})
				require.NoError(t, err)
				resp.Body.Close()
				require.Equal(t, http.StatusSeeOther, resp.StatusCode)
				back := resp.Header.Get("Location")
				assert.Equal(t, tt.redirect, back, "redirect_url exactly as the plugin sent it")
				u, err := url.Parse(back)
				require.NoError(t, err)
				assert.Equal(t, tt.shopValue, u.Query().Get(tt.shopRef))

				// The plugin's confirmation: a JSON status check of its order id.
				req := newReq(t, s, OpCheckPaymentStatus, "application/json",
					strings.NewReader(`{"mid":"`+s.Credentials().MID+`","order_id":"`+tt.orderID+`"}`))
				req.SetBasicAuth(s.Credentials().PublicKey, s.Credentials().SecretKey)
				st := send(t, s, req).json(t)
				assert.Equal(t, result, st["txnStatus"])
				assert.Equal(t, result == StatusSuccess, st["status"])
				data := st["data"].(map[string]any)
				assert.Equal(t, tt.amount, data["amount"])
				assert.Equal(t, tt.orderID, data["order_id"])

				// The settled page offers the way back to the shop.
				assert.Contains(t, string(get(t, s, "/sandbox/pay/"+tt.orderID).body), "Return to Sandbox Merchant")
			})
		}
	}
}

func TestOrderRequestRules(t *testing.T) {
	s := fixed(t)
	form := func(kv ...string) url.Values {
		return with(intentForm(s), append([]string{"order_id", "set below"}, kv...)...)
	}
	tests := []struct {
		name string
		form url.Values
		code int
		msg  string
	}{
		{"as an intent", form(), 200, ""},
		{"generated id", without(form(), "order_id"), 200, ""},
		{"+91 and spaces", form("customer_mobile", "+91 98765 43210"), 200, ""},
		{"0 and a hyphen", form("customer_mobile", "098765-43210"), 200, ""},
		{"WHMCS", form("customer_mobile", "+91.9876543210"), 200, ""},
		{"91 run together", form("customer_mobile", "919876543210"), 200, ""},
		{"brackets", form("customer_mobile", "(98765) 43210"), 200, ""},
		{"too short", form("customer_mobile", "98765 4321"), 400, "customer_mobile must be a mobile number"},
		{"another country", form("customer_mobile", "+44 7911 123456"), 400, "customer_mobile must be a mobile number"},
		{"letters", form("customer_mobile", "98765-ABCDE"), 400, "customer_mobile must be a mobile number"},
		{"no redirect", without(form(), "redirect_url"), 400, "redirect_url is required"},
		{"ftp redirect", form("redirect_url", "ftp://shop.example/"), 400, "redirect_url must be an absolute http or https URL"},
		{"paise", form("amount", "99.50"), 400, "amount must be a whole number of rupees"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.form
			if f.Has("order_id") {
				f.Set("order_id", "ord-"+strconv.Itoa(i))
			}
			a := call(t, s, OpCreateOrderRequest, f)
			assert.Equal(t, tt.code, a.code, "%s", a.body)
			if tt.msg != "" {
				assert.Contains(t, a.json(t)["msg"], tt.msg)
			}
		})
	}
	a := call(t, s, OpCreateOrderRequest, form("order_id", "ord-0"))
	assert.Equal(t, 409, a.code, "order ids are shared with intents and requests")
	a = call(t, s, OpCreatePaymentIntent, form("order_id", "ord-0", "customer_mobile", "+91 98765 43210"))
	assert.Equal(t, 400, a.code, "an intent still wants 10 digits, as the document says")

	o, ok := s.Order("ord-2")
	require.True(t, ok)
	assert.Equal(t, KindOrder, o.Kind)
	assert.Equal(t, "+91 98765 43210", o.Customer.Mobile, "kept as typed")
	assert.True(t, o.ExpiresAt.IsZero(), "the checkout page does not expire")
	assert.Regexp(t, `^utz_[0-9a-f]{13}$`, s.Orders()[1].OrderID, "a generated id as live makes them")
}

// TestAfterPayWithoutRedirect: an order without a redirect_url (requests
// and links) sends the payer back to its own page.
func TestAfterPayWithoutRedirect(t *testing.T) {
	s := fixed(t)
	require.Equal(t, 200, call(t, s, OpCreatePaymentRequest, with(requestForm(s), "order_id", "req/2")).code)
	resp, err := noRedirect(s).PostForm(s.URL()+"/sandbox/orders/req%2F2/pay", url.Values{"result": {"SUCCESS"}, "return": {"page"}})
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
	assert.Equal(t, "/sandbox/pay/req%2F2", resp.Header.Get("Location"))
}
