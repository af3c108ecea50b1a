package e2e

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

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
		fmt.Fprintf(w, `<!doctype html><html lang="en"><meta name="viewport" content="width=device-width"><title>Thanks</title>`+
			`<h1 id="thanks">Thanks for cart %s</h1>`, html.EscapeString(r.URL.Query().Get("cart")))
	}))
	t.Cleanup(sh.Close)
	return sh
}

// forEachScreen runs check as a subtest on a new tab for each screen.
func forEachScreen(t *testing.T, check func(t *testing.T, tb *tab)) {
	t.Helper()
	browser := startBrowser(t)
	for _, vp := range screens {
		t.Run(vp.name, func(t *testing.T) { check(t, newTab(t, browser, vp)) })
	}
}

// TestHostedPageIntentPay pays an intent on its hosted page, as a payer
// would, and follows the redirect back to the merchant's redirect_url,
// which the browser reaches exactly as the merchant gave it.
func TestHostedPageIntentPay(t *testing.T) {
	s := sandbox.Start(t)
	sh := startShop(t)
	forEachScreen(t, func(t *testing.T, tb *tab) {
		orderID := upicollect.NewOrderID()
		note := "Masala chai ☕ और समोसा"
		redirect := sh.URL + "/thanks?cart=42"
		in := createIntent(t, s, upicollect.IntentParams{
			Amount: upicollect.Rupees(100000), OrderID: orderID, RedirectURL: redirect, Note: note, Customer: customer,
		})
		open(t, tb, hostedPageURL(s, orderID))
		shownQR := checkPendingPage(t, tb, s.URL(), "intent-pending", "₹1,00,000.00", note, sandbox.DefaultMerchantName,
			customer.Name, maskedEmail, maskedMobile, orderID, "Pay ₹1,00,000.00", "Expires")
		if shownQR != in.Link {
			t.Errorf("the QR code on the screen reads\n  %q\nwant the intent link\n  %q", shownQR, in.Link)
		}

		if q := payAndReturn(t, tb, sh, redirect); q.Encode() != "cart=42" {
			t.Errorf("shop got query %q, want the redirect_url's own cart=42", q.Encode())
		}
		checkPaid(t, s, orderID, upicollect.Rupees(100000))

		// The hosted page now shows the result and a way back to the merchant.
		open(t, tb, hostedPageURL(s, orderID))
		run(t, tb, "waiting for the result", chromedp.WaitVisible(`.status.SUCCESS`, chromedp.ByQuery))
		o, _ := s.Order(orderID)
		checkPage(t, tb, s.URL(), "intent-paid", "SUCCESS", o.UTR, "Return to "+sandbox.DefaultMerchantName)
		checkAbsent(t, tb, "the paid page", "img.qr", "form", "button")
	})
}

// payAndReturn presses Pay on the tab's hosted page, checks that the
// browser lands on redirect, exactly as given, and returns the query the
// shop's server saw (nil when it saw none).
func payAndReturn(t *testing.T, tb *tab, sh *shop, redirect string) url.Values {
	t.Helper()
	var loc string
	run(t, tb, "paying and returning to the shop",
		chromedp.Click(`button.pay`, chromedp.ByQuery, chromedp.NodeVisible),
		chromedp.WaitVisible(`#thanks`, chromedp.ByQuery),
		chromedp.Location(&loc),
	)
	if loc != redirect {
		t.Errorf("browser at %s, want the redirect_url exactly as given: %s", loc, redirect)
	}
	select {
	case q := <-sh.returns:
		return q
	case <-time.After(apiTimeout):
		t.Error("the shop's server saw no return, though the browser shows its page")
		return nil
	}
}

// checkPaid checks that the sandbox and the SDK's status check agree that
// orderID is paid in full.
func checkPaid(t *testing.T, s *sandbox.Server, orderID string, amount upicollect.Money) {
	t.Helper()
	o, ok := s.Order(orderID)
	if !ok || o.Status != sandbox.StatusSuccess || o.UTR == "" {
		t.Fatalf("order %s: found %v, status %s, UTR %q; want SUCCESS with a UTR", orderID, ok, o.Status, o.UTR)
	}
	st, err := s.Client().CheckPaymentStatus(apiContext(t), orderID)
	if err != nil {
		t.Fatalf("CheckPaymentStatus: %v", err)
	}
	if !st.Paid() || st.UTR != o.UTR || st.Amount != amount {
		t.Errorf("status %s, UTR %q, amount %v; want paid, UTR %q, amount %v", st.TxnStatus, st.UTR, st.Amount, o.UTR, amount)
	}
}

