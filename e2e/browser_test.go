package e2e

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/device"

	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

const (
	// stepTimeout bounds every chromedp.Run of a test step.
	stepTimeout = 30 * time.Second
	// browserTimeout bounds a browser's whole life, start included: the
	// browser process and its tabs belong to a context derived from it.
	browserTimeout = 3 * time.Minute

	phoneWidth  = 390
	phoneHeight = 844
	phoneScale  = 2 // device pixels per CSS pixel, as on most phones
)

// phone is the emulated device: a 390x844 CSS-pixel mobile viewport with
// touch and a mobile Chrome user agent.
var phone = device.Info{
	Name:      "phone 390x844",
	UserAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36",
	Width:     phoneWidth,
	Height:    phoneHeight,
	Scale:     phoneScale,
	Mobile:    true,
	Touch:     true,
}

// browserPath finds Chromium or Chrome. Without one the test is skipped,
// unless CI=true: CI must run the browser tests (.ci/run installs chromium).
func browserPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const msg = "no browser: none of /usr/bin/chromium, chromium, chromium-browser, google-chrome found " +
		"(install one: apt-get install chromium fonts-dejavu-core)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + "; CI=true requires the browser tests to run")
	}
	t.Skip(msg)
	return ""
}

// testLogger passes chromedp's messages to t.Logf, each distinct message
// once, until the test's cleanup, after which late messages from the
// browser's goroutines are dropped. A browser newer than the pinned
// chromedp's protocol sends values it cannot decode ("could not unmarshal
// event"): that is harmless unless a step then times out.
type testLogger struct {
	mu   sync.Mutex
	t    *testing.T
	done bool
	seen map[string]bool
}

func (l *testLogger) logf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done || l.seen[msg] {
		return
	}
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	l.seen[msg] = true
	l.t.Logf("chromedp: %s (repeats not logged)", msg)
}

// startBrowser starts a headless browser with a fresh profile, closed at
// cleanup, and returns its context for newTab.
func startBrowser(t *testing.T) context.Context {
	t.Helper()
	path := browserPath(t)
	logger := &testLogger{t: t}
	t.Cleanup(func() { // registered first, so it runs after the browser is gone
		logger.mu.Lock()
		logger.done = true
		logger.mu.Unlock()
	})
	profile := t.TempDir() // before the browser's cleanup, so removed after it

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox, // CI runs as root
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(profile),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("no-proxy-server", true), // everything is loopback
		chromedp.Flag("mute-audio", true),
		chromedp.WindowSize(phoneWidth, phoneHeight),
	}
	life, cancelLife := context.WithTimeout(context.Background(), browserTimeout)
	alloc, cancelAlloc := chromedp.NewExecAllocator(life, opts...)
	ctx, cancelBrowser := chromedp.NewContext(alloc, chromedp.WithLogf(logger.logf), chromedp.WithErrorf(logger.logf))
	t.Cleanup(func() {
		// Close the browser gracefully and wait for it to exit, so that it
		// no longer writes to the profile when t.TempDir removes it. A
		// killed browser's helper processes can outlive it for a moment.
		if err := chromedp.Cancel(ctx); err != nil {
			t.Logf("closing the browser: %v", err)
		}
		cancelBrowser()
		cancelAlloc()
		cancelLife()
	})
	// The first Run starts the browser, which lives as long as the context
	// of that Run: life's deadline, not a step's.
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return ctx
}

// newTab opens a tab emulating the phone, closed at cleanup.
func newTab(t *testing.T, browser context.Context) context.Context {
	t.Helper()
	tab, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	if err := chromedp.Run(tab); err != nil { // the tab lives as long as this Run's context
		t.Fatalf("opening a tab: %v", err)
	}
	run(t, tab, "emulating a phone", chromedp.Emulate(phone))
	return tab
}

// run runs actions in the tab under stepTimeout, failing the test on error.
func run(t *testing.T, tab context.Context, what string, actions ...chromedp.Action) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// pageMetrics is what the hosted page looks like in the phone's viewport.
type pageMetrics struct {
	InnerWidth     int     `json:"innerWidth"`
	ScrollWidth    int     `json:"scrollWidth"`
	BodyWidth      int     `json:"bodyScrollWidth"`
	QRComplete     bool    `json:"qrComplete"`
	QRNaturalWidth int     `json:"qrNaturalWidth"`
	QRShownWidth   float64 `json:"qrShownWidth"`
	MinFontPx      float64 `json:"minFontPx"`
	MinFontText    string  `json:"minFontText"`
	MinButtonPx    float64 `json:"minButtonPx"`
	MaxRight       float64 `json:"maxRight"`     // right edge of the rightmost text, CSS px
	MaxRightText   string  `json:"maxRightText"` // and its text
}

