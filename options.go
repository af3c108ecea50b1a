package upicollect

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/upicollect/upicollect-go/internal/clock"
	"github.com/upicollect/upicollect-go/internal/ratelimit"
	"github.com/upicollect/upicollect-go/internal/vocab"
)

// Option configures a Client. Options validate their input: NewClient
// returns the first problem any of them finds.
type Option func(*settings) error

// settings collects what the options say; NewClient turns it into a Client.
type settings struct {
	baseURL      *url.URL
	baseURLGiven bool // WithBaseURL was passed, even if its URL was refused
	httpClient   *http.Client
	timeout      time.Duration
	retry        RetryPolicy
	logger       *slog.Logger
	userAgent    string
	ratePerSec   float64
	rateBurst    int
	limiter      RateLimiter
	observer     Observer
	insecureHTTP bool
	retryBudget  int
	maxConns     int
	clock        clock.Clock
	rand         func() float64
}

// DefaultTimeout bounds each attempt (connect, send, and reading the whole
// answer) unless WithTimeout says otherwise.
const DefaultTimeout = 30 * time.Second

// DefaultRetryBudget is the client-wide retry budget in tokens: a retry
// costs 5 tokens or, after a timeout, 10; a success returns 1. A full
// outage therefore stops retries after about 100.
const DefaultRetryBudget = 500

// WithBaseURL sets the service's base URL, such as
// "https://api.example.com" (required). The operations live under
// {base}/v1/payments/, so the base URL must not include that path. https is
// required unless the host is loopback or WithInsecureHTTP is given. A URL
// with user info, a query or a fragment (even an empty "?" or "#") is
// refused; errors never repeat the URL's user info.
func WithBaseURL(rawURL string) Option {
	return func(s *settings) error {
		s.baseURLGiven = true
		u, err := parseBaseURL(rawURL)
		if err != nil {
			return fmt.Errorf("upicollect: WithBaseURL: %w", err)
		}
		s.baseURL = u
		return nil
	}
}

// parseBaseURL checks a base URL. Its errors never quote rawURL, which may
// hold a password.
func parseBaseURL(rawURL string) (*url.URL, error) {
	if strings.TrimSpace(rawURL) == "" {
		return nil, errors.New("empty URL")
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // *url.Error quotes the whole URL
		}
		return nil, fmt.Errorf("malformed URL: %w", err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("scheme must be http or https, got %q", u.Scheme)
	case u.User != nil:
		return nil, errors.New("credentials in the URL; use Credentials")
	case u.Host == "":
		return nil, errors.New("no host")
	case strings.ContainsAny(rawURL, "?#"): // even an empty one: "/?" would become "/?/v1/..."
		return nil, errors.New("query or fragment not allowed")
	}
	p := strings.ToLower(strings.TrimRight(u.Path, "/"))
	if strings.HasSuffix(p, "/v1") || strings.HasSuffix(p, strings.TrimSuffix(vocab.PathPrefix, "/")) {
		return nil, fmt.Errorf("the base URL should not include the API path %s: pass the part before it, such as %s://%s",
			vocab.PathPrefix, u.Scheme, u.Host)
	}
	return u, nil
}

// WithHTTPClient makes the client send through c: its transport, proxy,
// cookie jar and timeout are used as given, and c itself is never mutated.
// Redirects are refused whatever c's CheckRedirect says (the client sends
// through a copy of c), so that the Authorization header and bodies go only
// to the base URL. A c with neither a cookie jar nor a timeout adds nothing
// else to its transport, so each request goes to c.Transport directly
// (http.DefaultTransport when nil), as c would send it, with its own copy of
// the headers and URL. Per-attempt timeouts still apply through the request
// context. It cannot be combined with WithMaxConns: bound the connections in
// c's transport.
func WithHTTPClient(c *http.Client) Option {
	return func(s *settings) error {
		if c == nil {
			return errors.New("upicollect: WithHTTPClient: nil client")
		}
		s.httpClient = c
		return nil
	}
}

// DefaultMaxConns is how many connections to the service a Client opens at
// most, unless WithMaxConns says otherwise.
const DefaultMaxConns = 64

// WithMaxConns bounds the connections the client opens to the service (at
// least 1; default DefaultMaxConns), idle ones included. Calls beyond that
// many at once queue for a free connection; the queueing is bounded by each
// call's context and attempt timeout. It configures the SDK's own transport,
// so NewClient refuses it together with WithHTTPClient.
func WithMaxConns(n int) Option {
	return func(s *settings) error {
		if n < 1 {
			return fmt.Errorf("upicollect: WithMaxConns: must be at least 1, got %d", n)
		}
		s.maxConns = n
		return nil
	}
}

// WithTimeout bounds each attempt (default 30s). Retries get their own
// budget of d each; bound the whole call with the context.
func WithTimeout(d time.Duration) Option {
	return func(s *settings) error {
		if d <= 0 {
			return fmt.Errorf("upicollect: WithTimeout: must be positive, got %v", d)
		}
		s.timeout = d
		return nil
	}
}

