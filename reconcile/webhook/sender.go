package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/loopback"
	"github.com/upicollect/upicollect-go/reconcile"
)

// DefaultTimeout is how long Sender waits for one delivery's answer,
// connection included, before it counts the delivery as failed.
const DefaultTimeout = 10 * time.Second

// Limits of what Sender reads of an answer and says of it.
const (
	maxAnswer = 4 << 10 // bytes of an answer's body read
	excerpt   = 128     // bytes of them quoted in an error
	// maxAnswerHeader caps the answer's headers that Sender's own transport
	// reads, as the SDK's own client caps the service's: net/http's
	// default (10 MB) would let one answer hold megabytes of them.
	maxAnswerHeader = 64 << 10
)

// Option configures a Sender.
type Option func(*options)

type options struct {
	client    *http.Client
	clientSet bool // WithHTTPClient was given, nil or not
	timeout   time.Duration
	logger    *slog.Logger
	now       func() time.Time
	previous  [][]byte
}

// WithHTTPClient sends the deliveries through c (its transport, proxy and
// TLS settings) instead of Sender's own client, a clone of
// http.DefaultTransport that reads at most 64 KiB of an answer's headers
// (as the SDK's own client does). c's transport is used as given, its
// limits included: set its MaxResponseHeaderBytes. Sender works on a copy
// of c that never follows a redirect.
func WithHTTPClient(c *http.Client) Option {
	return func(o *options) { o.client, o.clientSet = c, true }
}

// WithTimeout sets how long one delivery may take, from connecting to the
// answer's headers and the first 4 KiB of its body (default
// DefaultTimeout). A delivery that takes longer fails, and comes again.
func WithTimeout(d time.Duration) Option {
	return func(o *options) { o.timeout = d }
}

// WithLogger logs every delivery: a failed one at Warn (the order, the
// delivery id, the status and a short quoted excerpt of the answer), a
// delivered one at Debug. The secret, the endpoint's user information and
// query are never logged. By default nothing is.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) { o.logger = l }
}

// WithClock sets the clock that dates each signature (default time.Now).
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// WithPreviousSecret also signs every delivery with secret, the one being
// replaced: the header then carries two v1 values, and receivers that
// still hold the previous secret accept the deliveries while they move to
// the new one. Remove the option once every receiver has.
func WithPreviousSecret(secret []byte) Option {
	return func(o *options) { o.previous = append(o.previous, bytes.Clone(secret)) }
}

// sender delivers events to one endpoint.
type sender struct {
	endpoint string   // the URL as given: requests only
	where    string   // scheme, host and path: for errors and logs
	secrets  [][]byte // the secret, then any previous one
	client   *http.Client
	timeout  time.Duration
	log      *slog.Logger
	now      func() time.Time
	first    *firstBodies // the bodies of the events not delivered yet
}

// Sender returns a reconcile.Handler that POSTs each event as JSON to endpoint, signed with secret; a 2xx answer
// means handled, anything else (or no answer) leaves the event to be delivered again. Every delivery of one event
// carries the same Delivery.ID, so a receiver can drop repeats.
//
// endpoint must be https, or http on a loopback address (127.0.0.0/8, ::1,
// localhost): a delivery crosses networks only encrypted. Redirects are not
// followed (a 3xx answer is a failure): move the endpoint instead. Each
// delivery has its own timeout (WithTimeout); at most 64 KiB of the
// answer's headers (unless WithHTTPClient) and 4 KiB of its body are read.
// A bad endpoint, an empty secret or a bad option is a
// *upicollect.ValidationError naming it, and the secret appears in no
// error and no log.
//
// Each request carries Content-Type application/json, a User-Agent naming
// this SDK's version, and the SignatureHeader for its body at the time of
// sending. An event whose delivery failed is sent again with the body of
// its first try, byte for byte, whatever time the next check gives
// Event.At, and signed at its new time: the Sender remembers the bodies of
// the events it has not delivered yet (up to 10,000, in memory; the
// package documentation's Delivery section says what another process
// sends).
func Sender(endpoint string, secret []byte, opts ...Option) (reconcile.Handler, error) {
	o := options{timeout: DefaultTimeout, now: time.Now}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	ve := &upicollect.ValidationError{Op: "webhook.Sender"}
	bad := func(field, problem string) {
		ve.Fields = append(ve.Fields, upicollect.FieldError{Field: field, Problem: problem})
	}
	where, problem := checkEndpoint(endpoint)
	if problem != "" {
		bad("endpoint", problem)
	}
	if len(secret) == 0 {
		bad("secret", "is empty")
	}
	for _, p := range o.previous {
		if len(p) == 0 {
			bad("previous secret", "is empty")
		}
	}
	if o.timeout <= 0 {
		bad("timeout", "must be positive")
	}
	if o.now == nil {
		bad("clock", "is nil")
	}
	if o.clientSet && o.client == nil {
		bad("http client", "is nil")
	}
	if len(ve.Fields) > 0 {
		return nil, ve
	}
	s := &sender{
		endpoint: endpoint, where: where,
		secrets: append([][]byte{bytes.Clone(secret)}, o.previous...),
		timeout: o.timeout, log: o.logger, now: o.now, first: new(firstBodies),
	}
	c := http.Client{Transport: ownTransport()}
	if o.client != nil {
		c = *o.client
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	s.client = &c
	if s.log == nil {
		s.log = upicollect.DiscardLogger()
	}
	return s.deliver, nil
}

// ownTransport is the transport of Sender's own client: a clone of
// http.DefaultTransport (its proxy from the environment, its timeouts and
// pool), or a plain one with the proxy from the environment where a
// program replaced it, reading at most maxAnswerHeader bytes of an
// answer's headers. The SDK's client makes its own the same way.
func ownTransport() *http.Transport {
	var t *http.Transport
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		t = dt.Clone()
	} else {
		t = &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true}
	}
	t.MaxResponseHeaderBytes = maxAnswerHeader
	return t
}

