// Package dashboard serves a read-only web dashboard of a reconcile
// ledger: how many orders are in each state, the outcomes over time as a
// chart, the orders that need a person (paid late, paid the wrong amount,
// never known to the service), and each order with its checks and events.
// It is the page behind `upicollect reconcile serve`; it lives outside the
// command's package so that the browser tests of the e2e module can serve
// it, and it is not part of the SDK's API.
//
// It only reads the ledger (Ledger's methods): nothing is checked,
// recorded or delivered. Pages are rendered on the server with
// html/template: no script, no external asset, times in India time (IST).
// Requests must name this machine (a loopback Host, or one the server was
// given), and a browser's cross-site request other than a top-level
// navigation is refused, so that a web page cannot read the ledger through
// the user's browser (DNS rebinding, cross-site embedding).
package dashboard

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/loopback"
	"github.com/upicollect/upicollect-go/reconcile"
)

// Ledger is what the dashboard reads of a ledger: its read side,
// reconcile.Reader.
type Ledger = reconcile.Reader

// IST is India Standard Time, the zone the dashboard shows times in.
//
// Deprecated: use upicollect.IndiaTime, the SDK's one India time zone,
// which IST is.
var IST = upicollect.IndiaTime

// States are the states of a ledger's orders, in the order the dashboard
// shows them.
var States = []reconcile.State{
	reconcile.Pending, reconcile.Paid, reconcile.Failed, reconcile.Expired,
	reconcile.LatePaid, reconcile.Mismatch, reconcile.Untracked,
}

// Limits of what one page reads.
const (
	// ChartOrders is how many of the newest orders the chart counts the
	// events of.
	ChartOrders = 1000
	// ChartDays is how many days, today included, the chart shows.
	ChartDays = 14
	// attentionRows bounds each list of orders that need a person.
	attentionRows = 50
	// pageRows is how many orders a list page shows.
	pageRows = 50
	// readTimeout bounds the ledger reads of one page.
	readTimeout = 10 * time.Second
)

// Option configures the dashboard.
type Option func(*options)

type options struct {
	now    func() time.Time
	hosts  []string
	logger *slog.Logger
	// staleAfter: see WithStaleAfter.
	staleAfter time.Duration
}

// WithClock sets the clock of "today" in the chart (default time.Now).
func WithClock(now func() time.Time) Option {
	return func(o *options) {
		if now != nil {
			o.now = now
		}
	}
}

// WithHosts adds host names (or addresses) the Host header may carry
// besides the loopback ones: the names of a dashboard served beyond this
// machine.
func WithHosts(hosts ...string) Option {
	return func(o *options) {
		for _, h := range hosts {
			o.hosts = append(o.hosts, loopback.HostName(h))
		}
	}
}

// WithLogger logs each refused request and each failed ledger read.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) { o.logger = l }
}

//go:embed templates/*.html
var templateFS embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"ist":        istTime,
	"rupees":     rupees,
	"orderURL":   orderURL,
	"stateName":  stateName,
	"legendName": func(l legendItem) string { return l.Name },
	"resultName": func(r reconcile.Result) string { return stateName(reconcile.State(r)) },
}).ParseFS(templateFS, "templates/*.html"))

type handler struct {
	ledger Ledger
	opts   options
	mux    *http.ServeMux
}

