package upicollect_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/internal/testkit/rawhttp"
	"github.com/upicollect/upicollect-go/sandbox"
)

// vendorCase is one of the vendor's server-side clients, as recorded in
// the sandbox's golden files (sandbox/testdata/vendor): the body it sends
// to createOrderRequest and what its code does with the answer.
type vendorCase struct {
	name     string // file prefix in sandbox/testdata/vendor
	orderID  string // the utz_ id it sends (PHP uniqid)
	amount   upicollect.Money
	redirect string // redirect_url exactly as sent, slashes unescaped
}

var vendorCases = []vendorCase{
	{name: "php_sdk", orderID: "utz_6651f0c3a2b7e", amount: upicollect.Rupees(499),
		redirect: "https://merchant.example/payment/return.php?ref=INV-1042"},
	{name: "woocommerce", orderID: "utz_6651f0d91c4f2", amount: upicollect.Rupees(1234),
		redirect: "https://shop.example/wc-api/WC_Gateway_Upitz/?order_id=1287&txn_id=utz_6651f0d91c4f2"},
	{name: "whmcs", orderID: "utz_6651f12e0b3a9", amount: upicollect.Rupees(123),
		redirect: "https://billing.example.com/viewinvoice.php?id=3391&paymentsuccess=true"},
}

// replayVendor sends a recorded vendor request (request line, headers, a
// blank line, the JSON body) to the sandbox over a raw connection, byte for
// byte (HTTP/1.0 for WordPress), with the sandbox's host, MID and
// Authorization filled in, and returns the answer.
func replayVendor(t *testing.T, sb *sandbox.Server, file string) (int, []byte) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("sandbox", "testdata", "vendor", file))
	require.NoError(t, err)
	c := sb.Credentials()
	host := strings.TrimPrefix(sb.URL(), "http://")
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte(c.PublicKey+":"+c.SecretKey))
	msg, err := rawhttp.Message(raw, map[string]string{"HOST": host, "MID": c.MID, "AUTHORIZATION": auth})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	resp, b, err := rawhttp.Exchange(ctx, host, msg)
	require.NoError(t, err)
	return resp.StatusCode, b
}

// vendorBody is the JSON body of a recorded vendor request.
func vendorBody(t *testing.T, file string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("sandbox", "testdata", "vendor", file))
	require.NoError(t, err)
	body, err := rawhttp.Body(raw)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(body, &m))
	return m
}

// TestVendorBodiesFinishACheckout: the bodies the vendor's PHP SDK,
// WooCommerce plugin and WHMCS module send to createOrderRequest (JSON,
// "123.00", a utz_ order id, woo_order_id, the phone as typed) get answers
// their code reads (status, data.orderId, data.payment_url); the payer pays
// at payment_url and comes back to redirect_url exactly as sent; and the
// checkout finishes: this SDK, given the plugin's order id, sees it unknown
// before the payment and paid, for the plugin's amount, after it. The same
// values through CreateOrderRequest get the same kind of answer.
func TestVendorBodiesFinishACheckout(t *testing.T) {
	t.Parallel()
	for _, vc := range vendorCases {
		t.Run(vc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), waitBound)
			defer cancel()
			sb := sandbox.Start(t)
			client := sb.Client()

			// The plugin's create, as recorded.
			code, body := replayVendor(t, sb, vc.name+"_createOrderRequest.http")
			require.Equal(t, http.StatusOK, code, "%s", body)
			var created struct {
				Status     bool   `json:"status"`
				StatusCode int    `json:"statusCode"`
				Msg        string `json:"msg"`
				Data       struct {
					OrderID    string `json:"orderId"`
					PaymentURL string `json:"payment_url"`
				} `json:"data"`
			}
			require.NoError(t, json.Unmarshal(body, &created))
			require.True(t, created.Status)
			assert.Equal(t, 200, created.StatusCode)
			assert.Equal(t, "Order request created successfully", created.Msg)
			assert.Equal(t, vc.orderID, created.Data.OrderID)
			payURL, err := url.Parse(created.Data.PaymentURL)
			require.NoError(t, err)
			assert.Equal(t, "http", payURL.Scheme)
			assert.Equal(t, strings.TrimPrefix(sb.URL(), "http://"), payURL.Host)

			// Before the payer acts, the order is pending, and "not found"
			// in the service's own words.
			st, err := client.CheckPaymentStatus(ctx, vc.orderID)
			require.NoError(t, err)
			assert.Equal(t, upicollect.TxnPending, st.TxnStatus)
			assert.True(t, st.NotFound)

			// The payer at payment_url, then pays; the page sends them back
			// to redirect_url exactly as the plugin sent it.
			payer := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			defer payer.CloseIdleConnections()
			page, err := payer.Get(created.Data.PaymentURL)
			require.NoError(t, err)
			page.Body.Close()
			assert.Equal(t, http.StatusOK, page.StatusCode)
			resp, err := payer.PostForm(sb.URL()+"/sandbox/orders/"+url.PathEscape(vc.orderID)+"/pay",
				url.Values{"result": {"SUCCESS"}, "return": {"page"}})
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, http.StatusSeeOther, resp.StatusCode)
			assert.Equal(t, vc.redirect, resp.Header.Get("Location"))

			// The checkout finishes: paid, for the amount the plugin asked.
			st, err = client.WaitForPayment(ctx, vc.orderID, upicollect.WithUnknownOrderTimeout(time.Minute))
			require.NoError(t, err)
			require.True(t, st.Paid())
			assert.False(t, st.NotFound)
			assert.Equal(t, vc.amount, st.Amount)
			assert.NotEmpty(t, st.UTR)

			// The same order through this SDK: the plugin's values, a new
			// order id, the phone as the shopper typed it.
			vb := vendorBody(t, vc.name+"_createOrderRequest.http")
			assert.Equal(t, vc.redirect, vb["redirect_url"], "the recorded body's redirect_url")
			or, err := client.CreateOrderRequest(ctx, &upicollect.OrderRequestParams{
				Amount:      vc.amount,
				RedirectURL: vb["redirect_url"].(string),
				Note:        vb["note"].(string),
				Customer: upicollect.Customer{Name: vb["customer_name"].(string),
					Email: vb["customer_email"].(string), Mobile: vb["customer_mobile"].(string)},
			})
			if vc.name == "whmcs" {
				// "+91.9876543210": the SDK's rule takes spaces and hyphens
				// only, and says so before sending anything.
				var verr *upicollect.ValidationError
				require.ErrorAs(t, err, &verr)
				_, ok := verr.Field("customer_mobile")
				assert.True(t, ok)
				return
			}
			require.NoError(t, err)
			assert.Regexp(t, newOrderIDPattern, or.OrderID, "the client set it (NewOrderID)")
			assert.Equal(t, sb.URL()+"/sandbox/pay/"+or.OrderID, or.PaymentURL)
			assert.Equal(t, created.Msg, or.Message)
		})
	}
}