const metricsJS = `(() => {
  const qr = document.querySelector('img.qr');
  let minFont = Infinity, minFontText = '', maxRight = 0, maxRightText = '';
  for (const el of document.body.querySelectorAll('*')) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim() !== '');
    const r = el.getBoundingClientRect();
    if (!own || r.width === 0 || r.height === 0) continue;
    const px = parseFloat(getComputedStyle(el).fontSize);
    if (px < minFont) { minFont = px; minFontText = el.textContent.trim().slice(0, 40); }
    if (r.right > maxRight) { maxRight = r.right; maxRightText = el.textContent.trim().slice(0, 40); }
  }
  let minButton = Infinity;
  for (const b of document.querySelectorAll('button')) minButton = Math.min(minButton, b.getBoundingClientRect().height);
  return {
    innerWidth: window.innerWidth,
    scrollWidth: document.documentElement.scrollWidth,
    bodyScrollWidth: document.body.scrollWidth,
    qrComplete: !!qr && qr.complete,
    qrNaturalWidth: qr ? qr.naturalWidth : 0,
    qrShownWidth: qr ? qr.getBoundingClientRect().width : 0,
    minFontPx: minFont === Infinity ? 0 : minFont,
    minFontText: minFontText,
    minButtonPx: minButton === Infinity ? 0 : minButton,
    maxRight: maxRight,
    maxRightText: maxRightText,
  };
})()`

// checkPendingPage checks the hosted page of a pending order as a phone
// shows it: the texts in want are visible, the QR image loaded, nothing
// reaches past the screen's right edge, text is legible and the buttons are
// big enough to tap. It saves a full-page screenshot named name and returns
// the text of the QR code as the screen shows it (decoded from a screenshot
// of the image, scaled as the phone scales it).
func checkPendingPage(t *testing.T, tab context.Context, name string, want ...string) (shownQR string) {
	t.Helper()
	var text string
	var loaded bool
	var m pageMetrics
	var qrShot []byte
	run(t, tab, "waiting for the Pay, Fail and Reject buttons", chromedp.WaitVisible(`form.buttons`, chromedp.ByQuery))
	run(t, tab, "waiting for the QR image to load (naturalWidth > 0)",
		chromedp.Poll(`(() => { const i = document.querySelector('img.qr'); return !!i && i.complete && i.naturalWidth > 0; })()`, &loaded))
	run(t, tab, "reading the hosted page",
		chromedp.Text(`main`, &text, chromedp.ByQuery),
		chromedp.Evaluate(metricsJS, &m),
		chromedp.Screenshot(`img.qr`, &qrShot, chromedp.ByQuery),
	)
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("hosted page does not show %q; its text:\n%s", w, text)
		}
	}
	if !m.QRComplete || m.QRNaturalWidth <= 0 {
		t.Errorf("QR image not loaded: complete %v, naturalWidth %d", m.QRComplete, m.QRNaturalWidth)
	}
	if m.QRShownWidth < 200 || m.QRShownWidth > phoneWidth {
		t.Errorf("QR image shown %.0f px wide, want 200 to %d (scannable, on screen)", m.QRShownWidth, phoneWidth)
	}
	// A mobile browser zooms out to fit content wider than the screen, and
	// then innerWidth grows with it: check against the phone's width too.
	if m.InnerWidth != phoneWidth {
		t.Errorf("window.innerWidth = %d, want the phone's %d: zoomed out to fit content wider than the screen", m.InnerWidth, phoneWidth)
	}
	if m.ScrollWidth > m.InnerWidth || m.ScrollWidth > phoneWidth || m.BodyWidth > phoneWidth {
		t.Errorf("horizontal overflow: scrollWidth %d, body %d, innerWidth %d, phone %d", m.ScrollWidth, m.BodyWidth, m.InnerWidth, phoneWidth)
	}
	if m.MaxRight > phoneWidth+0.5 {
		t.Errorf("text reaches %.0f px, past the phone's right edge at %d: %q", m.MaxRight, phoneWidth, m.MaxRightText)
	}
	if m.MinFontPx < 12 {
		t.Errorf("text at %.1f px is too small on a phone: %q", m.MinFontPx, m.MinFontText)
	}
	if m.MinButtonPx < 44 {
		t.Errorf("a button is %.0f px high, want at least 44 to tap", m.MinButtonPx)
	}
	saveScreenshot(t, tab, name)
	shownQR, located, err := decodeQR(qrShot)
	if err != nil {
		t.Errorf("the QR code as shown on the phone does not decode: %v", err)
	}
	logUnlocated(t, "QR code on the screen", located)
	return shownQR
}

