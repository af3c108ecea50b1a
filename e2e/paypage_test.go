package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/upicollect/upicollect-go/sandbox"
)

// exampleStartTimeout bounds building examples/checkout and waiting for it
// to listen.
const exampleStartTimeout = 4 * time.Minute

// checkoutExample is examples/checkout running as its own process against
// a sandbox of the test's.
type checkoutExample struct {
	URL string // where the shop listens: http://127.0.0.1:port
}

// startCheckoutExample builds examples/checkout, runs it on a free loopback
// port against s, and stops it (an interrupt, as Ctrl-C) at cleanup.
func startCheckoutExample(t *testing.T, s *sandbox.Server) *checkoutExample {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), exampleStartTimeout)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "checkout")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/upicollect/upicollect-go/examples/checkout")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building examples/checkout: %v\n%s", err, out)
	}

	creds := s.Credentials()
	life, stop := context.WithCancel(context.Background())
	cmd := exec.CommandContext(life, bin, "-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(),
		"UPICOLLECT_BASE_URL="+s.URL(), "UPICOLLECT_MID="+creds.MID,
		"UPICOLLECT_PUBLIC_KEY="+creds.PublicKey, "UPICOLLECT_SECRET_KEY="+creds.SecretKey)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second // then killed
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting examples/checkout: %v", err)
	}
	var logMu sync.Mutex
	var logText strings.Builder
	addr := make(chan string, 1)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		listening := regexp.MustCompile(`shop on (http://127\.0\.0\.1:\d+)/`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logMu.Lock()
			logText.WriteString(sc.Text() + "\n")
			logMu.Unlock()
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
	}()
	t.Cleanup(func() {
		stop()
		<-readDone // stderr closes when the process has exited
		_ = cmd.Wait()
		logMu.Lock()
		defer logMu.Unlock()
		if t.Failed() {
			t.Logf("examples/checkout's log:\n%s", logText.String())
		}
	})
	select {
	case u := <-addr:
		return &checkoutExample{URL: u}
	case <-readDone:
		t.Fatal("examples/checkout exited before listening")
	case <-ctx.Done():
		t.Fatal("examples/checkout did not say where it listens")
	}
	return nil
}

// navLog records every URL a tab's frames navigate to or are asked to
// navigate to, and every URL it requests: a upi: link a page sends the
// browser to, by a link, a script or a server's redirect, is among them
// though it loads nothing.
type navLog struct {
	mu   sync.Mutex
	urls []string
	seen chan struct{} // signalled after each URL recorded
}

func newNavLog() *navLog { return &navLog{seen: make(chan struct{}, 1)} }

func (n *navLog) listen(ev any) {
	var u string
	switch e := ev.(type) {
	case *page.EventFrameRequestedNavigation:
		u = e.URL
	case *page.EventFrameStartedNavigating:
		u = e.URL
	case *page.EventFrameNavigated:
		u = e.Frame.URL
	case *network.EventRequestWillBeSent:
		u = e.Request.URL
	default:
		return
	}
	n.mu.Lock()
	n.urls = append(n.urls, u)
	n.mu.Unlock()
	select {
	case n.seen <- struct{}{}:
	default:
	}
}

// notWeb returns the recorded URLs that are neither on origin nor data:.
func (n *navLog) notWeb(origin string) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for _, u := range n.urls {
		if u != origin && !strings.HasPrefix(u, origin+"/") && !strings.HasPrefix(u, "data:") {
			out = append(out, u)
		}
	}
	return out
}

// waitFor waits, at most stepTimeout, until a URL is recorded that
// begins with prefix, and reports whether one was.
func (n *navLog) waitFor(prefix string) bool {
	timeout := time.After(stepTimeout)
	for {
		n.mu.Lock()
		for _, u := range n.urls {
			if strings.HasPrefix(u, prefix) {
				n.mu.Unlock()
				return true
			}
		}
		n.mu.Unlock()
		select {
		case <-n.seen:
		case <-timeout:
			return false
		}
	}
}

