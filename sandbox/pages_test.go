package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

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
	return readAnswer(t, resp)
}

func TestHostedPageIntentRedirects(t *testing.T) {
	tests := []struct {
		name, redirect, result, location string
	}{
		{"pay", "https://shop.example/done", "SUCCESS", "https://shop.example/done"},
		{"fail keeps query", "https://shop.example/done?cart=9&b=2&a=1", "FAIL", "https://shop.example/done?cart=9&b=2&a=1"},
		{"reject", "http://127.0.0.1:9/back", "REJECT", "http://127.0.0.1:9/back"},
		{"own order_id kept", "https://shop.example/done?order_id=mine", "SUCCESS", "https://shop.example/done?order_id=mine"},
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
	a := postPay("c-1", nil) // no default result
	require.Equal(t, 400, a.code, "%s", a.body)
	a = postPay("c-1", url.Values{"result": {"SUCCESS"}})
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
		{"unknown", "zzz", url.Values{"result": {"FAIL"}}, 404, "not found"},
		{"bad result", "c-3", url.Values{"result": {"LATER"}}, 400, "result must be"},
		{"bad utr", "c-3", url.Values{"result": {"SUCCESS"}, "utr": {"12 34"}}, 400, "utr must be"},
		{"bad amount", "c-3", url.Values{"result": {"SUCCESS"}, "amount": {"1.234"}}, 400, "paid amount must be"},
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

// TestMountedHandler serves the sandbox from another server: links follow
// the Host the client used, or WithPublicURL.
func TestMountedHandler(t *testing.T) {
	var logs bytes.Buffer
	s := fixed(t, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	outer := httptest.NewServer(s.Service)
	defer outer.Close()
	req, err := http.NewRequest("POST", outer.URL+"/v1/payments/createPaymentLink", strings.NewReader(linkForm(s).Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(s.Credentials().PublicKey, s.Credentials().SecretKey)
	resp, err := outer.Client().Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(b), `"payment_link":"`+outer.URL+`/sandbox/pay/utz_`)
	assert.Equal(t, 1, len(s.Orders()), "shared state")
	s.Close() // waits for the handler, so the log is complete
	assert.Contains(t, logs.String(), "op=createPaymentLink status=200")

	p := fixed(t, WithPublicURL("https://pay.example"))
	d := call(t, p, OpCreatePaymentRequest, requestForm(p)).json(t)["data"].(map[string]any)
	assert.True(t, strings.HasPrefix(d["payment_url"].(string), "https://pay.example/sandbox/pay/"), d["payment_url"])
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

// cardOf returns the page's content, from its card to the end of main: what
// the golden files hold, without the shared head and style.
func cardOf(t *testing.T, page []byte) string {
	t.Helper()
	s := string(page)
	i, j := strings.Index(s, `<div class="card">`), strings.LastIndex(s, `</main>`)
	require.True(t, i >= 0 && j > i, "no card in the page:\n%s", s)
	return s[i:j]
}

// goldenHTML compares the page's card to testdata/pages/name.html.
func goldenHTML(t *testing.T, name string, page []byte) {
	t.Helper()
	got := cardOf(t, page)
	path := filepath.Join("testdata", "pages", name+".html")
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create %s", path)
	assert.Equal(t, string(want), got, "golden %s", path)
}

// checkPageBasics checks what every hosted page has: a language, a title,
// the headers that keep it local, labelled buttons, and nothing fetched from
// elsewhere.
func checkPageBasics(t *testing.T, a answer) {
	t.Helper()
	html := string(a.body)
	assert.Equal(t, "text/html; charset=utf-8", a.header.Get("Content-Type"))
	assert.Equal(t, "no-store", a.header.Get("Cache-Control"))
	assert.Contains(t, a.header.Get("Content-Security-Policy"), "default-src 'none'")
	assert.Contains(t, html, `<html lang="en">`)
	assert.Regexp(t, `<title>[^<]*\S[^<]*</title>`, html)
	assert.Contains(t, html, `<meta name="viewport" content="width=device-width, initial-scale=1">`)
	for _, b := range buttonRe.FindAllStringSubmatch(html, -1) {
		assert.True(t, strings.TrimSpace(b[2]) != "" || strings.Contains(b[1], `aria-label="`), "unlabelled button %s", b[0])
	}
	for _, m := range fetchedRe.FindAllStringSubmatch(html, -1) {
		assert.Regexp(t, `^(/|data:)`, m[1], "page fetches %s", m[0])
	}
	assert.Contains(t, html, `<link rel="icon" href="data:,">`, "no favicon request")
	assert.NotContains(t, html, "<script")
	assert.NotContains(t, html, "@import")
	assert.NotContains(t, html, "url(")
}

var (
	buttonRe  = regexp.MustCompile(`<button([^>]*)>([^<]*)</button>`)
	fetchedRe = regexp.MustCompile(`<(?:img|link|script|iframe|source)\b[^>]*\b(?:src|href)="([^"]*)"`)
)

// pageStates builds one order in each state a hosted page shows.
func pageStates(t *testing.T) (*Server, *ManualClock) {
	t.Helper()
	clock := newFakeClock()
	s := Start(t, WithSeed(1), WithClock(clock.Now), WithIntentTTL(10*time.Minute), WithMerchant("Chai & Co", "chai.co@okicici"))
	call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "utz_65f1c2ab3d4e5", "amount", "100000"))
	call(t, s, OpCreatePaymentRequest, with(requestForm(s), "order_id", "req/1"))
	call(t, s, OpCreatePaymentRequest, with(requestForm(s), "order_id", "req-paid"))
	call(t, s, OpCreatePaymentRequest, with(requestForm(s), "order_id", "req-failed"))
	call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "ord_0123456789abcdefghijklmnop", "amount", "1000"))
	call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "paid-early"))
	_, err := s.SettleWith("req-paid", Settlement{Result: StatusSuccess, UTR: "UTR123456789"})
	require.NoError(t, err)
	_, err = s.SettleWith("paid-early", Settlement{Result: StatusSuccess, UTR: "UTR987654321"})
	require.NoError(t, err)
	_, err = s.SettleWith("req-failed", Settlement{Result: StatusFail})
	require.NoError(t, err)
	clock.Advance(5 * time.Minute)
	call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "fresh", "amount", "999"))
	clock.Advance(5*time.Minute + time.Second) // the first three intents expire; one was paid
	return s, clock
}

