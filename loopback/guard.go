package loopback

import (
	"net/http"
	"net/url"
	"strings"
)

// Guard decides which requests a server on loopback answers, so that a web
// page the user opens elsewhere cannot read or change what it serves. The
// zero Guard answers loopback names only and refuses every cross-site
// request of a browser. It is safe for concurrent use when Hosts is.
type Guard struct {
	// Hosts returns the names the server answers besides loopback's (a
	// configured public URL's host, a name given on the command line), as
	// HostName writes them or not; nil is none.
	Hosts func() []string
	// Navigations lets a browser's top-level navigation from another site
	// through (a GET of a document, as following a link is): it shows the
	// page to the person who followed the link. A cross-site fetch, frame,
	// image or form could hand the page to the other site, and is refused
	// either way. The dashboard, which only reads, sets it; the sandbox,
	// whose control calls change it, does not.
	Navigations bool
}

// AllowHost reports whether host, a request's Host header, names this
// machine: no name at all (HTTP/1.0, not a browser), "localhost" and every
// name under ".localhost" (browsers resolve them to loopback, RFC 6761),
// a loopback address, or one of Hosts. A web page whose domain is made to
// resolve to 127.0.0.1 (DNS rebinding) sends its own name, and is refused.
func (g Guard) AllowHost(host string) bool {
	name := HostName(host)
	if name == "" || strings.HasSuffix(name, ".localhost") || Host(name) {
		return true
	}
	if g.Hosts == nil {
		return false
	}
	for _, h := range g.Hosts() {
		if h != "" && HostName(h) == name {
			return true
		}
	}
	return false
}

// AllowOrigin reports whether r is not a browser's cross-site request:
// its Sec-Fetch-Site is absent, "same-origin" or "none" (typed in the
// address bar), or, with Navigations, r is a top-level navigation; and its
// Origin, when it has one, is r's own host over http or https. Requests
// without those headers (curl, scripts, the SDK) pass.
func (g Guard) AllowOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		if !g.Navigations || !navigation(r) {
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

// navigation reports whether r is a browser's top-level navigation: a GET
// of a document.
func navigation(r *http.Request) bool {
	return r.Method == http.MethodGet && r.Header.Get("Sec-Fetch-Mode") == "navigate" &&
		r.Header.Get("Sec-Fetch-Dest") == "document"
}
