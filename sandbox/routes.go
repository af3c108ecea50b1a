package sandbox

import (
	"net/http"
	"strings"
	"time"

	"github.com/upicollect/upicollect-go/internal/vocab"
)

// Paths the sandbox serves.
const (
	apiPrefix    = vocab.PathPrefix
	pagePrefix   = "/sandbox/pay/"
	qrPrefix     = "/sandbox/qr/"
	ordersPath   = "/sandbox/orders"
	variantsPath = "/sandbox/variants"
	faultsPath   = "/sandbox/faults"
	clockPath    = "/sandbox/clock"
	statsPath    = "/sandbox/stats"
)

// route is one entry of the route table: a net/http.ServeMux pattern and
// what ServeHTTP does for it before the handler runs.
type route struct {
	pattern string
	api     bool // an API operation: credentials, quota, faults, latency
	local   bool // order list, hosted pages and control: loopback or configured Host only
	serve   handlerFunc
}

// handlerFunc serves one route; req is what was read of the request.
type handlerFunc func(w http.ResponseWriter, r *http.Request, req *request)

// page adapts a handler that needs nothing read of the request.
func page(h http.HandlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, _ *request) { h(w, r) }
}

// routeTable is every path the sandbox serves. A GET pattern serves HEAD
// too; the API pattern takes every method and answers 405 itself, in the
// service's envelope.
func (s *Service) routeTable() []route {
	return []route{
		{apiPrefix + "{op}", true, false, s.serveAPI},
		{apiPrefix, false, false, page(s.serveNotFound)},               // deeper paths: the API's own 404
		{"GET " + pagePrefix + "{id}", false, true, page(s.servePage)}, // it shows the customer's name
		{"GET " + qrPrefix + "{file}", false, false, page(s.serveQR)},
		{"GET /{$}", false, true, page(s.serveIndex)},
		{"GET " + ordersPath, false, true, page(s.serveOrders)},
		{"GET " + ordersPath + "/{id}", false, true, page(s.serveOrder)},
		{"POST " + ordersPath + "/{id}/pay", false, true, s.servePay},
		{"GET " + clockPath, false, true, page(s.serveClock)},
		{"POST " + clockPath, false, true, s.moveClock},
		{"GET " + statsPath, false, true, page(s.serveStats)},
		{"DELETE " + statsPath, false, true, page(s.resetStats)},
		{"GET " + variantsPath, false, true, page(s.serveVariants)},
		{"POST " + variantsPath, false, true, s.switchVariants},
		{"POST " + faultsPath, false, true, s.addFault},
		{"DELETE " + faultsPath, false, true, page(s.clearFaults)},
	}
}

// newMux registers the route table on a ServeMux.
func (s *Service) newMux() *http.ServeMux {
	mux := http.NewServeMux()
	for _, rt := range s.routeTable() {
		mux.Handle(rt.pattern, s.routed(rt))
	}
	return mux
}

// ServeHTTP routes r through the route table. Every request is recorded
// (Requests) and counted, routed or not; a path with no route answers 404
// (JSON under the API, a page elsewhere) and a path served for other
// methods answers 405 with Allow.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x := &exchange{ResponseWriter: w, req: &request{at: s.now()}}
	defer s.finish(r, x, time.Now())
	if _, pattern := s.mux.Handler(r); pattern != "" {
		s.mux.ServeHTTP(x, r) // sets r's path values; the route's handler takes x back
		return
	}
	x.req.rec = s.log.add(r, nil, x.req.at)
	if allowed := s.allowedMethods(r); len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		http.Error(x, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	http.NotFound(x, r)
}

// allowedMethods lists the methods the route table serves at r's path.
func (s *Service) allowedMethods(r *http.Request) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
		probe := *r
		probe.Method = m
		if _, pattern := s.mux.Handler(&probe); pattern != "" {
			out = append(out, m)
		}
	}
	return out
}

// routed wraps rt's handler: read and record the request once, keep the
// order list, the hosted pages and the control endpoints to local hosts,
// then serve.
func (s *Service) routed(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x := w.(*exchange) // ServeHTTP hands every request to the mux in one
		s.read(w, r, rt, x.req)
		if x.req.bodyErr == nil {
			// The body is in; a handler that takes its time (a scripted
			// delay) must not be cut off by the server's read timeout.
			// After a failed read the deadline stays, so that the
			// connection ends.
			_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
		}
		if rt.local && !s.localHost(r.Host) {
			http.Error(w, "misdirected request: this address serves only "+
				"loopback hosts and the configured address", http.StatusMisdirectedRequest)
			return
		}
		rt.serve(w, r, x.req)
	})
}
