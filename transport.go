package upicollect

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/upicollect/upicollect-go/internal/redact"
	"github.com/upicollect/upicollect-go/internal/wire"
)

// maxBodyBytes caps how much of an answer is read: the service's answers are
// a few hundred bytes, and a runaway body must not exhaust memory.
const maxBodyBytes = 1 << 20

// maxHeaderBytes caps the response headers the SDK's own transport reads:
// the service sends a few hundred bytes of them, and net/http's default
// (10 MB) would let one answer hold tens of megabytes.
const maxHeaderBytes = 64 << 10

// Header values that are the same for every request.
var (
	contentTypeForm = []string{"application/x-www-form-urlencoded"}
	acceptJSON      = []string{"application/json"}
)

// transport makes one try at a time for a Client: the POST, the answer
// read through the cap, echoed credentials removed, the envelope read.
//
// http.Client.Do adds, per request, a copy of the headers and the URL for
// the redirects it might follow, and the SDK refuses redirects; so a client
// that adds nothing else to its transport (no cookie jar, no timeout) is
// passed by, and its transport called directly: about ten allocations less
// per call. A client with a jar or a timeout is used through Do, as given.
type transport struct {
	client *http.Client
	rt     http.RoundTripper // nil: send through client.Do
	// own: rt is the SDK's own *http.Transport, which never modifies a
	// request, so every request may share one header map and its URL. A
	// caller's transport gets its own copies: it may set a header or
	// rewrite the URL.
	own bool
	// header holds every request's headers, Authorization included, behind
	// a pointer: fmt prints a pointer below the top level as an address,
	// even in a Client copy printed with a wrong verb. Read-only.
	header  *http.Header
	timeout time.Duration // per attempt
	// filter removes echoed credentials from every answer's body, before
	// anything is decoded from it, kept or logged.
	filter *redact.Filter
}

func newTransport(hc *http.Client, own bool, header http.Header, timeout time.Duration, filter *redact.Filter) *transport {
	t := &transport{client: hc, own: own, header: &header, timeout: timeout, filter: filter}
	if hc.Jar == nil && hc.Timeout == 0 {
		t.rt = hc.Transport
		if t.rt == nil {
			t.rt = http.DefaultTransport
		}
	}
	return t
}

// attempt is what one try produced: an answer, or a transport error. What
// it means is judge's to say (answer.go).
type attempt struct {
	resp *Response // nil when no answer arrived
	// env is the body's envelope; nil when no answer arrived or its body
	// is not the envelope (then unreadable says why).
	env        *wire.Envelope
	unreadable string
	err        error // transport error, body-read error included
	neverSent  bool  // the request provably never reached the service
	timedOut   bool  // the per-attempt timeout fired
}

// try posts body to u once, under the per-attempt timeout, and reads the
// answer's envelope.
func (t *transport) try(ctx context.Context, u *url.URL, body string, getBody func() (io.ReadCloser, error)) attempt {
	actx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	res, err := t.post(actx, u, body, getBody)
	if err != nil {
		return attempt{err: err, neverSent: neverSent(err), timedOut: ctx.Err() == nil && actx.Err() != nil}
	}
	defer res.Body.Close()
	resp := &Response{HTTPStatus: res.StatusCode, Header: res.Header}
	raw, err := readBody(res.Body, res.ContentLength, maxBodyBytes)
	// A proxy or a service that echoes the request's Authorization header
	// must not pass it into a message, a result or Response.Body.
	resp.Body = t.filter.Bytes(raw)
	switch {
	case err != nil:
		return attempt{resp: resp, err: err, timedOut: ctx.Err() == nil && actx.Err() != nil}
	case len(resp.Body) > maxBodyBytes:
		resp.Body = resp.Body[:maxBodyBytes]
		return attempt{resp: resp, unreadable: fmt.Sprintf("body exceeds %d bytes", maxBodyBytes)}
	}
	env, err := wire.EnvelopeOf(res.StatusCode, resp.Body)
	a := attempt{resp: resp, env: env}
	switch {
	case err != nil && res.StatusCode >= 300 && res.StatusCode < 400:
		a.unreadable = redirectDetail(res)
	case err != nil:
		a.unreadable = err.Error()
	}
	return a
}

