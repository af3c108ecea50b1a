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
	mux.HandleFunc("POST /checkout", s.checkout)
	mux.HandleFunc("GET /return", s.confirm)
	return mux
}

func (s *shop) product(w http.ResponseWriter, _ *http.Request) {
	render(w, http.StatusOK, productPage, map[string]any{"Price": price})
}

// checkout creates the order first, with our own order id, so that the
// create is safe to retry and the order can be checked whatever happens.
func (s *shop) checkout(w http.ResponseWriter, r *http.Request) {
	orderID := upicollect.NewOrderID()
	s.orders.add(orderID, price)
	params := &upicollect.IntentParams{
		Amount:  price,
		OrderID: orderID,
		// The service sends the payer back to this URL exactly as given, so
		// it carries the shop's own reference, read back in confirm.
		RedirectURL: s.baseURL + "/return?ref=" + url.QueryEscape(orderID),
		Note:        "Masala chai kit",
		Customer: upicollect.Customer{
			Name:   r.FormValue("name"),
			Email:  r.FormValue("email"),
			Mobile: r.FormValue("mobile"),
		},
	}
	intent, err := s.client.CreatePaymentIntent(r.Context(), params)
	if err == nil {
		// Never show a payer a link that pays another amount or order.
		err = intent.Verify(params)
	}
	var verr *upicollect.ValidationError
	switch {
	case errors.As(err, &verr):
		render(w, http.StatusBadRequest, errorPage, map[string]any{"Message": verr.Error()})
		return
	case err != nil:
		// ErrOutcomeUnknown included: the order id is stored, so the return
		// page can still confirm it.
		log.Printf("checkout %s: %v", orderID, err)
		render(w, http.StatusBadGateway, errorPage, map[string]any{"Message": "The payment service is unavailable; please try again."})
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
// itself: the status check decides, and the order is credited once only.
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
	switch {
	case !st.Paid():
		render(w, http.StatusOK, pendingPage, data)
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
