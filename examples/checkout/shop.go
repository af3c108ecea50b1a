package main

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"log"
	"net/http"
	"net/url"
	"time"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/paypage"
	"github.com/upicollect/upicollect-go/reconcile"
)

// price is the one product's price.
var price = upicollect.Rupees(499)

// shop is the merchant's backend: its orders, the SDK client and the
// ledger's sweeper, which learns every order's outcome (on the return page
// through Confirm, and on its schedule through Run) and credits through
// one handler, once.
type shop struct {
	client     *upicollect.Client
	store      reconcile.Store
	sweeper    *reconcile.Sweeper
	baseURL    string // where customers reach the shop, for redirect_url
	sandboxURL string // the sandbox's base URL in the demo, "" against the real service
	orders     *orderBook
}

// newShop returns the shop. Its ledger is in memory, as its orders are: a
// real shop keeps both in its database (reconcile/sqlstore) and tracks each
// order with Sweeper.TrackTx in the transaction that writes the order row.
func newShop(c *upicollect.Client, baseURL, sandboxURL string, opts ...reconcile.Option) (*shop, error) {
	s := &shop{client: c, store: reconcile.NewMemoryStore(), baseURL: baseURL, sandboxURL: sandboxURL, orders: newOrderBook()}
	sw, err := reconcile.New(c, s.store, s.handle, opts...)
	if err != nil {
		return nil, err
	}
	s.sweeper = sw
	return s, nil
}

// handle is where every outcome of every order arrives, once: the only
// place the shop credits an order.
func (s *shop) handle(_ context.Context, e reconcile.Event) error {
	switch e.Result {
	case reconcile.Paid, reconcile.LatePaid:
		s.orders.credit(e.Order.ID, e.Status.UTR)
	case reconcile.Mismatch:
		log.Printf("order %s: paid %s, expected %s: not credited; refund or collect the rest", e.Order.ID, e.Status.Amount, e.Order.Amount)
	}
	return nil
}

func (s *shop) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.product)
	mux.HandleFunc("POST /checkout", s.hostedCheckout) // the flow shown first
	mux.HandleFunc("POST /checkout/qr", s.intentCheckout)
	mux.HandleFunc("GET /pay", s.pay)
	mux.HandleFunc("GET /return", s.confirm)
	return mux
}

func (s *shop) product(w http.ResponseWriter, _ *http.Request) {
	render(w, http.StatusOK, productPage, map[string]any{"Price": price})
}

