package main

import (
	"errors"
	"html/template"
	"log"
	"net/http"
	"net/url"
	"strings"

	"github.com/upicollect/upicollect-go"
)

// price is the one product's price.
var price = upicollect.Rupees(499)

// shop is the merchant's backend: its orders and the SDK client.
type shop struct {
	client     *upicollect.Client
	baseURL    string // where customers reach the shop, for redirect_url
	sandboxURL string // the sandbox's base URL in the demo, "" against the real service
	orders     *orderBook
}

func newShop(c *upicollect.Client, baseURL, sandboxURL string) *shop {
	return &shop{client: c, baseURL: baseURL, sandboxURL: sandboxURL, orders: newOrderBook()}
}

func (s *shop) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.product)
	mux.HandleFunc("POST /checkout", s.hostedCheckout) // the flow shown first
	mux.HandleFunc("POST /checkout/qr", s.intentCheckout)
	mux.HandleFunc("GET /return", s.confirm)
	return mux
}

func (s *shop) product(w http.ResponseWriter, _ *http.Request) {
	render(w, http.StatusOK, productPage, map[string]any{"Price": price})
}

// newOrder records a new order before anything is sent: our own order id
// makes the create safe to retry, and lets the return page check the order
// whatever happens to the create.
func (s *shop) newOrder() string {
	orderID := upicollect.NewOrderID()
	s.orders.add(orderID, price)
	return orderID
}

// returnURL is where the service sends the payer back, exactly as given: it
// carries the shop's own reference, read back in confirm.
func (s *shop) returnURL(orderID string) string {
	return s.baseURL + "/return?ref=" + url.QueryEscape(orderID)
}

func customer(r *http.Request) upicollect.Customer {
	return upicollect.Customer{Name: r.FormValue("name"), Email: r.FormValue("email"), Mobile: r.FormValue("mobile")}
}

// hostedCheckout sends the payer to the service's hosted checkout page,
// where they choose a UPI app or scan a QR code, and from where they come
// back to confirm.
func (s *shop) hostedCheckout(w http.ResponseWriter, r *http.Request) {
	orderID := s.newOrder()
	or, err := s.client.CreateOrderRequest(r.Context(), &upicollect.OrderRequestParams{
		Amount:      price,
		OrderID:     orderID,
		RedirectURL: s.returnURL(orderID),
		Note:        "Masala chai kit",
		Customer:    customer(r),
	})
	if createFailed(w, orderID, err) {
		return
	}
	// The SDK has checked that PaymentURL is an http(s) URL.
	s.orders.setPaymentURL(orderID, or.PaymentURL)
	http.Redirect(w, r, or.PaymentURL, http.StatusSeeOther)
}

// createFailed shows the payer what a failed create means for them, and
// reports whether there was a failure.
func createFailed(w http.ResponseWriter, orderID string, err error) bool {
	var verr *upicollect.ValidationError
	switch {
	case err == nil:
		return false
	case errors.As(err, &verr):
		render(w, http.StatusBadRequest, errorPage, map[string]any{"Message": verr.Error()})
	default:
		// ErrOutcomeUnknown included: the order id is stored, so the return
		// page can still confirm it.
		log.Printf("checkout %s: %v", orderID, err)
		render(w, http.StatusBadGateway, errorPage, map[string]any{"Message": "The payment service is unavailable; please try again."})
	}
	return true
}

// intentCheckout shows the payment on the shop's own page instead: the
// intent's QR code and UPI link.
func (s *shop) intentCheckout(w http.ResponseWriter, r *http.Request) {
	orderID := s.newOrder()
	params := &upicollect.IntentParams{
		Amount:      price,
		OrderID:     orderID,
		RedirectURL: s.returnURL(orderID),
		Note:        "Masala chai kit",
		Customer:    customer(r),
	}
	intent, err := s.client.CreatePaymentIntent(r.Context(), params)
	if err == nil {
		// Never show a payer a link that pays another amount or order.
		err = intent.Verify(params)
	}
	if createFailed(w, orderID, err) {
		return
	}
	payPage := ""
	if s.sandboxURL != "" {
		payPage = s.sandboxURL + "/sandbox/pay/" + url.PathEscape(intent.OrderID)
	}
	data := map[string]any{"Intent": intent, "SandboxPay": payPage}
	// The service's links are trusted here: html/template would otherwise
	// blank the upi:// and data: URLs it does not know.
	if strings.HasPrefix(intent.Link, "upi://") {
		data["UPILink"] = template.URL(intent.Link)
	}
	if isImageRef(intent.DynamicQR) {
		data["QRImage"] = template.URL(intent.DynamicQR)
	}
	render(w, http.StatusOK, payPageTmpl, data)
}

// confirm is where the customer comes back. The redirect proves nothing by
// itself: the status check decides, the amount paid must be the order's,
// and the order is credited once only. What the payer reads never claims
// more than the service said: an order it does not know (yet) has no
// payment "in progress".
func (s *shop) confirm(w http.ResponseWriter, r *http.Request) {
	orderID := r.URL.Query().Get("ref") // our reference, put in redirect_url at checkout
	o, ok := s.orders.get(orderID)
	if !ok {
		render(w, http.StatusNotFound, errorPage, map[string]any{"Message": "No such order."})
		return
	}
	st, err := s.client.CheckPaymentStatus(r.Context(), orderID)
	if err != nil {
		log.Printf("confirm %s: %v", orderID, err)
		render(w, http.StatusBadGateway, errorPage, map[string]any{"Message": "Could not confirm the payment yet; refresh in a moment."})
		return
	}
	data := map[string]any{"Order": o, "Status": st}
	if o.PaymentURL != "" {
		data["PayAgain"] = template.URL(o.PaymentURL) // an http(s) URL, checked by the SDK
	}
	switch {
	case st.NotFound:
		// Nothing has reached the service for this order: the payer has not
		// paid (or the bank has not told the service yet).
		render(w, http.StatusOK, notFoundPage, data)
	case !st.TxnStatus.Terminal():
		render(w, http.StatusOK, pendingPage, data)
	case !st.Paid():
		render(w, http.StatusOK, failedPage, data)
	case st.Amount != o.Amount:
		log.Printf("confirm %s: paid %s, expected %s: not credited", orderID, st.Amount, o.Amount)
		render(w, http.StatusConflict, errorPage, map[string]any{"Message": "The amount paid does not match the order."})
	default:
		data["First"] = s.orders.credit(orderID, st.UTR)
		render(w, http.StatusOK, paidPage, data)
	}
}

// isImageRef reports whether the dynamic QR can go in an <img> as is: a link
// or a data URI. Otherwise it is QR text and is shown as text.
func isImageRef(qr string) bool {
	return strings.HasPrefix(qr, "https://") || strings.HasPrefix(qr, "http://") || strings.HasPrefix(qr, "data:image/")
}

func render(w http.ResponseWriter, code int, t *template.Template, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	if err := t.Execute(w, data); err != nil {
		log.Printf("render: %v", err)
	}
}