// New returns the dashboard's handler over l. Its pages: / (the overview),
// /orders?state=S (a list, paged with before=ORDER_ID) and /orders/ID (one
// order; the id percent-encoded as one path segment, %2E for a dot
// included), also at /order?id=ID, where the pages link the orders "."
// and "..".
func New(l Ledger, opts ...Option) http.Handler {
	o := options{now: time.Now, staleAfter: DefaultStaleAfter}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.logger == nil {
		o.logger = upicollect.DiscardLogger()
	}
	h := &handler{ledger: l, opts: o, mux: http.NewServeMux()}
	h.mux.HandleFunc("GET /{$}", h.overview)
	h.mux.HandleFunc("GET /orders", h.list)
	h.mux.HandleFunc("GET /orders/{id}", func(w http.ResponseWriter, r *http.Request) { h.order(w, r, r.PathValue("id")) })
	h.mux.HandleFunc("GET /order", func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("id")
		if id == "" {
			http.Error(w, "want /order?id=ORDER_ID", http.StatusBadRequest)
			return
		}
		h.order(w, r, id)
	})
	return h
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	if !h.allowedHost(r.Host) {
		h.refuse(w, r, "host")
		return
	}
	if !h.allowedOrigin(r) {
		h.refuse(w, r, "origin")
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "the dashboard only reads: GET or HEAD", http.StatusMethodNotAllowed)
		return
	}
	h.mux.ServeHTTP(w, r)
}

func (h *handler) refuse(w http.ResponseWriter, r *http.Request, why string) {
	h.opts.logger.Warn("dashboard: request refused", "why", why, "method", r.Method, "path", r.URL.Path)
	http.Error(w, "forbidden: the dashboard answers requests to this machine from its own pages only", http.StatusForbidden)
}

// --- pages ----------------------------------------------------------------

// stateCount is one card of the overview.
type stateCount struct {
	State reconcile.State
	Count int
	Help  string
}

var stateHelp = map[reconcile.State]string{
	reconcile.Pending:   "no outcome yet: still checked",
	reconcile.Paid:      "paid the expected amount",
	reconcile.Failed:    "failed or rejected; checked for a late payment",
	reconcile.Expired:   "no outcome in the payer's window; checked for a late payment",
	reconcile.LatePaid:  "paid after it was reported failed or expired",
	reconcile.Mismatch:  "paid another amount than expected",
	reconcile.Untracked: "no longer checked",
}

// row is one order in a table.
type row struct {
	ID        string
	State     reconcile.State
	Amount    upicollect.Money
	Paid      upicollect.Money // what the last event reported paid; 0 when none
	Created   time.Time
	LastEvent time.Time
	UTR       string
	Checks    int
}

func newRow(s *reconcile.OrderState) row {
	r := row{ID: s.Order.ID, State: s.State, Amount: s.Order.Amount, Created: s.Order.Created, Checks: s.Checks}
	if n := len(s.Events); n > 0 {
		e := s.Events[n-1]
		r.LastEvent = e.At
		if e.Status != nil {
			r.UTR = e.Status.UTR
			if e.Status.Paid() {
				r.Paid = e.Status.Amount
			}
		}
	}
	return r
}

// attention is one list of orders that need a person.
type attention struct {
	Key   string // anchor and test hook
	Title string
	Help  string
	Rows  []row
	More  string // link to the full list, when there may be more
}

type overviewPage struct {
	Title     string
	Now       time.Time
	Counts    []stateCount
	Total     int
	Chart     chart
	Attention []attention
	Recent    []row
	Consumers []consumerRow
	// StaleAfter is how long a consumer with pending events may go
	// unseen before it is flagged.
	StaleAfter time.Duration
}

// consumerRow is one consumer on the overview.
type consumerRow struct {
	reconcile.Consumer
	Stale bool
}

// DefaultStaleAfter is how long a consumer with pending events may go
// without a step before the dashboard (and `upicollect reconcile
// consumers`) flag it: six of `reconcile run`'s default --interval.
const DefaultStaleAfter = 3 * time.Minute

// WithStaleAfter sets how long a consumer with pending events may go
// without a step before the overview flags it (default
// DefaultStaleAfter); a d not above 0 keeps the default.
func WithStaleAfter(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.staleAfter = d
		}
	}
}

