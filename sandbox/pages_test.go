package sandbox

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/internal/mask"
)

// noRedirect is an http.Client that shows redirects instead of following.
func noRedirect(s *Server) *http.Client {
	c := s.HTTPClient()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

func get(t *testing.T, s *Server, path string) answer {
	t.Helper()
	resp, err := s.HTTPClient().Get(s.URL() + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{resp.StatusCode, resp.Header, b}
}

func TestHostedPage(t *testing.T) {
	s := fixed(t, WithMerchant("Chai & Co", "chai.co@okicici"))
	call(t, s, OpCreatePaymentRequest, with(requestForm(s), "order_id", "p/1"))

	a := get(t, s, "/sandbox/pay/p%2F1")
	require.Equal(t, 200, a.code)
	assert.Equal(t, "text/html; charset=utf-8", a.header.Get("Content-Type"))
	html := string(a.body)
	for _, want := range []string{
		`<meta name="viewport" content="width=device-width, initial-scale=1">`,
		`₹250.00`, `Invoice 7`, `Chai &amp; Co`, `chai.co@okicici`,
		`r***@example.com`, `******3210`, `ra***@oksbi`,
		`<img class="qr" src="/sandbox/qr/p%2F1.png"`,
		`<form method="post" action="/sandbox/orders/p%2F1/pay"`,
		`<input type="hidden" name="return" value="page">`,
		`name="result" value="SUCCESS">Pay ₹250.00</button>`,
		`name="result" value="FAIL">Fail</button>`,
		`name="result" value="REJECT">Reject</button>`,
		`href="upi://pay?pa=chai.co@okicici&amp;pn=Chai%20%26%20Co`,
	} {
		assert.Contains(t, html, want)
	}
	assert.NotContains(t, html, "ravi@example.com")
	assert.NotContains(t, html, "9876543210")
	assert.NotContains(t, html, "ravi.kumar@oksbi")
	assert.NotContains(t, html, "<script")
	assert.NotContains(t, html, "http://", "no external assets")

	// Pressing Pay on a request: back to the page, which shows the result.
	resp, err := noRedirect(s).PostForm(s.URL()+"/sandbox/orders/p%2F1/pay", url.Values{"result": {"SUCCESS"}, "return": {"page"}})
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
	assert.Equal(t, "/sandbox/pay/p%2F1", resp.Header.Get("Location"))
	o, _ := s.Order("p/1")
	html = string(get(t, s, "/sandbox/pay/p%2F1").body)
	assert.Contains(t, html, `<div class="status SUCCESS">SUCCESS</div>`)
	assert.Contains(t, html, o.UTR)
	assert.NotContains(t, html, "<form")

	// Pressing Pay again: the page says why nothing happened.
	resp, err = noRedirect(s).PostForm(s.URL()+"/sandbox/orders/p%2F1/pay", url.Values{"return": {"page"}})
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Contains(t, string(b), "order already settled")
}

func TestHostedPageIntentRedirects(t *testing.T) {
	tests := []struct {
		name, redirect, result, location string
	}{
		{"pay", "https://shop.example/done", "SUCCESS", "https://shop.example/done?order_id=i-1"},
		{"fail keeps query", "https://shop.example/done?cart=9", "FAIL", "https://shop.example/done?cart=9&order_id=i-1"},
		{"reject", "http://127.0.0.1:9/back", "REJECT", "http://127.0.0.1:9/back?order_id=i-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fixed(t)
			call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "i-1", "redirect_url", tt.redirect))
			html := string(get(t, s, "/sandbox/pay/i-1").body)
			assert.Contains(t, html, "₹499.00")
			assert.Contains(t, html, "2025-01-15 15:35:00 IST")

			resp, err := noRedirect(s).PostForm(s.URL()+"/sandbox/orders/i-1/pay", url.Values{"result": {tt.result}, "return": {"page"}})
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
			assert.Equal(t, tt.location, resp.Header.Get("Location"))
			o, _ := s.Order("i-1")
			assert.Equal(t, tt.result, o.Status)

			html = string(get(t, s, "/sandbox/pay/i-1").body)
			assert.Contains(t, html, `href="`+strings.ReplaceAll(tt.location, "&", "&amp;")+`"`, "a way back to the merchant")
		})
	}
}