func TestHostedPageStates(t *testing.T) {
	s, _ := pageStates(t)
	tests := []struct {
		name, id string
		want     []string
		qr, form bool
	}{
		{"intent_payable", "fresh", []string{"₹999.00", "Expires</dt><dd>2025-01-15 15:45:00 IST", `name="result" value="SUCCESS">Pay ₹999.00</button>`}, true, true},
		{"request_payable", "req/1", []string{"Payment request sent to ra***@oksbi", "approves it in their UPI app"}, false, true},
		{"intent_expired", "utz_65f1c2ab3d4e5", []string{"₹1,00,000.00", `<p class="status EXPIRED">Expired</p>`, "expired at 2025-01-15 15:40:00 IST"}, false, false},
		{"request_success", "req-paid", []string{`<p class="status SUCCESS">SUCCESS</p>`, "UTR <strong>UTR123456789</strong>"}, false, false},
		{"request_fail", "req-failed", []string{`<p class="status FAIL">FAIL</p>`, "no money moved"}, false, false},
		// Paid before its expiry: the page shows the payment, not the expiry,
		// and a way back to the merchant's redirect_url as given.
		{"intent_paid", "paid-early", []string{`<p class="status SUCCESS">SUCCESS</p>`, "Payment to Chai &amp; Co", `<a href="https://shop.example/done">Return to Chai &amp; Co</a>`}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := get(t, s, pagePath(tt.id))
			require.Equal(t, http.StatusOK, a.code)
			checkPageBasics(t, a)
			html := string(a.body)
			for _, w := range tt.want {
				assert.Contains(t, html, w)
			}
			assert.Equal(t, tt.qr, strings.Contains(html, `<img class="qr"`), "QR shown")
			assert.Equal(t, tt.form, strings.Contains(html, "<form"), "payer's buttons shown")
			assert.NotContains(t, html, "ravi@example.com")
			assert.NotContains(t, html, "9876543210")
			assert.NotContains(t, html, "ravi.kumar@oksbi")
			goldenHTML(t, tt.name, a.body)
		})
	}
}

