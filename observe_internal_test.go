package upicollect

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServerOf: CallInfo's server is the base URL's host and port, the
// scheme's default port when the URL names none.
func TestServerOf(t *testing.T) {
	for _, tt := range []struct {
		url  string
		host string
		port int
	}{
		{"https://api.example.com", "api.example.com", 443},
		{"http://127.0.0.1", "127.0.0.1", 80},
		{"https://api.example.com:8443/base", "api.example.com", 8443},
		{"http://[::1]:8787", "::1", 8787},
	} {
		u, err := url.Parse(tt.url)
		require.NoError(t, err)
		host, port := serverOf(u)
		assert.Equal(t, tt.host, host, tt.url)
		assert.Equal(t, tt.port, port, tt.url)
	}
}
