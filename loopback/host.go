package loopback

import (
	"net"
	"strings"
)

// Host reports whether host names this machine's loopback: "localhost" in
// any case, or a loopback IP address (127.0.0.0/8, ::1), with or without
// IPv6 brackets. host carries no port (url.URL.Hostname, or the host of
// net.SplitHostPort). Host resolves nothing: a name that some resolver
// maps to 127.0.0.1 is not loopback here, so that a plain-http check
// cannot be talked into sending to another machine.
func Host(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	if len(host) > 1 && host[0] == '[' && host[len(host)-1] == ']' {
		host = host[1 : len(host)-1]
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// HostName is the name of a Host header or a HOST:PORT: without its port
// or IPv6 brackets, lower-cased ("[::1]:8787" is "::1", "Shop.LAN" is
// "shop.lan").
func HostName(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		hostport = h
	}
	return strings.ToLower(strings.Trim(hostport, "[]"))
}