func (h *handler) overview(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readTimeout)
	defer cancel()
	counts, err := h.ledger.Counts(ctx)
	if err != nil {
		h.failed(w, r, "counting the orders", err)
		return
	}
	p := overviewPage{Title: "Ledger", Now: h.opts.now()}
	for _, st := range States {
		p.Counts = append(p.Counts, stateCount{State: st, Count: counts[st], Help: stateHelp[st]})
		p.Total += counts[st]
	}
	for st, n := range counts { // a state this page does not know yet still counts
		if stateHelp[st] == "" {
			p.Counts = append(p.Counts, stateCount{State: st, Count: n})
			p.Total += n
		}
	}
	recent, err := h.ledger.List(ctx, reconcile.ListQuery{Limit: ChartOrders})
	if err != nil {
		h.failed(w, r, "listing the orders", err)
		return
	}
	p.Chart = newChart(recent, p.Now, ChartDays)
	for i := range recent[:min(len(recent), 10)] {
		p.Recent = append(p.Recent, newRow(&recent[i]))
	}
	lists := []struct {
		key, title, help string
		state            reconcile.State
		keep             func(*reconcile.OrderState) bool
	}{
		{"late_paid", "Paid late", "Money arrived after the order was reported failed or expired: fulfil it or refund it.", reconcile.LatePaid, nil},
		{"mismatch", "Paid the wrong amount", "The payment succeeded for another amount: refund it, or collect the rest.", reconcile.Mismatch, nil},
		{"unknown", "Never known to the service", "Expired, and the service never said it knew them: never created (a create that never arrived), a wrong id, or never paid (the service answers the same for all three). Check how they were created.", reconcile.Expired, notFound},
	}
	for _, l := range lists {
		limit := attentionRows + 1
		if l.keep != nil {
			limit = 500
		}
		orders, err := h.ledger.List(ctx, reconcile.ListQuery{States: []reconcile.State{l.state}, Limit: limit})
		if err != nil {
			h.failed(w, r, "listing the orders "+string(l.state), err)
			return
		}
		a := attention{Key: l.key, Title: l.title, Help: l.help}
		for i := range orders {
			if l.keep != nil && !l.keep(&orders[i]) {
				continue
			}
			if len(a.Rows) == attentionRows {
				a.More = "/orders?state=" + url.QueryEscape(string(l.state))
				break
			}
			a.Rows = append(a.Rows, newRow(&orders[i]))
		}
		if l.keep != nil && len(orders) == limit && a.More == "" {
			a.More = "/orders?state=" + url.QueryEscape(string(l.state))
		}
		p.Attention = append(p.Attention, a)
	}
	cs, err := h.ledger.Consumers(ctx)
	if err != nil {
		h.failed(w, r, "listing the consumers", err)
		return
	}
	p.StaleAfter = h.opts.staleAfter
	for _, c := range cs {
		p.Consumers = append(p.Consumers, consumerRow{Consumer: c, Stale: c.Stale(p.Now, h.opts.staleAfter)})
	}
	h.render(w, r, "overview.html", p)
}

// notFound reports whether s expired because the service never knew it.
func notFound(s *reconcile.OrderState) bool {
	for _, e := range s.Events {
		if e.Result == reconcile.Expired && e.Reason == reconcile.ReasonNotFound {
			return true
		}
	}
	return false
}

type listPage struct {
	Title  string
	State  reconcile.State // "" for all
	States []reconcile.State
	Rows   []row
	Next   string // the next page's link; "" on the last
}

func (h *handler) list(w http.ResponseWriter, r *http.Request) {
	q := reconcile.ListQuery{Limit: pageRows + 1, Before: r.URL.Query().Get("before")}
	p := listPage{Title: "All orders", States: States}
	if s := r.URL.Query().Get("state"); s != "" {
		st, ok := knownState(s)
		if !ok {
			http.Error(w, "unknown state", http.StatusBadRequest)
			return
		}
		q.States, p.State, p.Title = []reconcile.State{st}, st, "Orders "+stateName(st)
	}
	ctx, cancel := context.WithTimeout(r.Context(), readTimeout)
	defer cancel()
	orders, err := h.ledger.List(ctx, q)
	if err != nil {
		h.failed(w, r, "listing the orders", err)
		return
	}
	for i := range orders[:min(len(orders), pageRows)] {
		p.Rows = append(p.Rows, newRow(&orders[i]))
	}
	if len(orders) > pageRows {
		v := url.Values{"before": {orders[pageRows-1].Order.ID}}
		if p.State != "" {
			v.Set("state", string(p.State))
		}
		p.Next = "/orders?" + v.Encode()
	}
	h.render(w, r, "list.html", p)
}