// TestNavLogSeesUPINavigation proves the check that the pay page never
// sends a laptop to upi: can fail: a link clicked, a script and a server's
// redirect to a upi: link are each recorded.
func TestNavLogSeesUPINavigation(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "upi://pay?pa=shop@upi&am=3.00", http.StatusSeeOther)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html lang="en"><title>x</title><a id="app" href="upi://pay?pa=shop@upi&amp;am=1.00">Pay</a>`)
	}))
	t.Cleanup(srv.Close)
	browser := startBrowser(t)
	for _, tt := range []struct {
		name, want string
		act        func(tb *tab)
	}{
		{"link", "upi://pay?pa=shop@upi&am=1.00", func(tb *tab) {
			open(t, tb, srv.URL+"/")
			run(t, tb, "clicking the link", chromedp.Click(`#app`, chromedp.ByID))
		}},
		{"script", "upi://pay?pa=shop@upi&am=2.00", func(tb *tab) {
			open(t, tb, srv.URL+"/")
			run(t, tb, "assigning location", chromedp.Evaluate(`location.href = "upi://pay?pa=shop@upi&am=2.00"; true`, nil))
		}},
		{"redirect", "upi://pay?pa=shop@upi&am=3.00", func(tb *tab) {
			_ = chromedp.Run(tb, chromedp.Navigate(srv.URL+"/redirect")) // aborted: nothing loads
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tb := newTab(t, browser, laptop1366)
			nav := newNavLog()
			chromedp.ListenTarget(tb, nav.listen)
			tt.act(tb)
			if !nav.waitFor(tt.want) {
				t.Fatalf("navigation log %q: want %s in it", nav.notWeb(srv.URL), tt.want)
			}
			if got := nav.notWeb(srv.URL); len(got) == 0 || !strings.HasPrefix(got[0], "upi:") {
				t.Errorf("notWeb = %q, want the upi: link first", got)
			}
		})
	}
}

// payPageFacts is what the pay page shows on the tab's screen.
type payPageFacts struct {
	ShownApps []struct {
		App, Name, Href string
		Height, Top     float64
	} `json:"shownApps"`
	ShownNonWeb []string `json:"shownNonWeb"` // shown links to anything but http(s)
	AppLinks    int      `json:"appLinks"`    // in the page, shown or not
	QRWidth     float64  `json:"qrWidth"`     // as shown; 0 when hidden
	QRTop       float64  `json:"qrTop"`
	QRLoaded    bool     `json:"qrLoaded"`
	PaidShown   bool     `json:"paidShown"` // "I have paid"
	OrderID     string   `json:"orderID"`
	Generic     string   `json:"generic"` // the generic link's href
}

const payPageFactsJS = `(() => {
  const shown = el => { const r = el.getBoundingClientRect(); return getComputedStyle(el).display !== 'none' && el.offsetParent !== null && r.width > 0 && r.height > 0; };
  const apps = [...document.querySelectorAll('a.app')];
  const qr = document.querySelector('img.qr');
  const paid = [...document.querySelectorAll('a.button')].find(a => a.textContent.trim() === 'I have paid');
  const generic = document.querySelector('a.app[data-app="intent"]');
  return {
    shownNonWeb: [...document.querySelectorAll('a[href]')].filter(a => shown(a) && !/^https?:$/.test(a.protocol)).map(a => a.getAttribute('href')),
    shownApps: apps.filter(shown).map(a => ({app: a.dataset.app, name: a.textContent.trim(), href: a.getAttribute('href'),
      height: a.getBoundingClientRect().height, top: a.getBoundingClientRect().top})),
    appLinks: apps.length,
    qrWidth: qr && shown(qr) ? qr.getBoundingClientRect().width : 0,
    qrTop: qr ? qr.getBoundingClientRect().top : 0,
    qrLoaded: !!qr && qr.complete && qr.naturalWidth > 0,
    paidShown: !!paid && shown(paid),
    orderID: (document.querySelector('main p code') || {}).textContent || '',
    generic: generic ? generic.getAttribute('href') : '',
  };
})()`

