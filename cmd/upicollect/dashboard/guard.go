package dashboard

import (
	"net/http"

	"github.com/upicollect/upicollect-go/loopback"
)

// guard is the dashboard's loopback.Guard: it answers loopback names and
// the names WithHosts gave, and lets a browser's top-level navigation from
// another site through (following a link to the dashboard shows it to the
// person who followed it), while a cross-site fetch, frame, image or form,
// which could hand its content to the other site, is refused.
func (h *handler) guard() loopback.Guard {
	return loopback.Guard{Hosts: func() []string { return h.opts.hosts }, Navigations: true}
}

// allowedHost reports whether host (a Host header) names this machine's
// loopback, or a name the dashboard was given (WithHosts). A web page
// whose domain is made to resolve to 127.0.0.1 (DNS rebinding) sends its
// own name, and is refused.
func (h *handler) allowedHost(host string) bool { return h.guard().AllowHost(host) }

// allowedOrigin refuses a browser's cross-site request (by Sec-Fetch-Site,
// else by Origin), except a top-level navigation. Requests without those
// headers (curl, scripts) pass.
func (h *handler) allowedOrigin(r *http.Request) bool { return h.guard().AllowOrigin(r) }
