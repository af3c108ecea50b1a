package main

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/paypage"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/sandbox"
)

// newTestShop serves the shop over loopback against a sandbox.
func newTestShop(t *testing.T, opts ...sandbox.Option) (*shop, *httptest.Server, *sandbox.Server) {
	t.Helper()
	sb := sandbox.Start(t, opts...)
	s, err := newShop(sb.Client(), "", sb.URL())
	require.NoError(t, err)
	srv := httptest.NewServer(s.routes())
	t.Cleanup(srv.Close)
	s.baseURL = srv.URL
	return s, srv, sb
}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	res, err := http.Get(u)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

var orderIDRe = regexp.MustCompile(`Order <code>(ord_[a-z2-7]+)</code>`)

// createIntentOrder takes the second choice of the product page as far as
// the redirect to the pay page, and returns the order id.
func createIntentOrder(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	res, err := noRedirect().PostForm(srv.URL+"/checkout/qr", url.Values{
		"name": {"Ravi Kumar"}, "email": {"ravi@example.com"}, "mobile": {"98765 43210"},
	})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	id, ok := strings.CutPrefix(res.Header.Get("Location"), "/pay?ref=")
	require.True(t, ok, "the browser goes to the pay page: %q", res.Header.Get("Location"))
	return id
}

// checkout takes the second choice of the product page: an intent, its QR
// code and app links shown on the shop's pay page.
func checkout(t *testing.T, srv *httptest.Server) (string, string) {
	t.Helper()
	res, err := http.PostForm(srv.URL+"/checkout/qr", url.Values{
		"name": {"Ravi Kumar"}, "email": {"ravi@example.com"}, "mobile": {"98765 43210"},
	})
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode, string(b))
	m := orderIDRe.FindStringSubmatch(string(b))
	require.NotNil(t, m, string(b))
	return m[1], string(b)
}

// TestCheckoutShowsQRAndLinks: the pay page shows the intent's QR code as
// a data: URL, a button per UPI app in paypage.Links' order with the apps'
// names, "I have paid" to the return page, and the sandbox's payer page;
// the checkout sends the browser to the pay page, never to a upi: link.
func TestCheckoutShowsQRAndLinks(t *testing.T) {
	for _, tt := range []struct {
		variants []string
		source   paypage.Source
	}{
		{nil, paypage.FromLink},                                // dynamicQR is the web address of an image
		{[]string{sandbox.VariantQRBase64}, paypage.FromImage}, // dynamicQR is a data:image/png;base64 URL
	} {
		t.Run("variants "+strings.Join(tt.variants, ","), func(t *testing.T) {
			s, srv, sb := newTestShop(t, sandbox.WithVariant(tt.variants...))
			code, body := get(t, srv.URL+"/")
			require.Equal(t, http.StatusOK, code)
			assert.Contains(t, body, "₹499.00")

			assert.Regexp(t, `^ord_[a-z2-7]+$`, createIntentOrder(t, srv), "the browser goes to the shop's pay page, never to upi:")

			id, page := checkout(t, srv)
			o, ok := s.orders.get(id)
			require.True(t, ok)
			in := o.Intent
			require.NotNil(t, in)
			qr, err := paypage.QR(in, 0)
			require.NoError(t, err)
			assert.Equal(t, tt.source, qr.Source)
			if tt.source == paypage.FromImage {
				assert.Equal(t, in.DynamicQR, string(qr.DataURL()), "the service's image, as sent")
			}
			img := regexp.MustCompile(`<img class="qr" alt="UPI QR code for ₹499.00" width="(\d+)" height="(\d+)" src="([^"]+)">`).FindStringSubmatch(page)
			require.NotNil(t, img, page)
			assert.Equal(t, string(qr.DataURL()), html.UnescapeString(img[3]))
			assert.Equal(t, strconv.Itoa(qr.Size), img[1])

			apps := regexp.MustCompile(`<a class="app" data-app="([^"]+)" href="([^"]+)">([^<]+)</a>`).FindAllStringSubmatch(page, -1)
			var names []string
			for i, a := range apps {
				names = append(names, a[3])
				l := paypage.Links(in)[i]
				assert.Equal(t, l.App, a[1])
				assert.Equal(t, string(l.URL), html.UnescapeString(a[2]))
			}
			assert.Equal(t, []string{"PhonePe", "Google Pay", "Paytm", "CRED", "Any UPI app"}, names)
			assert.Equal(t, 5, strings.Count(page, `href="upi:`)+strings.Count(page, `href="phonepe:`)+
				strings.Count(page, `href="tez:`)+strings.Count(page, `href="paytmmp:`)+strings.Count(page, `href="credpay:`),
				"the app buttons are the page's only app links")
			assert.NotContains(t, page, "#ZgotmplZ")
			for _, frame := range []string{`<html lang="en">`, `<meta name="viewport"`, `<title>Chai Shop</title>`, `@media (max-width:40rem),(hover:none) and (pointer:coarse)`} {
				assert.Contains(t, page, frame, "the page is inside its layout")
			}
			assert.Contains(t, page, `<a class="button" href="/return?ref=`+id+`">I have paid</a>`)
			assert.Contains(t, page, sb.URL()+"/sandbox/pay/"+id)
		})
	}
}

