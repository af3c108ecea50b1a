package loopback

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHost: localhost in any case and loopback addresses, bracketed or
// not, are loopback; no other name is, whatever it resolves to.
func TestHost(t *testing.T) {
	for _, h := range []string{"localhost", "LocalHost", "127.0.0.1", "127.0.0.2", "127.255.255.255", "::1", "[::1]", "0:0:0:0:0:0:0:1"} {
		assert.True(t, Host(h), h)
	}
	for _, h := range []string{"", "shop.example", "10.0.0.1", "0.0.0.0", "::", "128.0.0.1", "localhost.example", "app.localhost",
		"127.0.0.1.nip.io", "localhost:8787", "127.0.0.1:8787", "[::1]:8787", "evillocalhost", "[127.0.0.1", "[]", "["} {
		assert.False(t, Host(h), h)
	}
}

// TestHostName: a Host header or HOST:PORT without its port or brackets,
// lower-cased.
func TestHostName(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "localhost": "localhost", "LOCALHOST:8787": "localhost", "[::1]:80": "::1", "[::1]": "::1", "::1": "::1",
		"Shop.LAN": "shop.lan", "shop.lan:8790": "shop.lan", "127.0.0.1:0": "127.0.0.1", "fe80::1": "fe80::1",
	} {
		assert.Equal(t, want, HostName(in), in)
	}
}