// WithRetryPolicy replaces the default retry policy (3 attempts,
// 200ms..5s full-jitter backoff, Retry-After honoured up to 30s). Zero
// fields take their defaults; MaxAttempts 1 disables retries.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(s *settings) error {
		if err := p.validate(); err != nil {
			return err
		}
		s.retry = p
		return nil
	}
}

// WithRetryBudget sets the client-wide retry budget in tokens (default
// DefaultRetryBudget); 0 means unlimited, which is not advised: the budget
// is what keeps an outage from multiplying the load on the service.
func WithRetryBudget(tokens int) Option {
	return func(s *settings) error {
		if tokens < 0 {
			return fmt.Errorf("upicollect: WithRetryBudget: negative budget %d", tokens)
		}
		s.retryBudget = tokens
		return nil
	}
}

// WithLogger makes the client log through l: a debug record per attempt, a
// warning per retry and an error when a call fails. Records never hold the
// Authorization header, the secret key or bodies; customer e-mail, mobile
// and VPA are masked. The log is the Observer the SDK ships: WithLogger
// installs it, and with WithObserver too both observe every call, the log
// first. Without WithLogger the client logs nothing; a nil l is refused.
func WithLogger(l *slog.Logger) Option {
	return func(s *settings) error {
		if l == nil {
			return errors.New("upicollect: WithLogger: nil logger")
		}
		s.logger = l
		return nil
	}
}

// WithUserAgent appends product (such as "acme-checkout/2.1") to the
// User-Agent "upicollect-go/<version> (go<version>)".
func WithUserAgent(product string) Option {
	return func(s *settings) error {
		if hasControl(product) {
			return errors.New("upicollect: WithUserAgent: control characters")
		}
		s.userAgent = strings.TrimSpace(product)
		return nil
	}
}

// WithRateLimit caps the requests that all calls of this client send, retries
// and polls included, at perSecond with bursts of burst (token bucket).
// Calls wait for a token; the wait ends when their context does. The cap is
// this process's: for one limit shared by many processes, pass a
// RateLimiter to WithRateLimiter instead (NewClient refuses both).
func WithRateLimit(perSecond float64, burst int) Option {
	return func(s *settings) error {
		if !(perSecond > 0) || perSecond > 1e6 {
			return fmt.Errorf("upicollect: WithRateLimit: rate must be in (0, 1e6], got %v", perSecond)
		}
		if burst < 1 {
			return fmt.Errorf("upicollect: WithRateLimit: burst must be at least 1, got %d", burst)
		}
		s.ratePerSec, s.rateBurst = perSecond, burst
		return nil
	}
}

// WithInsecureHTTP allows a plain-http base URL on a non-loopback host, for a
// TLS-terminating proxy beside the application. Credentials then travel
// unencrypted to that host: use it only on a network you trust.
func WithInsecureHTTP() Option {
	return func(s *settings) error {
		s.insecureHTTP = true
		return nil
	}
}

// WithRateLimiter makes every attempt of every call wait on l before it is
// sent, in place of WithRateLimit's in-process limiter: for a limit shared
// by many processes (see redisrate), or a limiter of your own. NewClient
// refuses WithRateLimit and WithRateLimiter together.
func WithRateLimiter(l RateLimiter) Option {
	return func(s *settings) error {
		if isNil(l) {
			return errors.New("upicollect: WithRateLimiter: nil limiter")
		}
		s.limiter = l
		return nil
	}
}

// WithObserver makes the client report every call and attempt to o (see
// Observer). With WithLogger too, o sees each call after the client's log,
// with the context the log passed on. A nil o, also a nil pointer (or map,
// func, ...) in a non-nil interface, is refused: its first call would
// panic.
func WithObserver(o Observer) Option {
	return func(s *settings) error {
		if isNil(o) {
			return errors.New("upicollect: WithObserver: nil observer")
		}
		s.observer = o
		return nil
	}
}

// isNil reports whether v is nil or holds a nil pointer, map, func, chan,
// slice or interface: a seam given one would panic on its first call.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Chan, reflect.Slice, reflect.Interface, reflect.UnsafePointer:
		return rv.IsNil()
	}
	return false
}

// newRateLimiter is the client's limiter: WithRateLimiter's, else
// WithRateLimit's token bucket, else none (nil, so that a call without a
// limiter does not even make an interface call).
func newRateLimiter(s *settings) (RateLimiter, error) {
	switch l := ratelimit.New(s.ratePerSec, s.rateBurst, s.clock); {
	case s.limiter != nil && l != nil:
		return nil, errors.New("upicollect: WithRateLimit and WithRateLimiter: pass one (WithRateLimiter replaces the in-process limiter)")
	case s.limiter != nil:
		return s.limiter, nil
	case l != nil:
		return l, nil
	}
	return nil, nil
}