// TestPayPageUnknownOrder: the pay page of an order the shop does not
// have, or one paid on the hosted checkout, is not found.
func TestPayPageUnknownOrder(t *testing.T) {
	_, srv, sb := newTestShop(t)
	hosted, _ := hostedCheckout(t, srv, sb)
	for _, ref := range []string{"ord_nope", hosted, ""} {
		code, body := get(t, srv.URL+"/pay?ref="+url.QueryEscape(ref))
		assert.Equal(t, http.StatusNotFound, code, ref)
		assert.Contains(t, body, "No such order.")
	}
}

// TestReturnLeadsBackToThePayPage: a payer who says they have paid, but
// whose payment has not reached the service, is offered the pay page
// again; once paid, the same return page thanks them.
func TestReturnLeadsBackToThePayPage(t *testing.T) {
	s, srv, sb := newTestShop(t)
	id, _ := checkout(t, srv)
	code, body := get(t, srv.URL+"/return?ref="+id)
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `<a href="/pay?ref=`+id+`">Go to the payment page</a>`)
	code, again := get(t, srv.URL+"/pay?ref="+id)
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, again, "Order <code>"+id+"</code>")

	_, err := sb.Pay(id)
	require.NoError(t, err)
	code, body = get(t, srv.URL+"/return?ref="+id)
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "Thank you!")
	assert.Equal(t, 1, s.orders.credited())
}

func TestReturnCreditsOnceOnly(t *testing.T) {
	s, srv, sb := newTestShop(t)
	id, _ := checkout(t, srv)
	ret := srv.URL + "/return?ref=" + id

	code, body := get(t, ret)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "Waiting for your payment")
	assert.Equal(t, 0, s.orders.credited())

	_, err := sb.Pay(id)
	require.NoError(t, err)

	// The browser comes back many times, some at once: one credit.
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, body := get(t, ret)
			assert.Equal(t, http.StatusOK, code)
			assert.Contains(t, body, "Thank you!")
		}()
	}
	wg.Wait()
	assert.Equal(t, 1, s.orders.creditCalls(id), "exactly one credit, by the ledger's handler")
	assert.Equal(t, 1, s.orders.credited())
}

func TestReturnUnknownOrder(t *testing.T) {
	_, srv, _ := newTestShop(t)
	code, _ := get(t, srv.URL+"/return?ref=ord_nope")
	assert.Equal(t, http.StatusNotFound, code)
}

func TestCheckoutValidationError(t *testing.T) {
	_, srv, _ := newTestShop(t)
	for _, path := range []string{"/checkout", "/checkout/qr"} {
		res, err := http.PostForm(srv.URL+path, url.Values{"name": {"Ravi"}, "email": {"nope"}, "mobile": {"12"}})
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		assert.Equal(t, http.StatusBadRequest, res.StatusCode, path)
		assert.Contains(t, string(b), "customer_email", path)
		assert.Contains(t, string(b), "customer_mobile", path)
	}
}

