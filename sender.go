package upicollect

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// sender sends one attempt's request. http.Client.Do adds, per request, a
// copy of the headers and the URL for the redirects it might follow, and
// the SDK refuses redirects; so a client that adds nothing else to its
// transport (no cookie jar, no timeout) is passed by, and its transport
// called directly: about ten allocations less per call. A client with a jar
// or a timeout is used through Do, as given.
type sender struct {
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
	header *http.Header
}

func newSender(hc *http.Client, own bool, header http.Header) *sender {
	s := &sender{client: hc, own: own, header: &header}
	if hc.Jar == nil && hc.Timeout == 0 {
		s.rt = hc.Transport
		if s.rt == nil {
			s.rt = http.DefaultTransport
		}
	}
	return s
}

// send posts body to u, with ctx bounding the attempt. Its error is the
// *url.Error that http.Client.Do would return.
func (s *sender) send(ctx context.Context, u *url.URL, body string, getBody func() (io.ReadCloser, error)) (*http.Response, error) {
	h := *s.header
	if !s.own {
		h = make(http.Header, len(h))
		for k, v := range *s.header {
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
	if s.rt == nil {
		return s.client.Do(req)
	}
	res, err := s.rt.RoundTrip(req)
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
