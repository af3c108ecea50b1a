package upicollect

import (
	"net/http"

	"github.com/upicollect/upicollect-go/internal/clock"
	"github.com/upicollect/upicollect-go/internal/redact"
)

// WithClock replaces the client's clock, so tests of backoff, Retry-After
// and polling take no wall time.
func WithClock(c clock.Clock) Option {
	return func(s *settings) error { s.clock = c; return nil }
}

// WithRand fixes the jitter source.
func WithRand(r func() float64) Option {
	return func(s *settings) error { s.rand = r; return nil }
}

// DefaultHTTPClient returns a fresh instance of the http.Client a Client
// uses when WithHTTPClient is not given, so that tests can inspect its
// transport (TLS floor, redirect policy) or give it a test CA.
func DefaultHTTPClient() *http.Client { return defaultHTTPClient(DefaultMaxConns) }

// CloseIdleConnections closes the idle connections of c's HTTP client, so
// that goroutine-leak checks see only what is really left running.
func CloseIdleConnections(c *Client) { c.CloseIdleConnections() }

// AuthHeader returns the client's Authorization value in its redacting
// wrapper type, so tests can check that no fmt verb or log prints it.
func AuthHeader(c *Client) any { return c.auth }

// RedactFilter returns the filter that removes the client's credentials
// from what the service sends back.
func RedactFilter(c *Client) *redact.Filter { return c.filter }
