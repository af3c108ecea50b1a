package sandbox

import (
	"net/http"
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

// routeTable is every path the sandbox serves, as ServeMux method
// patterns: a GET pattern serves HEAD too, and ServeMux itself answers a
// method a path does not serve with 405 and Allow. Under the API a
// method other than POST gets the service's own 405, in its envelope.
func (s *Service) routeTable() []route {
	return []route{
		{"POST " + apiPrefix + "{op}", true, false, s.serveAPI},
		{apiPrefix + "{op}", true, false, s.serveWrongMethod},
		{apiPrefix, false, false, page(s.serveNotFound)},                     // deeper paths: the API's own 404
		{"GET " + pagePrefix + "{order_id}", false, true, page(s.servePage)}, // it shows the customer's name
		{"GET " + qrPrefix + "{file}", false, false, page(s.serveQR)},
		{"GET /{$}", false, true, page(s.serveIndex)},
		{"GET " + ordersPath, false, true, page(s.serveOrders)},
		{"GET " + ordersPath + "/{order_id}", false, true, page(s.serveOrder)},
		{"POST " + ordersPath + "/{order_id}/pay", false, true, s.servePay},
		{"GET " + clockPath, false, true, page(s.serveClock)},
		{"POST " + clockPath, false, true, s.moveClock},
		{"GET " + statsPath, false, true, page(s.serveStats)},
		{"DELETE " + statsPath, false, true, page(s.clearStats)},
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

// ServeHTTP serves r through the route table. Every request is recorded
// (Requests) and counted, routed or not; ServeMux answers a path with no
// route 404 and a path served for other methods 405 with Allow.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x := &statusWriter{ResponseWriter: w, req: &request{at: s.now()}}
	defer s.finish(r, x, time.Now())
	if _, pattern := s.mux.Handler(r); pattern == "" {
		x.req.rec = s.log.add(r, nil, x.req.at) // no route reads it
	}
	s.mux.ServeHTTP(x, r) // sets r's path values; a route's handler takes x back
}

// routed wraps rt's handler: read and record the request once, keep the
// order list, the hosted pages and the control endpoints to local hosts,
// then serve.
func (s *Service) routed(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x := w.(*statusWriter) // ServeHTTP hands every request to the mux in one
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