// declines are the payer's two ways of not paying, by button.
var declines = []struct {
	button string
	want   upicollect.TxnStatus
}{
	{"fail", upicollect.TxnFail},
	{"reject", upicollect.TxnReject},
}

// decline presses button on the hosted page at pageURL and checks the page
// it lands on: back on the hosted page, which shows want; the sandbox and
// the SDK's status check agree.
func decline(t *testing.T, s *sandbox.Server, tb *tab, pageURL, orderID, button string, want upicollect.TxnStatus, shot string) {
	t.Helper()
	var status, loc string
	tb.net.reset()
	run(t, tb, "pressing "+button,
		chromedp.Click(`button.`+button, chromedp.ByQuery, chromedp.NodeVisible),
		chromedp.WaitVisible(`.status.`+string(want), chromedp.ByQuery),
		chromedp.Text(`.status`, &status, chromedp.ByQuery),
		chromedp.Location(&loc),
	)
	if status != string(want) {
		t.Errorf("result page says %q, want %q", status, want)
	}
	if loc != pageURL {
		t.Errorf("browser at %s, want back on the hosted page %s", loc, pageURL)
	}
	checkPage(t, tb, s.URL(), shot, "no money moved")
	checkAbsent(t, tb, shot, "img.qr", "form", "button")
	o, ok := s.Order(orderID)
	if !ok || o.Status != string(want) || o.UTR != "" {
		t.Errorf("order %s: found %v, status %s, UTR %q; want %s without a UTR", orderID, ok, o.Status, o.UTR, want)
	}
	st, err := s.Client().CheckPaymentStatus(apiContext(t), orderID)
	if err != nil {
		t.Fatalf("CheckPaymentStatus: %v", err)
	}
	if st.TxnStatus != want || st.Paid() {
		t.Errorf("status check: %s (paid %v), want %s", st.TxnStatus, st.Paid(), want)
	}
}

// TestHostedPageRequestDeclined fails and rejects payment requests on their
// hosted pages, which say where the request went and show no QR code.
func TestHostedPageRequestDeclined(t *testing.T) {
	s := sandbox.Start(t)
	forEachScreen(t, func(t *testing.T, tb *tab) {
		for _, tc := range declines {
			orderID := upicollect.NewOrderID()
			note := "Cab fare — Bengaluru ✓"
			pr, err := s.Client().CreatePaymentRequest(apiContext(t), &upicollect.RequestParams{
				Amount: upicollect.Rupees(1000), OrderID: orderID, VPA: "ravi.kumar@okaxis", Note: note, Customer: customer,
			})
			if err != nil {
				t.Fatalf("CreatePaymentRequest: %v", err)
			}
			if pr.PaymentURL != hostedPageURL(s, orderID) {
				t.Errorf("payment_url %q, want the hosted page %q", pr.PaymentURL, hostedPageURL(s, orderID))
			}
			open(t, tb, pr.PaymentURL)
			run(t, tb, "waiting for the buttons", chromedp.WaitVisible(`button.`+tc.button, chromedp.ByQuery))
			checkPage(t, tb, s.URL(), "request-pending", "₹1,000.00", note, customer.Name, maskedEmail, maskedMobile,
				orderID, "Payment request sent to ra***@okaxis", "approves it in their UPI app", "Pay ₹1,000.00")
			checkAbsent(t, tb, "a payment request's page", "img.qr")
			decline(t, s, tb, pr.PaymentURL, orderID, tc.button, tc.want, "request-"+tc.button)
		}
	})
}