func knownState(s string) (reconcile.State, bool) {
	for _, st := range States {
		if string(st) == s {
			return st, true
		}
	}
	return "", false
}

// eventView is one event on an order's page.
type eventView struct {
	At        time.Time
	Result    reconcile.Result
	TxnStatus string
	Paid      upicollect.Money
	UTR       string
	VPA       string // masked
	Reason    string
	// DeliveredTo names the consumers the event reached.
	DeliveredTo []string
}

type orderPage struct {
	Title  string
	Order  *reconcile.OrderState
	Events []eventView
}

// order is the page of order id.
func (h *handler) order(w http.ResponseWriter, r *http.Request, id string) {
	ctx, cancel := context.WithTimeout(r.Context(), readTimeout)
	defer cancel()
	s, err := h.ledger.Lookup(ctx, id)
	if errors.Is(err, reconcile.ErrNotTracked) {
		w.WriteHeader(http.StatusNotFound)
		h.render(w, r, "notfound.html", struct{ Title, ID string }{"Not in the ledger", id})
		return
	}
	if err != nil {
		h.failed(w, r, "reading the order", err)
		return
	}
	p := orderPage{Title: "Order " + s.Order.ID, Order: s}
	for _, e := range s.Events {
		v := eventView{At: e.At, Result: e.Result, Reason: e.Reason, DeliveredTo: e.DeliveredTo}
		if e.Status != nil {
			v.TxnStatus, v.UTR, v.VPA = string(e.Status.TxnStatus), e.Status.UTR, upicollect.MaskVPA(e.Status.VPA)
			if e.Status.Paid() {
				v.Paid = e.Status.Amount
			}
		}
		p.Events = append(p.Events, v)
	}
	h.render(w, r, "order.html", p)
}

// failed answers 500 for a ledger read that failed; the error goes to the
// log only (it may name the database).
func (h *handler) failed(w http.ResponseWriter, r *http.Request, what string, err error) {
	h.opts.logger.Error("dashboard: "+what, "path", r.URL.Path, "error", err.Error())
	http.Error(w, "the ledger could not be read ("+what+"); see the server's log", http.StatusInternalServerError)
}

func (h *handler) render(w http.ResponseWriter, r *http.Request, name string, data any) {
	var b strings.Builder
	if err := pages.ExecuteTemplate(&b, name, data); err != nil {
		h.failed(w, r, "rendering "+name, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write([]byte(b.String()))
}

// --- formatting -------------------------------------------------------------

// istTime is t in India time, "26 Nov 2026, 10:04:05 IST"; "" when zero.
func istTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(upicollect.IndiaTime).Format("02 Jan 2006, 15:04:05 MST")
}

// rupees is "₹499.00"; "" for 0.
func rupees(m upicollect.Money) string {
	if m == 0 {
		return ""
	}
	return "₹" + m.String()
}

// orderURL is the link to order id's page: /orders/ID, the id
// percent-encoded as one path segment ("a/b" is /orders/a%2Fb). The ids
// "." and ".." go in the query instead (/order?id=..): a browser resolves
// a path segment "." or ".." away, and so it does "%2E" and "%2E%2E"
// (the WHATWG URL standard reads them as dots), so no spelling of them in
// the path reaches the server.
func orderURL(id string) string {
	if id == "." || id == ".." {
		return "/order?" + url.Values{"id": {id}}.Encode()
	}
	return "/orders/" + url.PathEscape(id)
}

// stateName is a state for a person: "late paid".
func stateName(st reconcile.State) string { return strings.ReplaceAll(string(st), "_", " ") }