// newOrder records a new order and tracks it before anything is sent: our
// own order id makes the create safe to retry, lets the return page check
// the order whatever happens to the create, and a crash after this leaves
// an order the sweeper checks (and reports Expired), never one nobody
// checks. With a database, write the order row and call Sweeper.TrackTx
// in one transaction.
func (s *shop) newOrder(ctx context.Context) (string, error) {
	orderID := upicollect.NewOrderID()
	s.orders.add(orderID, price)
	if err := s.sweeper.Track(ctx, reconcile.Order{ID: orderID, Amount: price, Created: time.Now()}); err != nil {
		return "", fmt.Errorf("tracking order %s: %w", orderID, err)
	}
	return orderID, nil
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
	orderID, err := s.newOrder(r.Context())
	if createFailed(w, orderID, err) {
		return
	}
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

// intentCheckout creates an intent for a new order and sends the payer to
// the shop's own pay page for it. The redirect (an http one, to this shop)
// lets the payer reload the pay page without creating another order.
func (s *shop) intentCheckout(w http.ResponseWriter, r *http.Request) {
	orderID, err := s.newOrder(r.Context())
	if createFailed(w, orderID, err) {
		return
	}
	// CreatePaymentIntent checks every link of the answer pays this
	// amount, order and payee, or returns an error: no Verify is needed.
	intent, err := s.client.CreatePaymentIntent(r.Context(), &upicollect.IntentParams{
		Amount:      price,
		OrderID:     orderID,
		RedirectURL: s.returnURL(orderID),
		Note:        "Masala chai kit",
		Customer:    customer(r),
	})
	if createFailed(w, orderID, err) {
		return
	}
	s.orders.setIntent(orderID, intent)
	http.Redirect(w, r, payPath(orderID), http.StatusSeeOther)
}

// payPath is the shop's pay page of an order paid there.
func payPath(orderID string) string { return "/pay?ref=" + url.QueryEscape(orderID) }

// pay shows an intent's pay page: its QR code for a laptop, its app links
// for a phone (the page's CSS picks), and "I have paid", to the return
// page. The SDK's paypage package gives both: Links in a fixed order with
// the apps' names, QR the image as a data: URL whatever form the service
// sent it in, both typed so that html/template keeps their upi:, app and
// data: URLs.
func (s *shop) pay(w http.ResponseWriter, r *http.Request) {
	orderID := r.URL.Query().Get("ref")
	o, ok := s.orders.get(orderID)
	if !ok || o.Intent == nil {
		render(w, http.StatusNotFound, errorPage, map[string]any{"Message": "No such order."})
		return
	}
	qr, err := paypage.QR(o.Intent, 0)
	if err != nil { // not for an intent CreatePaymentIntent returned
		log.Printf("pay %s: %v", orderID, err)
		render(w, http.StatusInternalServerError, errorPage, map[string]any{"Message": "Could not show the QR code."})
		return
	}
	data := map[string]any{
		"Intent": o.Intent,
		"Apps":   paypage.Links(o.Intent),
		"QR":     qr,
		"Return": "/return?ref=" + url.QueryEscape(orderID),
	}
	if s.sandboxURL != "" {
		data["SandboxPay"] = s.sandboxURL + "/sandbox/pay/" + url.PathEscape(orderID)
	}
	render(w, http.StatusOK, payPageTmpl, data)
}

// confirm is where the customer comes back. The redirect proves nothing by
// itself: Sweeper.Confirm checks the order now, under the ledger's lease,
// and the handler credits it if it is paid for the order's amount (once,
// whichever of the return pages and the sweeper learns it first). The page
// shows the ledger's state after the check. What the payer reads never
// claims more than the service said: an order with no payment has no
// payment "in progress".
func (s *shop) confirm(w http.ResponseWriter, r *http.Request) {
	orderID := r.URL.Query().Get("ref") // our reference, put in redirect_url at checkout
	if _, ok := s.orders.get(orderID); !ok {
		render(w, http.StatusNotFound, errorPage, map[string]any{"Message": "No such order."})
		return
	}
	st, err := s.sweeper.Confirm(r.Context(), orderID)
	if err != nil {
		log.Printf("confirm %s: %v", orderID, err)
		render(w, http.StatusBadGateway, errorPage, map[string]any{"Message": "Could not confirm the payment yet; refresh in a moment."})
		return
	}
	o, _ := s.orders.get(orderID) // after the check: credited by the handler
	data := map[string]any{"Order": o}
	if n := len(st.Events); n > 0 {
		data["Status"] = st.Events[n-1].Status
	}
	switch {
	case o.PaymentURL != "":
		data["PayAgain"] = template.URL(o.PaymentURL) // an http(s) URL, checked by the SDK
	case o.Intent != nil:
		data["PayAgain"] = payPath(orderID)
	}
	switch st.State {
	case reconcile.Paid, reconcile.LatePaid:
		render(w, http.StatusOK, paidPage, data)
	case reconcile.Failed:
		render(w, http.StatusOK, failedPage, data)
	case reconcile.Mismatch:
		render(w, http.StatusConflict, errorPage, map[string]any{"Message": "The amount paid does not match the order."})
	case reconcile.Untracked:
		render(w, http.StatusGone, errorPage, map[string]any{"Message": "This order was cancelled."})
	default:
		// Pending or expired: nothing has reached the service for this
		// order, or the bank has not told it yet.
		render(w, http.StatusOK, notFoundPage, data)
	}
}

func render(w http.ResponseWriter, code int, t *template.Template, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	if err := t.Execute(w, data); err != nil {
		log.Printf("render: %v", err)
	}
}
