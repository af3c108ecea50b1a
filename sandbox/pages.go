package sandbox

import (
	"bytes"
	"embed"
	"errors"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/upicollect/upicollect-go/internal/mask"
	"github.com/upicollect/upicollect-go/internal/text"

	"github.com/upicollect/upicollect-go/internal/vocab"
)

// templateFS holds the hosted pages, parsed once into pages.
//
//go:embed templates/*.html
var templateFS embed.FS

var pages = template.Must(template.ParseFS(templateFS, "templates/*.html"))

// pageMeta is what every page's head needs.
type pageMeta struct {
	Title string
	Wide  bool // the order list uses the width of a laptop screen
}

// orderPage is what an order's hosted page shows.
type orderPage struct {
	pageMeta
	Merchant    string
	MerchantVPA string
	Order       Order
	Amount      string      // Indian digit grouping: 1,00,000.00
	Email       string      // masked
	Mobile      string      // masked
	VPA         string      // the payer's UPI ID, masked
	IsRequest   bool        // a payment request: approved in the payer's app
	Apps        []appButton // the hosted checkout's choice of UPI apps
	Payable     bool        // PENDING and not expired: the payer's buttons show
	Expired     bool        // an intent past its expiry, never paid
	Expires     string      // expiry in India time
	Created     string      // creation in India time
	Outcome     string      // what a final status means, in words
	QR          string
	QRWidth     int          // CSS pixels: a whole number per module (qrShownWidth)
	UPILink     template.URL // upi:// would otherwise be filtered as unsafe
	PayAction   string
	Problem     string // why the last button press changed nothing
	ReturnURL   string
	Settled     string   // settlement time in India time
	Scheduled   []string // changes to come, in words: "SUCCESS at 2025-01-15 20:30:00 IST"
}

// appButton opens the order's payment in one UPI app.
type appButton struct {
	Name string
	Link template.URL // an app's own scheme would otherwise be filtered as unsafe
}

// indexRow is one order in the order list.
type indexRow struct {
	OrderID, Kind, Amount, Status, Page string
	Created                             string // in India time
	Expired                             bool
	Scheduled                           []string // changes to come, in words
}

// outcomes says in words what each final status means for the payer.
var outcomes = map[string]string{
	StatusSuccess: "Payment received. The merchant confirms it with the status check.",
	StatusFail:    "The payment failed: no money moved. The merchant can create a new order.",
	StatusReject:  "The payer declined the request: no money moved.",
}

// serveIndex answers GET / with a list of orders and their pages.
func (s *Service) serveIndex(w http.ResponseWriter, r *http.Request) {
	now := s.now()
	orders := s.Orders()
	rows := make([]indexRow, len(orders))
	for i, o := range orders {
		rows[i] = indexRow{
			OrderID: o.OrderID, Kind: o.Kind, Amount: formatINR(o.AmountPaise), Status: o.Status,
			Page: pagePath(o.OrderID), Created: indiaDateTime(o.CreatedAt), Expired: expired(&o, now),
			Scheduled: scheduledText(o.Scheduled),
		}
	}
	s.render(w, r, http.StatusOK, "index.html", struct {
		pageMeta
		Merchant, MID, Now string
		Orders             []indexRow
	}{pageMeta{"Orders – " + s.cfg.merchantName + " sandbox", true}, s.cfg.merchantName, s.cfg.mid, indiaDateTime(now), rows})
}

// servePage answers GET /sandbox/pay/{id}: the hosted payment page.
func (s *Service) servePage(w http.ResponseWriter, r *http.Request) {
	s.renderPage(w, r, http.StatusOK, r.PathValue("order_id"), nil)
}

// renderPage shows the order's page, or a 404 page for an unknown order.
// problem, if not nil, is why the payer's last button press changed
// nothing: the page says so in words and the log has the error itself.
func (s *Service) renderPage(w http.ResponseWriter, r *http.Request, code int, id string, problem error) {
	o, ok := s.Order(id)
	if !ok {
		s.render(w, r, http.StatusNotFound, "notfound.html", struct {
			pageMeta
			ID string
		}{pageMeta{Title: "Order not found – sandbox"}, id})
		return
	}
	if problem != nil {
		s.logPageError(r, "hosted page: payment not settled", problem, slog.String("order_id", id))
	}
	s.render(w, r, code, "order.html", s.orderPage(&o, problem))
}