func TestHostedPagePayable(t *testing.T) {
	s, _ := pageStates(t)
	html := string(get(t, s, "/sandbox/pay/fresh").body)
	for _, want := range []string{
		`<title>Pay ₹999.00 to Chai &amp; Co</title>`,
		`<img class="qr" src="/sandbox/qr/fresh.png" alt="UPI QR code to pay ₹999.00 for order fresh"`,
		`href="upi://pay?pa=chai.co@okicici&amp;pn=Chai%20%26%20Co`,
		`<form method="post" action="/sandbox/orders/fresh/pay"`,
		`<input type="hidden" name="return" value="page">`,
		`name="result" value="FAIL">Fail</button>`,
		`name="result" value="REJECT">Reject</button>`,
	} {
		assert.Contains(t, html, want)
	}
	// Every button posts an explicit result.
	assert.Len(t, regexp.MustCompile(`<button [^>]*name="result" value="(SUCCESS|FAIL|REJECT)"`).FindAllString(html, -1), 3)
	assert.Contains(t, string(get(t, s, "/sandbox/pay/req%2F1").body), `action="/sandbox/orders/req%2F1/pay"`)
}

func TestHostedPageExpiresOnTheClock(t *testing.T) {
	clock := newFakeClock()
	s := Start(t, WithClock(clock.Now), WithIntentTTL(time.Minute))
	call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "e-1"))
	clock.Advance(time.Minute) // at the expiry itself it can still be paid
	assert.Contains(t, string(get(t, s, "/sandbox/pay/e-1").body), `<img class="qr"`)
	clock.Advance(time.Nanosecond)
	html := string(get(t, s, "/sandbox/pay/e-1").body)
	assert.Contains(t, html, `<title>Payment expired – Sandbox Merchant</title>`)
	assert.NotContains(t, html, `<img class="qr"`)
	assert.NotContains(t, html, "Pay ₹")
}

// TestHostedPageProblems presses buttons that change nothing: the page says
// why in words, and only the log has the error.
func TestHostedPageProblems(t *testing.T) {
	var logs bytes.Buffer
	clock := newFakeClock()
	s := Start(t, WithClock(clock.Now), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "x-1"))
	call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "x-2"))
	_, err := s.SettleWith("x-1", Settlement{Result: StatusFail})
	require.NoError(t, err)
	clock.Advance(DefaultIntentTTL + time.Second)

	tests := []struct{ id, want string }{
		{"x-1", "This order already has a final status, so nothing changed."},
		{"x-2", "This payment expired before it was paid, so nothing changed."},
	}
	for _, tt := range tests {
		resp, err := noRedirect(s).PostForm(s.URL()+"/sandbox/orders/"+tt.id+"/pay", url.Values{"result": {"SUCCESS"}, "return": {"page"}})
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Contains(t, string(b), `<p class="notice" role="alert">`+tt.want+`</p>`)
		assertNoErrorText(t, string(b))
	}
	s.Close() // waits for the handlers, so the log is complete
	assert.Contains(t, logs.String(), ErrOrderSettled.Error())
	assert.Contains(t, logs.String(), ErrIntentExpired.Error())
}

// assertNoErrorText checks that a page shows none of the sandbox's errors.
func assertNoErrorText(t *testing.T, html string) {
	t.Helper()
	for _, err := range []error{ErrOrderNotFound, ErrOrderSettled, ErrInvalidResult, ErrInvalidUTR, ErrIntentExpired, ErrInvalidAmount} {
		assert.NotContains(t, html, err.Error())
	}
	assert.NotContains(t, html, "sandbox: ")
}

func TestProblemText(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{fmt.Errorf("settling: %w", ErrOrderSettled), "already has a final status"},
		{ErrIntentExpired, "expired before it was paid"},
		{ErrInvalidResult, "Choose Pay, Fail or Reject."},
		{errors.New("open /var/db: permission denied"), "The sandbox could not record that"},
	}
	for _, tt := range tests {
		got := problemText(tt.err)
		if tt.want == "" {
			assert.Empty(t, got)
			continue
		}
		assert.Contains(t, got, tt.want)
		assert.NotContains(t, got, tt.err.Error())
	}
}