// post sends one POST of body to u, with ctx bounding it. Its error is the
// *url.Error that http.Client.Do would return.
func (t *transport) post(ctx context.Context, u *url.URL, body string, getBody func() (io.ReadCloser, error)) (*http.Response, error) {
	h := *t.header
	if !t.own {
		h = make(http.Header, len(h))
		for k, v := range *t.header {
			h[k] = v // Set and Add replace or grow the slice, never write into it
		}
		cp := *u
		u = &cp
	}
	req := (&http.Request{
		Method: http.MethodPost, URL: u, Host: u.Host, Header: h,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Body: newBody(body), GetBody: getBody, ContentLength: int64(len(body)),
	}).WithContext(ctx)
	if t.rt == nil {
		return t.client.Do(req)
	}
	res, err := t.rt.RoundTrip(req)
	switch {
	case err != nil:
		if res != nil && res.Body != nil {
			res.Body.Close() // http.Client ignores a response that comes with an error
		}
		return nil, &url.Error{Op: "Post", URL: u.String(), Err: err}
	case res == nil:
		return nil, &url.Error{Op: "Post", URL: u.String(), Err: errors.New("transport returned neither a response nor an error")}
	case res.Body == nil:
		res.Body = http.NoBody // as http.Client does for a transport that leaves it nil
	}
	return res, nil
}

// newBody is a request body. A strings.Reader behind io.NopCloser, exactly:
// net/http sends the headers and such a body in one write, and flushes the
// headers on their own first for a body type it does not know.
func newBody(s string) io.ReadCloser {
	if s == "" {
		return http.NoBody
	}
	return io.NopCloser(strings.NewReader(s))
}

// readBody reads r up to limit+1 bytes, so that the caller can tell a body
// over the cap. A known length sizes the buffer once; an unknown one grows
// it as io.ReadAll does.
func readBody(r io.Reader, length int64, limit int) ([]byte, error) {
	size := 512
	if length >= 0 {
		size = int(min(length, int64(limit))) + 1 // +1: room to see the end without growing
	}
	b := make([]byte, 0, size)
	for {
		n, err := r.Read(b[len(b):min(cap(b), limit+1)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) > limit {
			return b, nil
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // grow
		}
	}
}

func redirectDetail(res *http.Response) string {
	loc, err := res.Location()
	if err != nil {
		return "redirect not followed (no valid Location)"
	}
	return fmt.Sprintf("redirect to host %q not followed: check the base URL", loc.Host)
}

// neverSent reports whether err proves the request never reached the
// service: it failed to resolve or to connect.
func neverSent(err error) bool {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}

// refuseRedirects is the CheckRedirect of every client the SDK sends
// through: a 3xx is returned as it is (and becomes an error), so that the
// Authorization header and the body never go anywhere but the base URL.
func refuseRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// noRedirects returns a shallow copy of hc that refuses redirects. The
// caller's client is not changed; the copy shares its transport, cookie jar
// and timeout.
func noRedirects(hc *http.Client) *http.Client {
	cp := *hc
	cp.CheckRedirect = refuseRedirects
	return &cp
}

// defaultHTTPClient is this SDK's own client: a cloned transport (never
// http.DefaultTransport itself) with at most maxConns connections to the
// one host (calls beyond wait for one), small response headers, TLS 1.2 at
// least, and redirects refused so that credentials are never sent to
// another host.
func defaultHTTPClient(maxConns int) *http.Client {
	var t *http.Transport
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		t = dt.Clone()
	} else {
		t = &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true}
	}
	t.MaxConnsPerHost = maxConns
	t.MaxIdleConnsPerHost = maxConns
	t.MaxIdleConns = max(t.MaxIdleConns, maxConns)
	t.MaxResponseHeaderBytes = maxHeaderBytes
	if t.TLSClientConfig == nil {
		t.TLSClientConfig = &tls.Config{}
	}
	t.TLSClientConfig.MinVersion = tls.VersionTLS12
	return &http.Client{Transport: t, CheckRedirect: refuseRedirects}
}
