package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

// TestHostedCheckoutPay opens the hosted checkout of an order request
// (createOrderRequest) as a payer would: a choice of UPI apps, each link
// carrying the order's payment, and a QR code that reads as the order's UPI
// link; paying sends the browser to redirect_url exactly as given.
func TestHostedCheckoutPay(t *testing.T) {
	s := sandbox.Start(t)
	sh := startShop(t)
	forEachScreen(t, func(t *testing.T, tb *tab) {
		orderID := upicollect.NewOrderID()
		redirect := sh.URL + "/thanks?cart=77&order_id=1287"
		or, err := s.Client().CreateOrderRequest(apiContext(t), &upicollect.OrderRequestParams{
			Amount: upicollect.Rupees(1234), OrderID: orderID, RedirectURL: redirect, Note: "Order #1287", Customer: customer,
		})
		if err != nil {
			t.Fatalf("CreateOrderRequest: %v", err)
		}
		open(t, tb, or.PaymentURL)
		shownQR := checkPendingPage(t, tb, s.URL(), "checkout-pending", "₹1,234.00", "Choose your UPI app",
			"PhonePe", "Paytm", "Google Pay", "CRED", "or scan the code", customer.Name, maskedMobile, orderID, "Pay ₹1,234.00")
		if !strings.HasPrefix(shownQR, "upi://pay?") || !strings.Contains(shownQR, "am=1234.00") || !strings.Contains(shownQR, "tr="+orderID) {
			t.Errorf("the QR code on the screen reads %q, want the order's upi://pay link", shownQR)
		}
		var apps []string
		run(t, tb, "reading the app links",
			chromedp.Evaluate(`[...document.querySelectorAll('a.app')].map(a => a.getAttribute('href'))`, &apps))
		if len(apps) != 4 {
			t.Fatalf("%d app links, want 4: %q", len(apps), apps)
		}
		for _, a := range apps {
			if !strings.Contains(a, "am=1234.00") || !strings.Contains(a, "tr="+orderID) {
				t.Errorf("app link %q does not carry the order's amount and id", a)
			}
		}

		if q := payAndReturn(t, tb, sh, redirect); q.Get("order_id") != "1287" {
			t.Errorf("shop got query %q, want its own order_id=1287 back", q.Encode())
		}
		checkPaid(t, s, orderID, upicollect.Rupees(1234))
	})
}
