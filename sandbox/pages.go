package sandbox

import (
	"bytes"
	"html/template"
	"net/http"
	"net/url"
	"time"

	"github.com/upicollect/upicollect-go/internal/mask"
)

// pageData is what the hosted page shows.
type pageData struct {
	Title        string
	Merchant     string
	MerchantVPA  string
	Order        Order
	Amount       string
	Email        string
	Mobile       string
	VPA          string // the payer\'s UPI ID, masked
	Outcome      string // what a settled status means, in words
	QR           string
	UPILink      template.URL // upi:// would otherwise be filtered as unsafe
	PayAction    string
	Pending      bool
	Expires      string
	Problem      string
	ReturnURL    string
	SettledLocal string
}

// serveIndex answers GET / with a list of orders and their pages.
func (s *Server) serveIndex(w http.ResponseWriter, _ *http.Request) {
	render(w, http.StatusOK, "index", struct {
		Title    string
		Merchant string
		MID      string
		Orders   []Order
	}{"Sandbox", s.cfg.merchantName, s.cfg.mid, s.Orders()})
}

// outcomes says in words what each final status means for the payer.
var outcomes = map[string]string{
	StatusSuccess: "Payment received. The merchant confirms it with the status check.",
	StatusFail:    "The payment failed: no money moved. The merchant can create a new order.",
	StatusReject:  "The payer declined the request: no money moved.",
}

// servePage answers GET /sandbox/pay/{id}: the hosted payment page.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	s.renderPage(w, r, http.StatusOK, r.PathValue("id"), "")
}

// renderPage shows the order's page, with problem as a notice if any, or a
// 404 page for an unknown order.
func (s *Server) renderPage(w http.ResponseWriter, _ *http.Request, code int, id, problem string) {
	o, ok := s.Order(id)
	if !ok {
		render(w, http.StatusNotFound, "notfound", struct{ Title, ID string }{"Order not found", id})
		return
	}
	d := pageData{
		Title:       "Pay ₹" + o.Amount + " to " + s.cfg.merchantName,
		Merchant:    s.cfg.merchantName,
		MerchantVPA: s.cfg.merchantVPA,
		Order:       o,
		Amount:      o.Amount,
		Email:       mask.Email(o.Customer.Email),
		Mobile:      mask.Mobile(o.Customer.Mobile),
		VPA:         mask.VPA(o.VPA),
		Outcome:     outcomes[o.Status],
		QR:          qrPrefix + url.PathEscape(o.OrderID) + ".png",
		UPILink:     template.URL("upi://pay?" + s.upiQuery(&o)),
		PayAction:   ordersPath + "/" + url.PathEscape(o.OrderID) + "/pay",
		Pending:     o.Status == StatusPending,
		Problem:     problem,
	}
	if !o.ExpiresAt.IsZero() {
		d.Expires = o.ExpiresAt.In(indiaTime).Format(time.DateTime) + " IST"
	}
	if !o.SettledAt.IsZero() {
		d.SettledLocal = o.SettledAt.In(indiaTime).Format(time.DateTime) + " IST"
		d.Title = "Payment " + o.Status + " – " + s.cfg.merchantName
	}
	if o.Kind == KindIntent && !d.Pending {
		d.ReturnURL = afterPayURL(o)
	}
	render(w, code, "page", d)
}

// render executes a template into a buffer first so that a failure does not
// leave half a page.
func render(w http.ResponseWriter, code int, name string, data any) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
}