func TestNotFoundPages(t *testing.T) {
	s := fixed(t)
	a := get(t, s, "/sandbox/pay/nope")
	assert.Equal(t, 404, a.code)
	assert.Contains(t, string(a.body), "Order not found")
	assert.Contains(t, string(a.body), `name="viewport"`)
	assert.Equal(t, 404, get(t, s, "/sandbox/qr/nope.png").code)
	assert.Equal(t, 404, get(t, s, "/sandbox/qr/nope").code)
}

func TestQRCode(t *testing.T) {
	s := fixed(t)
	d := call(t, s, OpCreatePaymentIntent, intentForm(s)).json(t)["data"].(map[string]any)
	a := get(t, s, strings.TrimPrefix(d["dynamicQR"].(string), s.URL()))
	require.Equal(t, 200, a.code)
	assert.Equal(t, "image/png", a.header.Get("Content-Type"))
	img, format, err := image.Decode(bytes.NewReader(a.body))
	require.NoError(t, err)
	assert.Equal(t, "png", format)
	b := img.Bounds()
	assert.Equal(t, b.Dx(), b.Dy(), "square")
	assert.GreaterOrEqual(t, b.Dx(), 200)
	assert.LessOrEqual(t, b.Dx(), 1200)
	// The quiet zone is white and the finder pattern's corner black.
	gray := func(x, y int) uint32 { r, _, _, _ := img.At(x, y).RGBA(); return r }
	assert.Equal(t, uint32(0xffff), gray(0, 0))
	assert.Equal(t, uint32(0), gray(4*qrScale, 4*qrScale))
	_, err = png.DecodeConfig(bytes.NewReader(a.body))
	require.NoError(t, err)

	_, err = qrPNG(strings.Repeat("x", 5000))
	assert.Error(t, err, "too long for any QR version")
}

func TestControlEndpoints(t *testing.T) {
	s := fixed(t)
	call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "c-1"))
	call(t, s, OpCreatePaymentLink, linkForm(s))
	call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "c-3"))

	postPay := func(id string, form url.Values) answer {
		resp, err := s.HTTPClient().PostForm(s.URL()+"/sandbox/orders/"+id+"/pay", form)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return answer{resp.StatusCode, resp.Header, b}
	}
	a := postPay("c-1", nil) // default SUCCESS
	require.Equal(t, 200, a.code, "%s", a.body)
	var o Order
	require.NoError(t, json.Unmarshal(a.body, &o))
	assert.Equal(t, StatusSuccess, o.Status)
	assert.Regexp(t, `^[0-9]{12}$`, o.UTR)
	assert.Equal(t, int64(49900), o.AmountPaise)
	assert.Equal(t, "499.00", o.Amount)

	tests := []struct {
		name, id string
		form     url.Values
		code     int
		msg      string
	}{
		{"settled", "c-1", url.Values{"result": {"FAIL"}}, 409, "already settled"},
		{"unknown", "zzz", nil, 404, "not found"},
		{"bad result", "c-3", url.Values{"result": {"LATER"}}, 400, "result must be"},
		{"bad utr", "c-3", url.Values{"utr": {"12 34"}}, 400, "utr must be"},
		{"bad amount", "c-3", url.Values{"amount": {"1.234"}}, 400, "paid amount must be"},
		{"lower case result, own utr and amount", "c-3", url.Values{"result": {"reject"}, "utr": {"R123"}, "amount": {"1.08"}}, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := postPay(tt.id, tt.form)
			assert.Equal(t, tt.code, a.code, "%s", a.body)
			if tt.msg != "" {
				var e struct{ Error string }
				require.NoError(t, json.Unmarshal(a.body, &e))
				assert.Contains(t, e.Error, tt.msg)
			}
		})
	}

	var orders []Order
	a = get(t, s, "/sandbox/orders")
	require.NoError(t, json.Unmarshal(a.body, &orders))
	require.Len(t, orders, 3)
	assert.Equal(t, "c-1", orders[0].OrderID)
	assert.Equal(t, KindLink, orders[1].Kind)
	assert.Equal(t, StatusReject, orders[2].Status)
	assert.Equal(t, "R123", orders[2].UTR)
	assert.Equal(t, int64(108), orders[2].PaidPaise)

	a = get(t, s, "/sandbox/orders/c-3")
	assert.Equal(t, 200, a.code)
	assert.Equal(t, 404, get(t, s, "/sandbox/orders/zzz").code)

	// A JSON body that is not a form is refused.
	resp, err := s.HTTPClient().Post(s.URL()+"/sandbox/orders/c-3/pay", "application/json", strings.NewReader("[1]"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 400, resp.StatusCode)

	// GET on the pay endpoint is not allowed.
	assert.Equal(t, 405, get(t, s, "/sandbox/orders/c-3/pay").code)

	html := string(get(t, s, "/").body)
	assert.Contains(t, html, `<a href="/sandbox/pay/c-1">c-1</a>`)
	assert.Contains(t, html, DefaultMID)
}

