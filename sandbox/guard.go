package sandbox

import (
	"net/http"
	"net/url"

	"github.com/upicollect/upicollect-go/loopback"
)

// localHost reports whether host (a Host header) names this machine's
// loopback or an address the sandbox was configured with (its own URL,
// WithPublicURL's), by loopback.Guard's rule. The order list, the hosted
// payment pages and the control endpoints answer only such hosts, so that
// a web page whose domain is made to resolve to 127.0.0.1 (DNS rebinding)
// cannot read customers' details or settle orders.
func (s *Service) localHost(host string) bool {
	return loopback.Guard{Hosts: s.ownHosts}.AllowHost(host)
}

// ownHosts are the hosts of the sandbox's own URL and of WithPublicURL's.
func (s *Service) ownHosts() []string {
	s.mu.Lock()
	self := s.selfURL
	s.mu.Unlock()
	var hosts []string
	for _, u := range []string{self, s.cfg.publicURL} {
		if p, err := url.Parse(u); err == nil && u != "" {
			hosts = append(hosts, p.Host)
		}
	}
	return hosts
}

// sameOrigin reports whether a state-changing control call may proceed: a
// browser's cross-site request is refused (by Sec-Fetch-Site, else by
// Origin), a top-level navigation too (loopback.Guard without
// Navigations); same-origin requests and requests from non-browsers
// (curl, scripts: neither header) pass.
func sameOrigin(r *http.Request) bool { return loopback.Guard{}.AllowOrigin(r) }
