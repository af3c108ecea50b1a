package loopback

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestGuardAllowHost: loopback names and addresses, names under
// .localhost, no name, and the configured hosts (in any case, with any
// port) pass; a rebinding page's own name does not.
func TestGuardAllowHost(t *testing.T) {
	calls := 0
	g := Guard{Hosts: func() []string { calls++; return []string{"", "LAPTOP.lan:8787", "ledger.internal"} }}
	for _, h := range []string{"", "localhost", "localhost:1234", "LocalHost", "app.localhost", "a.b.localhost:80", "127.0.0.2",
		"[::1]:80", "[::1]", "laptop.lan", "LAPTOP.lan:9", "ledger.internal:8790"} {
		assert.True(t, g.AllowHost(h), h)
		assert.True(t, Guard{Hosts: g.Hosts}.AllowHost(h), h)
	}
	for _, h := range []string{"evil.example", "evil.example:8787", "127.0.0.1.nip.io", "evillocalhost:8790", "localhost.example",
		"lan", "laptop.lan.evil.example", "10.0.0.1"} {
		assert.False(t, g.AllowHost(h), h)
	}
	assert.Positive(t, calls, "Hosts is asked")
	assert.False(t, Guard{}.AllowHost("laptop.lan"), "the zero Guard answers loopback only")
	assert.True(t, Guard{}.AllowHost("127.0.0.1:8787"))
}

// TestGuardAllowOrigin: a browser's cross-site request is refused, by
// Sec-Fetch-Site or else by Origin; a top-level navigation passes only
// with Navigations; non-browsers pass.
func TestGuardAllowOrigin(t *testing.T) {
	tests := []struct {
		name        string
		method      string
		headers     []string
		strict, nav bool // the zero Guard's answer, and with Navigations
	}{
		{"no headers (curl, scripts)", "POST", nil, true, true},
		{"same origin", "POST", []string{"Sec-Fetch-Site", "same-origin", "Origin", "http://127.0.0.1:8787"}, true, true},
		{"typed in the address bar", "GET", []string{"Sec-Fetch-Site", "none", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "document"}, true, true},
		{"link from elsewhere", "GET", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "document"}, false, true},
		{"form from elsewhere", "POST", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "document"}, false, false},
		{"cross-site frame", "GET", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "iframe"}, false, false},
		{"cross-site fetch", "GET", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "cors", "Sec-Fetch-Dest", "empty"}, false, false},
		{"same site is not same origin", "GET", []string{"Sec-Fetch-Site", "same-site", "Sec-Fetch-Mode", "no-cors", "Sec-Fetch-Dest", "image"}, false, false},
		{"link from elsewhere with a foreign Origin", "GET",
			[]string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "document", "Origin", "https://evil.example"}, false, false},
		{"foreign origin", "POST", []string{"Origin", "https://evil.example"}, false, false},
		{"own host, other port", "POST", []string{"Origin", "http://127.0.0.1:9999"}, false, false},
		{"own host, other scheme", "POST", []string{"Origin", "ftp://127.0.0.1:8787"}, false, false},
		{"own host, https", "POST", []string{"Origin", "https://127.0.0.1:8787"}, true, true},
		{"own host, other case", "POST", []string{"Origin", "http://127.0.0.1:8787"}, true, true},
		{"unparsable origin", "POST", []string{"Origin", "http://%zz"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "http://127.0.0.1:8787/", nil)
			for i := 0; i+1 < len(tt.headers); i += 2 {
				r.Header.Set(tt.headers[i], tt.headers[i+1])
			}
			assert.Equal(t, tt.strict, Guard{}.AllowOrigin(r), "the zero Guard")
			assert.Equal(t, tt.nav, Guard{Navigations: true}.AllowOrigin(r), "with Navigations")
		})
	}
	r := httptest.NewRequest(http.MethodPost, "http://Shop.LAN:8787/", nil)
	r.Header.Set("Origin", "http://shop.lan:8787")
	assert.True(t, Guard{}.AllowOrigin(r), "hosts compare in any case")
}