// orderPage builds the hosted page of o.
func (s *Service) orderPage(o *Order, problem error) orderPage {
	amount := formatINR(o.AmountPaise)
	d := orderPage{
		pageMeta:    pageMeta{Title: "Pay ₹" + amount + " to " + s.cfg.merchantName},
		Merchant:    s.cfg.merchantName,
		MerchantVPA: s.cfg.merchantVPA,
		Order:       *o,
		Amount:      amount,
		Email:       mask.Email(o.Customer.Email),
		Mobile:      mask.Mobile(o.Customer.Mobile),
		VPA:         mask.VPA(o.VPA),
		IsRequest:   o.Kind == KindRequest,
		Expired:     expired(o, s.now()),
		Outcome:     outcomes[o.Status],
		QR:          qrPrefix + url.PathEscape(o.OrderID) + ".png",
		QRWidth:     qrShownWidth("upi://pay?" + s.upiQuery(o)),
		UPILink:     template.URL("upi://pay?" + s.upiQuery(o)),
		PayAction:   ordersPath + "/" + url.PathEscape(o.OrderID) + "/pay",
		Problem:     problemText(problem),
		Scheduled:   scheduledText(o.Scheduled),
		Created:     indiaDateTime(o.CreatedAt),
	}
	if o.Kind == KindOrder {
		q := s.upiQuery(o)
		for _, app := range upiApps {
			d.Apps = append(d.Apps, appButton{vocab.AppName(app.field), template.URL(app.link + q)})
		}
	}
	// A payment the bank has yet to answer is not offered again.
	d.Payable = o.Status == StatusPending && !d.Expired && len(o.Scheduled) == 0
	if !o.ExpiresAt.IsZero() {
		d.Expires = indiaDateTime(o.ExpiresAt)
	}
	switch {
	case d.Expired:
		d.Title = "Payment expired – " + s.cfg.merchantName
	case !o.SettledAt.IsZero():
		d.Settled = indiaDateTime(o.SettledAt)
		d.Title = "Payment " + o.Status + " – " + s.cfg.merchantName
	}
	if o.RedirectURL != "" { // shown once settled
		d.ReturnURL = afterPayURL(*o)
	}
	return d
}

// expired reports whether o is an unpaid intent past its expiry with no
// bank outcome to come: the payer can no longer pay it.
func expired(o *Order, now time.Time) bool {
	return o.Status == StatusPending && len(o.Scheduled) == 0 && expiredAt(o, now)
}

// scheduledText says each coming change in words, in India time.
func scheduledText(cs []ScheduledChange) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Result+" at "+indiaDateTime(c.At))
	}
	return out
}

// indiaDateTime writes t as the payer reads it: "2025-01-15 15:35:00 IST".
func indiaDateTime(t time.Time) string {
	return t.In(vocab.IndiaTime).Format(vocab.ExpiryLayout) + " IST"
}

// pagePath is the hosted page's path of the order with id.
func pagePath(id string) string { return pagePrefix + url.PathEscape(id) }

// problemText says in words why a button press changed nothing; the error
// itself goes to the log only.
func problemText(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrOrderSettled):
		return "This order already has a final status, so nothing changed."
	case errors.Is(err, ErrIntentExpired):
		return "This payment expired before it was paid, so nothing changed."
	case errors.Is(err, ErrInvalidResult):
		return "Choose Pay, Fail or Reject."
	default:
		return "The sandbox could not record that, so nothing changed. Its log says why."
	}
}

// render executes a template into a buffer first so that a failure does not
// leave half a page, and answers a plain apology instead of the error. The
// page's text is written as the SDK's one definition of text safe to show
// (internal/text) allows.
func (s *Service) render(w http.ResponseWriter, r *http.Request, code int, name string, data any) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		s.logPageError(r, "hosted page failed", err, slog.String("template", name))
		http.Error(w, "The sandbox could not show this page. Its log says why.", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	// The pages load only their own QR image: the browser refuses anything
	// else, so a page can never fetch from outside the sandbox.
	h.Set("Content-Security-Policy", "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'")
	w.WriteHeader(code)
	// What a page shows of a request's text (an order id, a note, a name)
	// is escaped where it is not safe to show: a bidi override or a
	// zero-width character cannot reorder or hide what the payer reads.
	_, _ = io.WriteString(w, text.EscapeLaidOut(buf.String()))
}

// logPageError logs what a page does not show: the error itself.
func (s *Service) logPageError(r *http.Request, msg string, err error, attrs ...slog.Attr) {
	if l := s.cfg.logger; l != nil {
		attrs = append(attrs, slog.String("path", r.URL.Path), slog.String("error", err.Error()))
		l.LogAttrs(r.Context(), slog.LevelWarn, msg, attrs...)
	}
}