// checkEndpoint returns where the endpoint is (scheme, host and path: no
// user information, query or fragment) or, when it cannot be one, why.
// The problem never quotes the endpoint, which may hold a credential.
func checkEndpoint(endpoint string) (where, problem string) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", "is not a URL"
	}
	if u.Hostname() == "" {
		return "", "has no host (want https://host/path)"
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !loopback.Host(u.Hostname()) {
			return "", "http is allowed only on loopback (127.0.0.0/8, ::1, localhost): use https"
		}
	default:
		return "", "must be an https URL"
	}
	return u.Scheme + "://" + u.Host + u.EscapedPath(), ""
}

// userAgent names this SDK's sender.
var userAgent = "upicollect-go/" + upicollect.Version + " (webhook)"

// deliver POSTs e's Delivery and reports whether it was handled. An
// event whose delivery failed before is sent with the body of that first
// try, byte for byte.
func (s *sender) deliver(ctx context.Context, e reconcile.Event) (err error) {
	d := NewDelivery(e)
	body, ok := s.first.get(d.ID)
	if !ok {
		if body, err = json.Marshal(d); err != nil {
			return fmt.Errorf("webhook: encoding delivery %s of order %q: %w", d.ID, d.OrderID, err)
		}
	}
	defer func() {
		if err != nil {
			s.first.remember(d.ID, body)
		} else {
			s.first.forget(d.ID)
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.endpoint, bytes.NewReader(body))
	if err != nil {
		// Not the error's text: it quotes the endpoint, query and all.
		return fmt.Errorf("webhook: delivery %s of order %q to %s: cannot make the request", d.ID, d.OrderID, s.where)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set(SignatureHeader, sign(s.now(), body, s.secrets...))
	attrs := []slog.Attr{
		slog.String("order_id", d.OrderID), slog.String("result", string(d.Result)),
		slog.String("delivery_id", d.ID), slog.String("endpoint", s.where),
	}
	res, err := s.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its text repeats the URL, query and all
		}
		s.log.LogAttrs(ctx, slog.LevelWarn, "webhook: delivery failed; it comes again",
			append(attrs, slog.String("error", err.Error()))...)
		return fmt.Errorf("webhook: delivery %s of order %q to %s: %w", d.ID, d.OrderID, s.where, err)
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	attrs = append(attrs, slog.Int("status", res.StatusCode))
	if res.StatusCode >= 200 && res.StatusCode <= 299 {
		s.log.LogAttrs(ctx, slog.LevelDebug, "webhook: delivered", attrs...)
		return nil
	}
	quoted := quote(answer)
	s.log.LogAttrs(ctx, slog.LevelWarn, "webhook: delivery refused; it comes again",
		append(attrs, slog.String("answer", quoted))...)
	return fmt.Errorf("webhook: delivery %s of order %q to %s: answered %d: %s", d.ID, d.OrderID, s.where, res.StatusCode, quoted)
}

// quote returns the first bytes of an answer, quoted with Go escapes (so
// that no control character reaches a terminal or a log line), marked
// when cut.
func quote(b []byte) string {
	if len(b) <= excerpt {
		return strconv.QuoteToASCII(string(b))
	}
	return strconv.QuoteToASCII(string(b[:excerpt])) + "…"
}
