package dashboard

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// The sandbox guards its pages the same way (sandbox/guard.go); its
// helpers are unexported, so the dashboard has its own few lines.

// allowedHost reports whether host (a Host header) names this machine's
// loopback, or a name the dashboard was given (WithHosts). A web page
// whose domain is made to resolve to 127.0.0.1 (DNS rebinding) sends its
// own name, and is refused.
func (h *handler) allowedHost(host string) bool {
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
	for _, ok := range h.opts.hosts {
		if ok != "" && ok == name {
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

// allowedOrigin refuses a browser's cross-site request (by Sec-Fetch-Site,
// else by Origin), except a top-level navigation: following a link to the
// dashboard shows it to the user who followed it, while a cross-site
// fetch, frame, image or form could hand its content to the other site.
// Requests without those headers (curl, scripts) pass.
func allowedOrigin(r *http.Request) bool {
	navigation := r.Method == http.MethodGet && r.Header.Get("Sec-Fetch-Mode") == "navigate" &&
		r.Header.Get("Sec-Fetch-Dest") == "document"
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		if !navigation {
			return false
		}
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && strings.EqualFold(u.Host, r.Host) && (u.Scheme == "http" || u.Scheme == "https")
}
