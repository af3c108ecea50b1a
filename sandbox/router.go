package sandbox

import (
	"net/http"
	"net/url"
	"strings"
)

// Paths the sandbox serves.
const (
	apiPrefix    = "/v1/payments/"
	pagePrefix   = "/sandbox/pay/"
	qrPrefix     = "/sandbox/qr/"
	ordersPath   = "/sandbox/orders"
	variantsPath = "/sandbox/variants"
	faultsPath   = "/sandbox/faults"
	clockPath    = "/sandbox/clock"
	statsPath    = "/sandbox/stats"
)

// handlerFunc serves one route; req is what ServeHTTP read of the request.
type handlerFunc func(w http.ResponseWriter, r *http.Request, req *request)

// route is one entry of the routing table.
type route struct {
	method  string   // "" for any; GET also serves HEAD
	pattern []string // path segments; "{name}" matches one, unescaped
	api     bool     // an API operation: credentials, faults, latency
	local   bool     // order list and control: loopback or configured Host only
	serve   handlerFunc
}

// page adapts a handler that needs nothing ServeHTTP read.
func page(h http.HandlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, _ *request) { h(w, r) }
}

func (s *Service) routeTable() []route {
	return []route{
		{"", seg(apiPrefix + "{op}"), true, false, s.serveAPI},
		{"GET", seg(pagePrefix + "{id}"), false, false, page(s.servePage)},
		{"GET", seg(qrPrefix + "{file}"), false, false, page(s.serveQR)},
		{"GET", seg("/"), false, true, page(s.serveIndex)},
		{"GET", seg(ordersPath), false, true, page(s.serveOrders)},
		{"GET", seg(ordersPath + "/{id}"), false, true, page(s.serveOrder)},
		{"POST", seg(ordersPath + "/{id}/pay"), false, true, s.servePay},
		{"GET", seg(clockPath), false, true, page(s.serveClock)},
		{"GET", seg(statsPath), false, true, page(s.serveStats)},
		{"DELETE", seg(statsPath), false, true, page(s.resetStats)},
		{"GET", seg(variantsPath), false, true, page(s.serveVariants)},
		{"POST", seg(variantsPath), false, true, s.switchVariants},
		{"POST", seg(faultsPath), false, true, s.addFault},
		{"DELETE", seg(faultsPath), false, true, page(s.clearFaults)},
	}
}

// match finds r's route and sets its path values. With no route it returns
// nil and the methods the path allows (none: 404).
func (s *Service) match(r *http.Request) (*route, []string) {
	path := seg(r.URL.EscapedPath())
	var allowed []string
	for i := range s.routes {
		rt := &s.routes[i]
		vals, ok := matchPath(rt.pattern, path)
		if !ok {
			continue
		}
		if rt.method != "" && rt.method != r.Method && !(rt.method == "GET" && r.Method == "HEAD") {
			allowed = append(allowed, rt.method)
			continue
		}
		for k, v := range vals {
			r.SetPathValue(k, v)
		}
		return rt, nil
	}
	return nil, allowed
}

func seg(p string) []string { return strings.Split(strings.TrimPrefix(p, "/"), "/") }

// matchPath matches escaped path segments against pattern.
func matchPath(pattern, path []string) (map[string]string, bool) {
	if len(pattern) != len(path) {
		return nil, false
	}
	var vals map[string]string
	for i, p := range pattern {
		name, wild := strings.CutPrefix(p, "{")
		if !wild {
			if p != path[i] {
				return nil, false
			}
			continue
		}
		v, err := url.PathUnescape(path[i])
		if err != nil || v == "" {
			return nil, false
		}
		if vals == nil {
			vals = map[string]string{}
		}
		vals[strings.TrimSuffix(name, "}")] = v
	}
	return vals, true
}