// saveScreenshot takes a full-page PNG screenshot into t.TempDir() and, when
// E2E_SCREENSHOT_DIR is set, there too, and checks it is a PNG as wide as
// the phone's viewport in device pixels.
func saveScreenshot(t *testing.T, tab context.Context, name string) {
	t.Helper()
	var shot []byte
	run(t, tab, "taking a screenshot", chromedp.FullScreenshot(&shot, 100))
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	b := img.Bounds()
	if b.Dx() != phoneWidth*phoneScale {
		t.Errorf("screenshot %dx%d: want %d px wide (%d CSS px at %dx)", b.Dx(), b.Dy(), phoneWidth*phoneScale, phoneWidth, phoneScale)
	}
	if b.Dy() < phoneHeight*phoneScale {
		t.Errorf("screenshot %dx%d: want at least the viewport's %d px high", b.Dx(), b.Dy(), phoneHeight*phoneScale)
	}
	dirs := []string{t.TempDir()}
	if d := os.Getenv("E2E_SCREENSHOT_DIR"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatalf("E2E_SCREENSHOT_DIR: %v", err)
		}
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		p := filepath.Join(d, name+".png")
		if err := os.WriteFile(p, shot, 0o644); err != nil {
			t.Fatalf("saving screenshot: %v", err)
		}
		t.Logf("screenshot %dx%d: %s", b.Dx(), b.Dy(), p)
	}
}

// shop is a merchant's site that intents return to: it records the query
// of each return and shows a page with id "thanks".
type shop struct {
	*httptest.Server
	returns chan url.Values
}

func startShop(t *testing.T) *shop {
	t.Helper()
	sh := &shop{returns: make(chan url.Values, 8)}
	sh.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/thanks" {
			http.NotFound(w, r)
			return
		}
		select {
		case sh.returns <- r.URL.Query():
		default:
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><meta name="viewport" content="width=device-width"><title>Thanks</title>`+
			`<h1 id="thanks">Thanks for order %s</h1>`, html.EscapeString(r.URL.Query().Get("order_id")))
	}))
	t.Cleanup(sh.Close)
	return sh
}

// TestHostedPageIntentPay pays an intent on its hosted page, as a payer on
// a phone would, and follows the redirect back to the merchant.
func TestHostedPageIntentPay(t *testing.T) {
	browser := startBrowser(t)
	s := sandbox.Start(t)
	sh := startShop(t)

	orderID := upicollect.NewOrderID()
	note := "Masala chai ☕ और समोसा"
	in := createIntent(t, s, upicollect.IntentParams{
		Amount:      upicollect.Rupees(499),
		OrderID:     orderID,
		RedirectURL: sh.URL + "/thanks?cart=42",
		Note:        note,
		Customer:    customer,
	})

	tab := newTab(t, browser)
	run(t, tab, "opening the hosted page", chromedp.Navigate(hostedPageURL(s, orderID)))
	shownQR := checkPendingPage(t, tab, "hosted-page-intent", "₹499.00", note, sandbox.DefaultMerchantName,
		customer.Name, maskedEmail, maskedMobile, orderID, "Pay ₹499.00")
	if shownQR != in.Link {
		t.Errorf("the QR code on the screen reads\n  %q\nwant the intent link\n  %q", shownQR, in.Link)
	}

	var loc string
	run(t, tab, "paying and returning to the shop",
		chromedp.Click(`button.pay`, chromedp.ByQuery, chromedp.NodeVisible),
		chromedp.WaitVisible(`#thanks`, chromedp.ByQuery),
		chromedp.Location(&loc),
	)
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatalf("location %q: %v", loc, err)
	}
	if got := u.Scheme + "://" + u.Host + u.Path; got != sh.URL+"/thanks" {
		t.Errorf("browser at %s, want the redirect_url %s/thanks", loc, sh.URL)
	}
	if q := u.Query(); q.Get("order_id") != orderID || q.Get("cart") != "42" {
		t.Errorf("browser at %s, want the redirect_url's query with order_id=%s added", loc, orderID)
	}
	select {
	case q := <-sh.returns:
		if q.Get("order_id") != orderID {
			t.Errorf("shop got order_id %q, want %q", q.Get("order_id"), orderID)
		}
	default:
		t.Error("the shop's server saw no return, though the browser shows its page")
	}

	o, ok := s.Order(orderID)
	if !ok {
		t.Fatalf("sandbox has no order %s", orderID)
	}
	if o.Status != sandbox.StatusSuccess || o.UTR == "" {
		t.Fatalf("order status %s, UTR %q; want SUCCESS with a UTR", o.Status, o.UTR)
	}
	st, err := s.Client().CheckPaymentStatus(apiContext(t), orderID)
	if err != nil {
		t.Fatalf("CheckPaymentStatus: %v", err)
	}
	if !st.Paid() || st.UTR != o.UTR || st.Amount != upicollect.Rupees(499) {
		t.Errorf("status %s, UTR %q, amount %v; want paid, UTR %q, amount ₹499", st.TxnStatus, st.UTR, st.Amount, o.UTR)
	}

	// The hosted page now shows the result and a way back to the merchant.
	var status, text string
	run(t, tab, "reopening the hosted page",
		chromedp.Navigate(hostedPageURL(s, orderID)),
		chromedp.WaitVisible(`.status.SUCCESS`, chromedp.ByQuery),
		chromedp.Text(`.status`, &status, chromedp.ByQuery),
		chromedp.Text(`main`, &text, chromedp.ByQuery),
	)
	if status != "SUCCESS" || !strings.Contains(text, o.UTR) || !strings.Contains(text, "Return to "+sandbox.DefaultMerchantName) {
		t.Errorf("paid page shows status %q and:\n%s\nwant SUCCESS, UTR %s and a return link", status, text, o.UTR)
	}
	saveScreenshot(t, tab, "hosted-page-intent-paid")
}