// TestCheckoutPayPage drives examples/checkout's pay page in Chromium on a
// 390-pixel phone and a 1366-pixel laptop, for both forms of the dynamic
// QR the sandbox sends (the web address of an image, which the SDK does
// not fetch, and a data:image/png;base64 URL): on the laptop the QR code
// is shown, loaded and reads as the intent's generic link, and no app
// link is shown; on the phone the app buttons come first, named, in
// paypage.Links' order, big enough to tap. No frame ever navigates to
// anything but the shop. "I have paid" after the payment leads to the return page,
// which confirms it. Screenshots: checkout-pay-<variant>-<screen>.png.
func TestCheckoutPayPage(t *testing.T) {
	browserPath(t) // skip before building anything when there is no browser
	for _, tt := range []struct {
		name     string
		variants []string
	}{
		{"drawn", nil},
		{"service-image", []string{sandbox.VariantQRBase64}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := sandbox.Start(t, sandbox.WithVariant(tt.variants...))
			shop := startCheckoutExample(t, s)
			browser := startBrowser(t)
			for _, vp := range []viewport{phone, laptop1366} {
				t.Run(vp.name, func(t *testing.T) {
					tb := newTab(t, browser, vp)
					nav := newNavLog()
					chromedp.ListenTarget(tb, nav.listen)
					open(t, tb, shop.URL+"/")
					run(t, tb, "choosing to pay on the shop's page",
						chromedp.Click(`button[formaction="/checkout/qr"]`, chromedp.ByQuery, chromedp.NodeVisible),
						chromedp.WaitReady(`img.qr`, chromedp.ByQuery))
					var loaded bool
					run(t, tb, "waiting for the QR image to load",
						chromedp.Poll(`(() => { const i = document.querySelector('img.qr'); return !!i && i.complete && i.naturalWidth > 0; })()`, &loaded))
					var f payPageFacts
					run(t, tb, "reading the pay page", chromedp.Evaluate(payPageFactsJS, &f))
					if !regexp.MustCompile(`^ord_[a-z2-7]+$`).MatchString(f.OrderID) {
						var h string
						run(t, tb, "html", chromedp.OuterHTML("html", &h, chromedp.ByQuery))
						t.Fatalf("pay page shows order %q: %+v\n%s", f.OrderID, f, h)
					}
					checkPage(t, tb, shop.URL, "checkout-pay-"+tt.name, "Pay ₹499.00", f.OrderID, "I have paid")
					if f.AppLinks != 5 || !f.PaidShown || !f.QRLoaded {
						t.Errorf("pay page: %d app links, want 5; I have paid shown %v; QR loaded %v", f.AppLinks, f.PaidShown, f.QRLoaded)
					}
					if !vp.mobile {
						checkLaptopPayPage(t, tb, f)
					} else {
						checkPhonePayPage(t, f)
					}

					if _, err := s.Pay(f.OrderID); err != nil {
						t.Fatal(err)
					}
					run(t, tb, "pressing I have paid",
						chromedp.Click(`//a[normalize-space()="I have paid"]`, chromedp.BySearch, chromedp.NodeVisible),
						chromedp.WaitVisible(`//h1[normalize-space()="Thank you!"]`, chromedp.BySearch))
					var loc string
					run(t, tb, "reading the location", chromedp.Location(&loc))
					if want := shop.URL + "/return?ref=" + url.QueryEscape(f.OrderID); loc != want {
						t.Errorf("after I have paid the browser is at %s, want %s", loc, want)
					}
					checkPage(t, tb, shop.URL, "checkout-paid-"+tt.name, "Thank you!", "₹499.00", f.OrderID)
					if bad := nav.notWeb(shop.URL); len(bad) > 0 {
						t.Errorf("the tab navigated away from the shop: %q", bad)
					}
				})
			}
		})
	}
}

// checkLaptopPayPage: the QR code is shown large enough to scan and reads,
// off the screen, as the intent's generic link for ₹499 and the order; no
// app link is shown.
func checkLaptopPayPage(t *testing.T, tb *tab, f payPageFacts) {
	t.Helper()
	if len(f.ShownApps) != 0 || len(f.ShownNonWeb) != 0 {
		t.Errorf("a laptop is shown app links %+v and links %q, want none", f.ShownApps, f.ShownNonWeb)
	}
	if f.QRWidth < 200 || f.QRWidth > float64(tb.vp.width) {
		t.Errorf("QR code shown %.0f px wide, want 200 to %d", f.QRWidth, tb.vp.width)
	}
	var shot []byte
	run(t, tb, "photographing the QR code", chromedp.Screenshot(`img.qr`, &shot, chromedp.ByQuery))
	text, located, err := decodeQR(shot)
	if err != nil {
		t.Fatalf("the QR code on the screen does not decode: %v", err)
	}
	logUnlocated(t, "pay page QR code", located)
	if text != f.Generic || !strings.Contains(text, "am=499.00") || !strings.Contains(text, "tr="+f.OrderID) {
		t.Errorf("the QR code reads %q, want the generic link %q for ₹499.00 and order %s", text, f.Generic, f.OrderID)
	}
}

// checkPhonePayPage: the app buttons are shown, in paypage.Links' order with
// their names, each opening its app's scheme, tall enough to tap, above
// the QR code.
func checkPhonePayPage(t *testing.T, f payPageFacts) {
	t.Helper()
	want := []struct{ name, scheme string }{
		{"PhonePe", "phonepe:"}, {"Google Pay", "tez:"}, {"Paytm", "paytmmp:"}, {"CRED", "credpay:"}, {"Any UPI app", "upi:"},
	}
	if len(f.ShownNonWeb) != len(want) {
		t.Errorf("a phone is shown links %q, want the %d app buttons' only", f.ShownNonWeb, len(want))
	}
	if len(f.ShownApps) != len(want) {
		t.Fatalf("a phone is shown %d app buttons, want %d: %+v", len(f.ShownApps), len(want), f.ShownApps)
	}
	for i, a := range f.ShownApps {
		if a.Name != want[i].name || !strings.HasPrefix(a.Href, want[i].scheme) || !strings.Contains(a.Href, "tr="+f.OrderID) {
			t.Errorf("app button %d: %q -> %q, want %s -> a %s link for order %s", i, a.Name, a.Href, want[i].name, want[i].scheme, f.OrderID)
		}
		if a.Height < 44 {
			t.Errorf("app button %s is %.0f px high, want at least 44 to tap", a.Name, a.Height)
		}
	}
	if last := f.ShownApps[len(f.ShownApps)-1]; last.Top > f.QRTop {
		t.Errorf("the app buttons end at %.0f px, below the QR code at %.0f: the phone's first choice is an app", last.Top, f.QRTop)
	}
}