// TestHostedPageReturnsToShop plays the payer on the sandbox's hosted page:
// the payer comes back to the shop's redirect_url exactly as the shop gave
// it, and the shop reads its own reference back from it.
func TestHostedPageReturnsToShop(t *testing.T) {
	s, srv, sb := newTestShop(t)
	id, _ := checkout(t, srv)
	c := sb.HTTPClient()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := c.PostForm(sb.URL()+"/sandbox/orders/"+url.PathEscape(id)+"/pay", url.Values{"result": {"SUCCESS"}, "return": {"page"}})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	loc := res.Header.Get("Location")
	assert.Equal(t, srv.URL+"/return?ref="+url.QueryEscape(id), loc, "redirect_url exactly as given")

	code, body := get(t, loc)
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "Thank you!")
	assert.Equal(t, 1, s.orders.credited())
}

// noRedirect is a browser that shows where a page sends it instead of going.
func noRedirect() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// hostedCheckout takes the product page's first choice and returns the
// order id and the hosted checkout page the shop sent the payer to.
func hostedCheckout(t *testing.T, srv *httptest.Server, sb *sandbox.Server) (string, string) {
	t.Helper()
	res, err := noRedirect().PostForm(srv.URL+"/checkout", url.Values{
		"name": {"Ravi Kumar"}, "email": {"ravi@example.com"}, "mobile": {"98765 43210"},
	})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	loc := res.Header.Get("Location")
	m := regexp.MustCompile(`^` + regexp.QuoteMeta(sb.URL()) + `/sandbox/pay/(ord_[a-z2-7]+)$`).FindStringSubmatch(loc)
	require.NotNil(t, m, "the payer goes to the hosted checkout: %s", loc)
	return m[1], loc
}

// TestHostedCheckoutIsShownFirst: the product page's first button is the
// hosted checkout, the QR code on the shop's page the second.
func TestHostedCheckoutIsShownFirst(t *testing.T) {
	_, srv, _ := newTestShop(t)
	_, body := get(t, srv.URL+"/")
	first := regexp.MustCompile(`<form method="post" action="/checkout">`).FindStringIndex(body)
	second := regexp.MustCompile(`formaction="/checkout/qr"`).FindStringIndex(body)
	require.NotNil(t, first)
	require.NotNil(t, second)
	assert.Less(t, first[0], second[0])
}

// TestHostedCheckoutPays: the shop sends the payer to payment_url; the payer
// chooses to pay there and comes back to the shop's redirect_url exactly as
// given; the shop confirms with the status check, compares the amount and
// credits the order once.
func TestHostedCheckoutPays(t *testing.T) {
	s, srv, sb := newTestShop(t)
	id, payURL := hostedCheckout(t, srv, sb)
	o, ok := s.orders.get(id)
	require.True(t, ok, "the order is stored before the payer leaves")
	assert.Equal(t, payURL, o.PaymentURL)

	code, page := get(t, payURL)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, page, "499.00")

	res, err := noRedirect().PostForm(sb.URL()+"/sandbox/orders/"+url.PathEscape(id)+"/pay", url.Values{"result": {"SUCCESS"}, "return": {"page"}})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	back := res.Header.Get("Location")
	assert.Equal(t, srv.URL+"/return?ref="+url.QueryEscape(id), back, "redirect_url exactly as given")

	for i := 0; i < 2; i++ {
		code, body := get(t, back)
		assert.Equal(t, http.StatusOK, code)
		assert.Contains(t, body, "Thank you!")
		assert.Contains(t, body, "₹499.00")
	}
	assert.Equal(t, 1, s.orders.credited())
}