// TestPaymentLinkDeclined opens payment links, as a customer who got one
// by message would, and fails and rejects them.
func TestPaymentLinkDeclined(t *testing.T) {
	s := sandbox.Start(t)
	forEachScreen(t, func(t *testing.T, tb *tab) {
		for _, tc := range declines {
			pl, err := s.Client().CreatePaymentLink(apiContext(t), &upicollect.LinkParams{
				Amount: upicollect.Rupees(12345), Note: "Annual plan", Customer: customer,
			})
			if err != nil {
				t.Fatalf("CreatePaymentLink: %v", err)
			}
			u, err := url.Parse(pl.URL)
			if err != nil || !strings.HasPrefix(pl.URL, s.URL()+"/") {
				t.Fatalf("payment_link %q: want a page of the sandbox %s (%v)", pl.URL, s.URL(), err)
			}
			orderID := path.Base(u.Path)
			open(t, tb, pl.URL)
			shownQR := checkPendingPage(t, tb, s.URL(), "link-pending", "₹12,345.00", "Annual plan",
				customer.Name, maskedEmail, maskedMobile, orderID, "Pay ₹12,345.00")
			checkLinkFields(t, shownQR, orderID, upicollect.Rupees(12345), "Annual plan")
			decline(t, s, tb, pl.URL, orderID, tc.button, tc.want, "link-"+tc.button)
		}
	})
}

// TestExpiredIntentPage opens an intent's page after its expiry, on the
// sandbox's clock: it says the payment expired and when, with no QR code
// to scan and no button to pay.
func TestExpiredIntentPage(t *testing.T) {
	clock := sandbox.NewManualClock(time.Date(2025, 1, 15, 10, 0, 0, 0, time.UTC))
	s := sandbox.Start(t, sandbox.WithClock(clock.Now), sandbox.WithIntentTTL(10*time.Minute))
	forEachScreen(t, func(t *testing.T, tb *tab) {
		orderID := upicollect.NewOrderID()
		createIntent(t, s, upicollect.IntentParams{
			Amount: upicollect.Rupees(499), OrderID: orderID, RedirectURL: "https://shop.example.com/thanks", Note: "Tea", Customer: customer,
		})
		expiry := clock.Now().Add(10*time.Minute).In(time.FixedZone("IST", 5*3600+30*60)).Format(time.DateTime) + " IST"
		clock.Advance(10*time.Minute + time.Second)
		open(t, tb, hostedPageURL(s, orderID))
		run(t, tb, "waiting for the expiry", chromedp.WaitVisible(`.status.EXPIRED`, chromedp.ByQuery))
		checkPage(t, tb, s.URL(), "intent-expired", "₹499.00", orderID, "Expired", "expired at "+expiry, "No money moved")
		checkAbsent(t, tb, "the expired page", "img.qr", "form", "button", `a[href^="upi:"]`)
	})
}

// TestUnknownOrderPage opens the page of an order the sandbox does not
// hold: a 404 page that leads back to the order list.
func TestUnknownOrderPage(t *testing.T) {
	s := sandbox.Start(t)
	forEachScreen(t, func(t *testing.T, tb *tab) {
		link := hostedPageURL(s, "ord_no_such_order_0123456789abcdef")
		open(t, tb, link)
		if st := tb.net.status(link); st != http.StatusNotFound {
			t.Errorf("GET %s: HTTP %d, want 404", link, st)
		}
		checkPage(t, tb, s.URL(), "not-found", "Order not found", "ord_no_such_order_0123456789abcdef", "See all orders")
		var loc string
		run(t, tb, "following the link to the order list",
			chromedp.Click(`a[href="/"]`, chromedp.ByQuery, chromedp.NodeVisible),
			chromedp.WaitVisible(`main.wide`, chromedp.ByQuery),
			chromedp.Location(&loc))
		if loc != s.URL()+"/" {
			t.Errorf("the link leads to %s, want the order list %s/", loc, s.URL())
		}
	})
}