// pages holds the hosted pages: no external assets, so they work offline.
var pages = template.Must(template.New("pages").Parse(`
{{define "head"}}<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f4f6;color:#111827}
main{max-width:420px;margin:0 auto;padding:16px}
.card{background:#fff;border-radius:12px;padding:20px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
.banner{background:#fef3c7;color:#92400e;text-align:center;font-size:13px;padding:6px;border-radius:8px;margin-bottom:12px}
.amount{font-size:36px;font-weight:700;margin:4px 0}
.muted{color:#6b7280;font-size:14px}
dl{display:grid;grid-template-columns:auto 1fr;gap:4px 12px;font-size:14px;margin:16px 0}
dt{color:#6b7280}dd{margin:0;word-break:break-all}
.qr{display:block;width:100%;max-width:260px;height:auto;margin:12px auto;image-rendering:pixelated}
.buttons{display:grid;gap:10px;margin-top:16px}
button{font:inherit;font-weight:600;padding:14px;border:0;border-radius:10px;cursor:pointer;color:#fff}
.pay{background:#059669}.fail{background:#dc2626}.reject{background:#6b7280}
.status{font-size:22px;font-weight:700}
.SUCCESS{color:#059669}.FAIL,.REJECT{color:#dc2626}.PENDING{color:#d97706}
.notice{background:#fee2e2;color:#991b1b;padding:10px;border-radius:8px;margin-top:12px}
a{color:#2563eb}
table{width:100%;border-collapse:collapse;font-size:14px}td,th{padding:6px;border-bottom:1px solid #e5e7eb;text-align:left}
</style>
</head>
<body><main>
<div class="banner">Sandbox: no real money moves</div>
{{end}}

{{define "foot"}}</main></body></html>
{{end}}

{{define "page"}}{{template "head" .}}
<div class="card">
<div class="muted">Pay {{.Merchant}} <span>({{.MerchantVPA}})</span></div>
<div class="amount">₹{{.Amount}}</div>
<div>{{.Order.Note}}</div>
<dl>
<dt>Order</dt><dd>{{.Order.OrderID}}</dd>
<dt>Customer</dt><dd>{{.Order.Customer.Name}}</dd>
<dt>E-mail</dt><dd>{{.Email}}</dd>
<dt>Mobile</dt><dd>{{.Mobile}}</dd>
{{if .VPA}}<dt>UPI ID</dt><dd>{{.VPA}}</dd>{{end}}
{{if .Expires}}<dt>Expires</dt><dd>{{.Expires}}</dd>{{end}}
</dl>
{{if .Pending}}
<img class="qr" src="{{.QR}}" alt="UPI QR code for order {{.Order.OrderID}}" width="260" height="260">
<p class="muted" style="text-align:center"><a href="{{.UPILink}}">Open in a UPI app</a></p>
<form method="post" action="{{.PayAction}}" class="buttons">
<input type="hidden" name="return" value="page">
<button class="pay" name="result" value="SUCCESS">Pay ₹{{.Amount}}</button>
<button class="fail" name="result" value="FAIL">Fail</button>
<button class="reject" name="result" value="REJECT">Reject</button>
</form>
{{else}}
<div class="status {{.Order.Status}}">{{.Order.Status}}</div>
{{if .Outcome}}<p>{{.Outcome}}</p>{{end}}
{{if .Order.UTR}}<p>UTR <strong>{{.Order.UTR}}</strong></p>{{end}}
{{if .SettledLocal}}<p class="muted">{{.SettledLocal}}</p>{{end}}
{{if .ReturnURL}}<p><a href="{{.ReturnURL}}">Return to {{.Merchant}}</a></p>{{end}}
{{end}}
{{if .Problem}}<div class="notice">{{.Problem}}</div>{{end}}
</div>
{{template "foot" .}}{{end}}

{{define "notfound"}}{{template "head" .}}
<div class="card"><div class="status FAIL">Order not found</div>
<p>No order <strong>{{.ID}}</strong> exists in this sandbox.</p></div>
{{template "foot" .}}{{end}}

{{define "index"}}{{template "head" .}}
<div class="card">
<div class="status">{{.Merchant}}</div>
<p class="muted">MID {{.MID}}. API under <code>/v1/payments/</code>; orders as JSON at <a href="/sandbox/orders">/sandbox/orders</a>.</p>
{{if .Orders}}<table><tr><th>Order</th><th>₹</th><th>Status</th></tr>
{{range .Orders}}<tr><td><a href="/sandbox/pay/{{.OrderID}}">{{.OrderID}}</a></td><td>{{.Amount}}</td><td class="{{.Status}}">{{.Status}}</td></tr>
{{end}}</table>{{else}}<p>No orders yet.</p>{{end}}
</div>
{{template "foot" .}}{{end}}
`))
