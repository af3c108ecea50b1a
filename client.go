package upicollect

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"time"

	"github.com/upicollect/upicollect-go/internal/clock"
	"github.com/upicollect/upicollect-go/internal/ratelimit"
	"github.com/upicollect/upicollect-go/internal/retry"
)

// maxBodyBytes caps how much of an answer is read: the service's answers are
// a few hundred bytes, and a runaway body must not exhaust memory.
const maxBodyBytes = 1 << 20

// Client calls the Payment Collection Service. It is immutable once made and
// safe for concurrent use by many goroutines; make one per set of
// credentials and share it.
type Client struct {
	creds     Credentials
	auth      secret // the Basic header, computed once
	base      string // base URL without a trailing slash
	http      *http.Client
	timeout   time.Duration
	retry     RetryPolicy
	budget    *retry.Budget
	limiter   *ratelimit.Limiter
	logger    *slog.Logger
	userAgent string
	clock     clock.Clock
	rand      func() float64
}

// NewClient returns a Client for creds. WithBaseURL is required; the other
// options have defaults: 30s per attempt, 3 attempts with full-jitter
// backoff, no rate limit, no logging. It fails, before any I/O, on empty
// credentials or keys with control characters, a missing or malformed base
// URL, http to a non-loopback host, and any option's invalid input.
func NewClient(creds Credentials, opts ...Option) (*Client, error) {
	s := settings{
		timeout:     DefaultTimeout,
		retryBudget: DefaultRetryBudget,
		clock:       clock.Real,
	}
	var errs []error
	if err := creds.validate(); err != nil {
		errs = append(errs, err)
	}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&s); err != nil {
			errs = append(errs, err)
		}
	}
	if s.baseURL == nil {
		errs = append(errs, errors.New("upicollect: no base URL: pass WithBaseURL"))
	} else if s.baseURL.Scheme == "http" && !s.insecureHTTP && !isLoopback(s.baseURL.Hostname()) {
		errs = append(errs, fmt.Errorf("upicollect: base URL %q: https is required for a non-loopback host (WithInsecureHTTP allows http)", s.baseURL.Redacted()))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	c := &Client{
		creds:     creds,
		auth:      basicAuth(creds),
		base:      strings.TrimSuffix(s.baseURL.String(), "/"),
		http:      s.httpClient,
		timeout:   s.timeout,
		retry:     s.retry.withDefaults(),
		budget:    retry.NewBudget(s.retryBudget),
		limiter:   ratelimit.New(s.ratePerSec, s.rateBurst, s.clock),
		logger:    s.logger,
		userAgent: userAgent(s.userAgent),
		clock:     s.clock,
		rand:      s.rand,
	}
	if c.http == nil {
		c.http = defaultHTTPClient()
	}
	if c.logger == nil {
		c.logger = slog.New(discardHandler{})
	}
	return c, nil
}

// String describes the client without its credentials' secret.
func (c *Client) String() string {
	return fmt.Sprintf("upicollect.Client{base: %s, mid: %s}", c.base, c.creds.MID)
}

// GoString is String, for %#v.
func (c *Client) GoString() string { return c.String() }

// Format prints String for every verb, so %+v cannot dump the header.
func (c *Client) Format(f fmt.State, verb rune) { io.WriteString(f, c.String()) }

// BaseURL returns the base URL the client sends to.
func (c *Client) BaseURL() string { return c.base }

// MID returns the merchant id sent in every body.
func (c *Client) MID() string { return c.creds.MID }

// defaultHTTPClient is this SDK's own client: a cloned transport (never
// http.DefaultTransport itself) with room for many idle connections to the
// one host, TLS 1.2 at least, and redirects refused so that credentials are
// never sent to another host.
func defaultHTTPClient() *http.Client {
	var t *http.Transport
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		t = dt.Clone()
	} else {
		t = &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true}
	}
	t.MaxIdleConns = 256
	t.MaxIdleConnsPerHost = 64
	if t.TLSClientConfig == nil {
		t.TLSClientConfig = &tls.Config{}
	}
	t.TLSClientConfig.MinVersion = tls.VersionTLS12
	return &http.Client{
		Transport: t,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

func userAgent(product string) string {
	ua := "upicollect-go/" + Version + " (" + runtime.Version() + ")"
	if product != "" {
		ua += " " + product
	}
	return ua
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// discardHandler drops every record (slog.DiscardHandler arrived in Go 1.24;
// this module supports 1.23).
type discardHandler struct{}

func (discardHandler) Enabled(_ context.Context, _ slog.Level) bool  { return false }
func (discardHandler) Handle(_ context.Context, _ slog.Record) error { return nil }
func (d discardHandler) WithAttrs([]slog.Attr) slog.Handler          { return d }
func (d discardHandler) WithGroup(string) slog.Handler               { return d }

// endpoint joins the base URL and an operation's path.
func (c *Client) endpoint(path string) string { return c.base + path }
