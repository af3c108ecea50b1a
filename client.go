package upicollect

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"

	"github.com/upicollect/upicollect-go/internal/clock"
	"github.com/upicollect/upicollect-go/internal/redact"
	"github.com/upicollect/upicollect-go/internal/retry"
	"github.com/upicollect/upicollect-go/internal/vocab"
	"github.com/upicollect/upicollect-go/loopback"
)

// Client calls the Payment Collection Service. It is immutable once made and
// safe for concurrent use by many goroutines; make one per set of
// credentials and share it. The zero Client is not usable: every method of a
// zero or nil Client panics with a message saying to call NewClient.
type Client struct {
	creds     account
	auth      *header // behind a pointer that fmt does not follow
	base      string  // base URL without a trailing slash
	baseURL   *url.URL
	endpoints map[string]*url.URL // the operations' URLs, joined once
	// transport makes each attempt's HTTP exchange; behind a pointer that
	// fmt does not follow: it holds the header.
	transport *transport
	// filter removes the credentials from errors' and log records' text.
	filter  *redact.Filter
	retry   RetryPolicy
	budget  *retry.Budget
	limiter RateLimiter // nil: none
	// observer is the client's one observer (never nil): its log's,
	// WithObserver's, both, or a no-op one (see newObserver).
	observer Observer
	// serverAddress and serverPort are the base URL's, for the observer.
	serverAddress string
	serverPort    int
	userAgent     string
	clock         clock.Clock
	rand          func() float64
}

// NewClient returns a Client for creds. WithBaseURL is required; the other
// options have defaults: 30s per attempt, 3 attempts with full-jitter
// backoff, at most DefaultMaxConns connections, no rate limit, no logging.
// It fails, before any I/O, on empty credentials or keys with control
// characters, a missing or malformed base URL, http to a non-loopback host,
// and any option's invalid input.
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
	switch {
	case s.baseURL == nil && !s.baseURLGiven:
		errs = append(errs, errors.New("upicollect: no base URL: pass WithBaseURL"))
	case s.baseURL == nil: // WithBaseURL reported why it refused the URL
	case s.baseURL.Scheme == "http" && !s.insecureHTTP && !loopback.Host(s.baseURL.Hostname()):
		errs = append(errs, fmt.Errorf("upicollect: base URL %q: https is required for a non-loopback host (WithInsecureHTTP allows http)", s.baseURL.Redacted()))
	}
	if s.maxConns != 0 && s.httpClient != nil {
		errs = append(errs, errors.New("upicollect: WithMaxConns and WithHTTPClient: bound the connections in your client's transport instead"))
	}
	limiter, err := newRateLimiter(&s)
	if err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	c := &Client{
		creds:     account{MID: creds.MID, PublicKey: creds.PublicKey},
		auth:      newHeader(creds),
		filter:    redact.New(creds.PublicKey, creds.SecretKey),
		base:      strings.TrimSuffix(s.baseURL.String(), "/"),
		baseURL:   s.baseURL,
		retry:     s.retry.withDefaults(),
		budget:    retry.NewBudget(s.retryBudget),
		limiter:   limiter,
		userAgent: userAgent(s.userAgent),
		clock:     s.clock,
		rand:      s.rand,
	}
	c.observer = newObserver(s.logger, s.observer, c.filter)
	c.serverAddress, c.serverPort = serverOf(s.baseURL)
	c.endpoints = make(map[string]*url.URL, len(operations))
	for _, op := range operations {
		c.endpoints[vocab.PathPrefix+op] = c.join(vocab.PathPrefix + op)
	}
	header := http.Header{
		"Content-Type":  contentTypeForm,
		"Accept":        acceptJSON,
		"User-Agent":    {c.userAgent},
		"Authorization": {c.auth.authorization()},
	}
	if s.httpClient != nil {
		c.transport = newTransport(noRedirects(s.httpClient), false, header, s.timeout, c.filter)
	} else {
		c.transport = newTransport(defaultHTTPClient(cmp.Or(s.maxConns, DefaultMaxConns)), true, header, s.timeout, c.filter)
	}
	return c, nil
}

// operations are the four operations whose URLs NewClient joins once.
var operations = []string{vocab.OpCreatePaymentIntent, vocab.OpCreatePaymentRequest, vocab.OpCreatePaymentLink, vocab.OpCheckPaymentStatus}

// errZeroClient is the panic of a method called on a nil or zero Client.
const errZeroClient = "upicollect: nil or zero Client: create one with NewClient"

// mustInit panics with a clear message when c was not made by NewClient,
// instead of a bare nil dereference somewhere deeper.
func (c *Client) mustInit() {
	if c == nil || c.transport == nil {
		panic(errZeroClient)
	}
}

// String describes the client without its credentials' secret.
func (c *Client) String() string {
	if c == nil {
		return "upicollect.Client(nil)"
	}
	return fmt.Sprintf("upicollect.Client{base: %s, mid: %s}", c.base, c.creds.MID)
}

// GoString is String, for %#v.
func (c *Client) GoString() string { return c.String() }

// Format prints String for every verb, so %+v cannot dump the header.
func (c *Client) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, c.String()) }

// LogValue logs the base URL and the MID only.
func (c *Client) LogValue() slog.Value {
	if c == nil {
		return slog.StringValue("upicollect.Client(nil)")
	}
	return slog.GroupValue(slog.String("base_url", c.base), slog.String("mid", c.creds.MID))
}

// MarshalJSON encodes the base URL and the MID only.
func (c *Client) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		BaseURL string `json:"base_url"`
		MID     string `json:"mid"`
	}{c.base, c.creds.MID})
}

// BaseURL returns the base URL the client sends to.
func (c *Client) BaseURL() string { c.mustInit(); return c.base }

// MID returns the merchant id sent in every body.
func (c *Client) MID() string { c.mustInit(); return c.creds.MID }

// CloseIdleConnections closes the connections the client keeps open for
// reuse and no call is using: call it when done with the client, so that no
// idle connection outlives it. With WithHTTPClient it closes that client's
// idle connections. The client stays usable: a later call opens a new
// connection.
func (c *Client) CloseIdleConnections() {
	c.mustInit()
	c.transport.client.CloseIdleConnections()
}

// endpoint returns the URL of path below the base URL: precomputed for the
// four operations, joined with url.JoinPath for any other (Do). It is
// shared: never modified.
func (c *Client) endpoint(path string) *url.URL {
	if u, ok := c.endpoints[path]; ok {
		return u
	}
	return c.join(path)
}

// join joins path to the base URL. It goes through the URL's text: JoinPath
// leaves the path of a base URL with none without its leading "/", which
// String adds back but a request line would not.
func (c *Client) join(path string) *url.URL {
	u, _ := url.Parse(c.baseURL.JoinPath(path).String()) // a valid URL's text parses
	return u
}

func userAgent(product string) string {
	ua := "upicollect-go/" + Version + " (" + runtime.Version() + ")"
	if product != "" {
		ua += " " + product
	}
	return ua
}

// serverOf is the host and port of the base URL u, for CallInfo.
func serverOf(u *url.URL) (string, int) {
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		port = 443
		if u.Scheme == "http" {
			port = 80
		}
	}
	return u.Hostname(), port
}
