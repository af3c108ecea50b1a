package upicollect

import (
	"crypto/tls"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDefaultTransportTLS: the SDK's own transport keeps the standard
// transport's TLS setup (its HTTP/2 protocols) and requires TLS 1.2, also
// when a program has replaced http.DefaultTransport. Not parallel: it swaps
// http.DefaultTransport.
func TestDefaultTransportTLS(t *testing.T) {
	std := http.DefaultTransport.(*http.Transport).Clone()
	tr := defaultHTTPClient(4).Transport.(*http.Transport)
	require.NotNil(t, tr.TLSClientConfig)
	assert.Equal(t, uint16(tls.VersionTLS12), tr.TLSClientConfig.MinVersion)
	assert.Equal(t, std.TLSClientConfig.NextProtos, tr.TLSClientConfig.NextProtos)

	saved := http.DefaultTransport
	t.Cleanup(func() { http.DefaultTransport = saved })
	http.DefaultTransport = roundTripperFunc(func(*http.Request) (*http.Response, error) { return nil, http.ErrNotSupported })
	tr = defaultHTTPClient(4).Transport.(*http.Transport)
	require.NotNil(t, tr.TLSClientConfig)
	assert.Equal(t, uint16(tls.VersionTLS12), tr.TLSClientConfig.MinVersion)
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