// TestHostedPageRequestDeclined fails and rejects payment requests on their
// hosted pages: the page then shows the result and the status check agrees.
func TestHostedPageRequestDeclined(t *testing.T) {
	browser := startBrowser(t)
	s := sandbox.Start(t)
	const vpa = "ravi.kumar@okaxis"
	for _, tc := range []struct {
		button string
		want   upicollect.TxnStatus
	}{
		{"fail", upicollect.TxnFail},
		{"reject", upicollect.TxnReject},
	} {
		t.Run(string(tc.want), func(t *testing.T) {
			orderID := upicollect.NewOrderID()
			note := "Cab fare — Bengaluru ✓"
			pr, err := s.Client().CreatePaymentRequest(apiContext(t), &upicollect.RequestParams{
				Amount:   upicollect.Rupees(250),
				OrderID:  orderID,
				VPA:      vpa,
				Note:     note,
				Customer: customer,
			})
			if err != nil {
				t.Fatalf("CreatePaymentRequest: %v", err)
			}
			if pr.PaymentURL != hostedPageURL(s, orderID) {
				t.Errorf("payment_url %q, want the hosted page %q", pr.PaymentURL, hostedPageURL(s, orderID))
			}

			tab := newTab(t, browser)
			run(t, tab, "opening the hosted page", chromedp.Navigate(pr.PaymentURL))
			shownQR := checkPendingPage(t, tab, "hosted-page-request-"+tc.button, "₹250.00", note,
				customer.Name, maskedEmail, maskedMobile, "ra***@okaxis", orderID)
			checkLinkFields(t, shownQR, orderID, upicollect.Rupees(250), note)

			var status, loc string
			run(t, tab, "pressing "+tc.button,
				chromedp.Click(`button.`+tc.button, chromedp.ByQuery, chromedp.NodeVisible),
				chromedp.WaitVisible(`.status.`+string(tc.want), chromedp.ByQuery),
				chromedp.Text(`.status`, &status, chromedp.ByQuery),
				chromedp.Location(&loc),
			)
			if status != string(tc.want) {
				t.Errorf("result page says %q, want %q", status, tc.want)
			}
			if loc != pr.PaymentURL {
				t.Errorf("browser at %s, want back on the hosted page %s", loc, pr.PaymentURL)
			}

			o, ok := s.Order(orderID)
			if !ok || o.Status != string(tc.want) || o.UTR != "" {
				t.Errorf("order %s: found %v, status %s, UTR %q; want %s without a UTR", orderID, ok, o.Status, o.UTR, tc.want)
			}
			st, err := s.Client().CheckPaymentStatus(apiContext(t), orderID)
			if err != nil {
				t.Fatalf("CheckPaymentStatus: %v", err)
			}
			if st.TxnStatus != tc.want || st.Paid() {
				t.Errorf("status check: %s (paid %v), want %s", st.TxnStatus, st.Paid(), tc.want)
			}
			saveScreenshot(t, tab, "hosted-page-request-"+tc.button+"-result")
		})
	}
}
