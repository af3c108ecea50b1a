package sandbox

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// localHost reports whether host (a Host header) names this machine's
// loopback or an address the sandbox was configured with. The order list,
// the hosted payment pages and the control endpoints answer only such
// hosts, so that a web page whose domain is made to resolve to 127.0.0.1
// (DNS rebinding) cannot read customers' details or settle orders.
func (s *Service) localHost(host string) bool {
	name := hostName(host)
	if name == "" {
		return true // HTTP/1.0 without Host: not a browser
	}
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	if ip := net.ParseIP(name); ip != nil && ip.IsLoopback() {
		return true
	}
	s.mu.Lock()
	self := s.selfURL
	s.mu.Unlock()
	for _, u := range []string{self, s.cfg.publicURL} {
		if p, err := url.Parse(u); err == nil && u != "" && strings.EqualFold(hostName(p.Host), name) {
			return true
		}
	}
	return false
}

// hostName is host without its port or IPv6 brackets, lower-cased.
func hostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.ToLower(strings.Trim(host, "[]"))
}

// sameOrigin reports whether a state-changing control call may proceed: a
// browser's cross-site request is refused (by Sec-Fetch-Site, else by
// Origin); same-origin requests and requests from non-browsers (curl,
// scripts: neither header) pass.
func sameOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && strings.EqualFold(u.Host, r.Host) && (u.Scheme == "http" || u.Scheme == "https")
}