// TestReturnShowsNothingMisleading: what the payer reads on the return page
// for each answer of the status check, in both of the service's not-found
// shapes: an order the service does not know has no payment "in progress"
// and no raw service text; a failed one is not paid; neither is credited.
func TestReturnShowsNothingMisleading(t *testing.T) {
	for _, variants := range [][]string{nil, {sandbox.VariantNotFound404}} {
		t.Run("not found "+strings.Join(variants, ","), func(t *testing.T) {
			s, srv, sb := newTestShop(t, sandbox.WithVariant(variants...))
			id, payURL := hostedCheckout(t, srv, sb)
			code, body := get(t, srv.URL+"/return?ref="+url.QueryEscape(id))
			assert.Equal(t, http.StatusOK, code)
			assert.Contains(t, body, "Waiting for your payment")
			assert.Contains(t, body, "No payment for order <code>"+id+"</code> has reached us yet.")
			assert.Contains(t, body, `<a href="`+payURL+`">Go to the payment page</a>`)
			for _, misleading := range []string{"PENDING", "being processed", "Transaction not found", "Thank you"} {
				assert.NotContains(t, body, misleading)
			}
			assert.Zero(t, s.orders.credited())
		})
	}
	t.Run("failed", func(t *testing.T) {
		s, srv, sb := newTestShop(t)
		id, _ := hostedCheckout(t, srv, sb)
		res, err := noRedirect().PostForm(sb.URL()+"/sandbox/orders/"+url.PathEscape(id)+"/pay", url.Values{"result": {"FAIL"}})
		require.NoError(t, err)
		res.Body.Close()
		code, body := get(t, srv.URL+"/return?ref="+url.QueryEscape(id))
		assert.Equal(t, http.StatusOK, code)
		assert.Contains(t, body, "Payment not completed")
		assert.Contains(t, body, "(FAIL)")
		assert.NotContains(t, body, "Thank you")
		assert.Zero(t, s.orders.credited())
	})
}

// TestReturnAmountMismatchNotCredited: a SUCCESS for another amount than
// the order's is not credited, and the payer is told so.
func TestReturnAmountMismatchNotCredited(t *testing.T) {
	s, srv, sb := newTestShop(t)
	id, _ := hostedCheckout(t, srv, sb)
	_, err := sb.SettleWith(id, sandbox.Settlement{Result: sandbox.StatusSuccess, PaidPaise: 100})
	require.NoError(t, err)
	code, body := get(t, srv.URL+"/return?ref="+url.QueryEscape(id))
	assert.Equal(t, http.StatusConflict, code)
	assert.Contains(t, body, "does not match the order")
	assert.NotContains(t, body, "Thank you")
	assert.Zero(t, s.orders.credited())
}

// TestLedgerRace races return pages (many at once), two sweepers and a
// Confirm loop over 200 orders, 180 of them paid: each paid order is
// credited once, through the handler, and no other order is.
func TestLedgerRace(t *testing.T) {
	s, srv, sb := newTestShop(t)
	const orders, unpaid = 200, 20
	var ids []string
	for i := 0; i < orders; i++ {
		id := createIntentOrder(t, srv)
		ids = append(ids, id)
		if i >= unpaid {
			_, err := sb.Pay(id)
			require.NoError(t, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	other, err := reconcile.New(s.client, s.store, s.handle, reconcile.WithBatchSize(16))
	require.NoError(t, err)
	var wg sync.WaitGroup
	due := time.Now().Add(time.Minute) // every order is due
	for _, sw := range []*reconcile.Sweeper{s.sweeper, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				_, err := sw.Step(ctx, due)
				assert.NoError(t, err)
			}
		}()
	}
	wg.Add(1)
	go func() { // a script confirming every order
		defer wg.Done()
		for _, id := range ids {
			_, err := s.sweeper.Confirm(ctx, id)
			assert.NoError(t, err)
		}
	}()
	for p := 0; p < 8; p++ { // return pages, several per order at once
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ids {
				code, _ := get(t, srv.URL+"/return?ref="+ids[(i+p*25)%orders])
				assert.Equal(t, http.StatusOK, code)
			}
		}()
	}
	wg.Wait()
	_, err = s.sweeper.Step(ctx, due)
	require.NoError(t, err)
	twice, missed, wrong := 0, 0, 0
	for i, id := range ids {
		n := s.orders.creditCalls(id)
		switch {
		case i < unpaid && n != 0:
			wrong++
		case i >= unpaid && n == 0:
			missed++
		case n > 1:
			twice++
		}
	}
	t.Logf("checkout race: %d orders (%d paid), 8 return pages, 2 sweepers, a Confirm loop: %d credited, %d twice, %d missed, %d wrong",
		orders, orders-unpaid, s.orders.credited(), twice, missed, wrong)
	assert.Zero(t, twice)
	assert.Zero(t, missed)
	assert.Zero(t, wrong)
	assert.Equal(t, orders-unpaid, s.orders.credited())
}