// TestOrderList shows orders with ids as long as real ones, in every
// state, on the order list: every cell stays in its card, the status
// column included.
func TestOrderList(t *testing.T) {
	clock := sandbox.NewManualClock(time.Date(2025, 1, 15, 10, 0, 0, 0, time.UTC))
	s := sandbox.Start(t, sandbox.WithClock(clock.Now), sandbox.WithIntentTTL(10*time.Minute))
	ids := []string{"utz_65f1c2ab3d4e5", "ord_" + strings.Repeat("7f3a9c", 4) + "e1", upicollect.NewOrderID()}
	for i, id := range ids {
		createIntent(t, s, upicollect.IntentParams{
			Amount: upicollect.Rupees(int64(i+1) * 100000 / 3), OrderID: id, RedirectURL: "https://shop.example.com/thanks", Note: "Tea", Customer: customer,
		})
	}
	long := "ord_" + strings.Repeat("0123456789", 5) // longer than any real id: must wrap
	if _, err := s.Client().CreatePaymentRequest(apiContext(t), &upicollect.RequestParams{
		Amount: upicollect.Rupees(100000), OrderID: long, VPA: "ravi.kumar@okaxis", Note: "Laptop", Customer: customer,
	}); err != nil {
		t.Fatalf("CreatePaymentRequest: %v", err)
	}
	if _, err := s.Client().CreatePaymentLink(apiContext(t), &upicollect.LinkParams{Amount: upicollect.Rupees(1), Note: "Tip", Customer: customer}); err != nil {
		t.Fatalf("CreatePaymentLink: %v", err)
	}
	// A bank's late answer, three hours on: listed under its status.
	orders := s.Orders()
	linkID := orders[len(orders)-1].OrderID
	if err := s.Settle(linkID, upicollect.TxnSuccess, clock.Now().Add(3*time.Hour)); err != nil {
		t.Fatalf("Settle(%s): %v", linkID, err)
	}
	for id, result := range map[string]string{ids[0]: sandbox.StatusSuccess, ids[1]: sandbox.StatusFail, long: sandbox.StatusReject} {
		if _, err := s.SettleWith(id, sandbox.Settlement{Result: result}); err != nil {
			t.Fatalf("Settle(%s, %s): %v", id, result, err)
		}
	}
	clock.Advance(11 * time.Minute) // the pending intent expires
	forEachScreen(t, func(t *testing.T, tb *tab) {
		open(t, tb, s.URL()+"/")
		run(t, tb, "waiting for the order list", chromedp.WaitVisible(`table.orders`, chromedp.ByQuery))
		f := checkPage(t, tb, s.URL(), "orders", append(ids, long, "₹33,333.00", "₹1,00,000.00", "₹1.00",
			"SUCCESS", "FAIL", "REJECT", "PENDING", "expired",
			"2025-01-15 15:30:00 IST", "then SUCCESS at 2025-01-15 18:30:00 IST", "Sandbox time 2025-01-15 15:41:00 IST")...)
		// A phone has no column headers: each creation time says what it is.
		if labelled := strings.Contains(f.Text, "created 2025-01-15 15:30:00 IST"); labelled != (tb.vp.width <= 600) {
			t.Errorf("at %d px the creation times are labelled: %v, want %v", tb.vp.width, labelled, tb.vp.width <= 600)
		}
		var statusRight, cardRight float64
		var statuses int
		run(t, tb, "measuring the status column",
			chromedp.Evaluate(`Math.max(...[...document.querySelectorAll('td.st')].map(e => e.getBoundingClientRect().right))`, &statusRight),
			chromedp.Evaluate(`document.querySelectorAll('td.st').length`, &statuses),
			chromedp.Evaluate(`document.querySelector('.card').getBoundingClientRect().right`, &cardRight))
		if statuses != 5 || statusRight > cardRight || statusRight > float64(tb.vp.width) {
			t.Errorf("%d status cells reach %.0f px; want 5 within the card (%.0f px) and the screen (%d px)", statuses, statusRight, cardRight, tb.vp.width)
		}
	})
}

// TestNetworkLogSeesOutsideFetches proves the check that pages fetch
// nothing from outside can fail: a page of one loopback origin that loads
// an image and a style sheet from another is caught.
func TestNetworkLogSeesOutsideFetches(t *testing.T) {
	other := startShop(t) // answers 404 to anything but /thanks: enough to be fetched
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><title>x</title><link rel="stylesheet" href="%s/font.css">`+
			`<img src="%s/pixel.png" alt="pixel"><img src="/own.png" alt="own">`, other.URL, other.URL)
	}))
	t.Cleanup(page.Close)
	tb := newTab(t, startBrowser(t), phone)
	open(t, tb, page.URL)
	run(t, tb, "waiting for the page", chromedp.WaitReady(`img`, chromedp.ByQuery))
	got := strings.Join(tb.net.outside(page.URL), " ")
	for _, want := range []string{other.URL + "/font.css", other.URL + "/pixel.png"} {
		if !strings.Contains(got, want) {
			t.Errorf("network log outside %s: %q, want it to include %s", page.URL, got, want)
		}
	}
	if strings.Contains(got, "/own.png") {
		t.Errorf("network log counts the page's own image as outside: %q", got)
	}
}