// TestRenderFailure: a page that cannot be drawn answers an apology, and
// the log has the error.
func TestRenderFailure(t *testing.T) {
	var logs bytes.Buffer
	s := fixed(t, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	w := httptest.NewRecorder()
	s.render(w, httptest.NewRequest("GET", "/sandbox/pay/x", nil), http.StatusOK, "order.html", struct{ Title string }{"x"})
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.Equal(t, "The sandbox could not show this page. Its log says why.\n", w.Body.String())
	assert.Contains(t, logs.String(), "hosted page failed")
	assert.Contains(t, logs.String(), "template=order.html")
	assert.Contains(t, logs.String(), "can't evaluate field")
}

func TestNotFoundPage(t *testing.T) {
	s := fixed(t)
	a := get(t, s, "/sandbox/pay/%3Cb%3Enope")
	assert.Equal(t, http.StatusNotFound, a.code)
	checkPageBasics(t, a)
	html := string(a.body)
	assert.Contains(t, html, `<title>Order not found – sandbox</title>`)
	assert.Contains(t, html, `<a href="/">See all orders in this sandbox</a>`)
	assert.Contains(t, html, `<strong>&lt;b&gt;nope</strong>`, "the id escaped")
	assertNoErrorText(t, html)
	goldenHTML(t, "notfound", a.body)
}

func TestIndexPage(t *testing.T) {
	empty := get(t, fixed(t), "/")
	checkPageBasics(t, empty)
	assert.Contains(t, string(empty.body), "No orders yet.")

	s, _ := pageStates(t)
	a := get(t, s, "/")
	require.Equal(t, http.StatusOK, a.code)
	checkPageBasics(t, a)
	html := string(a.body)
	assert.Contains(t, html, `<title>Orders – Chai &amp; Co sandbox</title>`)
	assert.Contains(t, html, `<main class="wide">`)
	assert.Contains(t, html, `<a href="/sandbox/pay/req%2F1">req/1</a>`)
	assert.Contains(t, html, `<td class="num">₹1,00,000.00</td>`)
	assert.Contains(t, html, `<td class="st PENDING">PENDING<span class="sub">expired</span></td>`)
	assert.Equal(t, 2, strings.Count(html, "expired</span>"), "the two old unpaid intents")
	assert.Contains(t, html, `<td class="st SUCCESS">SUCCESS</td><td class="at"><span class="lbl">created </span>2025-01-15 15:30:00 IST</td></tr>
<tr><td class="id"><a href="/sandbox/pay/fresh">`, "the old paid intent")
	assert.Contains(t, html, `<td class="st PENDING">PENDING</td><td class="at"><span class="lbl">created </span>2025-01-15 15:35:00 IST</td></tr>`,
		"each order's creation in India time")
	assert.Contains(t, html, `Sandbox time <span class="now">2025-01-15 15:40:01 IST</span>.`, "the sandbox's own time")
	goldenHTML(t, "index", a.body)
}

// TestQRCodeTooLong: a note too long for any QR code gets an apology, and
// the log has the error.
// TestQRShownWidth: the hosted page shows its code at the least whole
// number of pixels per module that is qrShown wide or wider, so no module
// is drawn a pixel wider than its neighbours.
func TestQRShownWidth(t *testing.T) {
	tests := []struct {
		name string
		text string
		want int
	}{
		{"33 modules: 8 pixels each", "upi://pay?pa=a@b", 33 * 8},
		{"45 modules: 6 pixels each", "upi://pay?pa=a@b&am=1.00&tn=" + strings.Repeat("x", 40), 45 * 6},
		{"69 modules: 4 pixels each, not 260 pixels' 3 or 4", "upi://pay?" + strings.Repeat("x", 210), 69 * 4},
		{"too long for a code", strings.Repeat("x", 5000), qrShown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, qrShownWidth(tt.text))
		})
	}
}

func TestQRCodeTooLong(t *testing.T) {
	var logs bytes.Buffer
	s := fixed(t, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "long", "note", strings.Repeat("x", 5000)))
	a := get(t, s, "/sandbox/qr/long.png")
	assert.Equal(t, http.StatusInternalServerError, a.code)
	assert.Equal(t, "The sandbox could not draw this QR code. Its log says why.\n", string(a.body))
	s.Close() // waits for the handlers, so the log is complete
	assert.Contains(t, logs.String(), "QR code failed")
	assert.Contains(t, logs.String(), "order_id=long")
}