func TestIntentExpiryOnPage(t *testing.T) {
	clock := newFakeClock()
	s := Start(t, WithClock(clock.Now))
	call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "e-1"))
	clock.Advance(DefaultIntentTTL + 1)
	resp, err := s.HTTPClient().PostForm(s.URL()+"/sandbox/orders/e-1/pay", nil)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusGone, resp.StatusCode)
	resp, err = noRedirect(s).PostForm(s.URL()+"/sandbox/orders/e-1/pay", url.Values{"return": {"page"}})
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(b), "intent expired")
}

// TestMountedHandler serves the sandbox from another server: links follow
// the Host the client used, or WithPublicURL.
func TestMountedHandler(t *testing.T) {
	var logs bytes.Buffer
	s := fixed(t, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	outer := httptest.NewServer(s.Handler())
	defer outer.Close()
	req, err := http.NewRequest("POST", outer.URL+"/v1/payments/createPaymentLink", strings.NewReader(linkForm(s).Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(s.Credentials().PublicKey, s.Credentials().SecretKey)
	resp, err := outer.Client().Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(b), `"payment_link":"`+outer.URL+`/sandbox/pay/ORD`)
	assert.Equal(t, 1, s.OrderCount(), "shared state")
	s.Close() // waits for the handler, so the log is complete
	assert.Contains(t, logs.String(), "op=createPaymentLink status=200")

	p := fixed(t, WithPublicURL("https://pay.example"))
	d := call(t, p, OpCreatePaymentRequest, requestForm(p)).json(t)["data"].(map[string]any)
	assert.True(t, strings.HasPrefix(d["payment_url"].(string), "https://pay.example/sandbox/pay/ORD"))
}

func TestMasks(t *testing.T) {
	assert.Equal(t, "r***@example.com", mask.Email("ravi@example.com"))
	assert.Equal(t, "é***@example.com", mask.Email("élan@example.com"))
	assert.Equal(t, "***", mask.Email("nobody"))
	assert.Equal(t, "******3210", mask.Mobile("9876543210"))
	assert.Equal(t, "***", mask.Mobile("321"))
	assert.Equal(t, "ra***@okaxis", mask.VPA("ravi.kumar@okaxis"))
	assert.Equal(t, "***@oksbi", mask.VPA("ü@oksbi"), "a short handle is hidden whole")
	assert.Equal(t, "***", mask.VPA("no-at-sign"))
	assert.Equal(t, "", mask.VPA(""))
}
