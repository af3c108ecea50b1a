package upicollect_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
)

// rewritingTransport is a caller's transport that changes the request it is
// given, as some middleware does: a header added, the URL's path rewritten
// (to where the API is mounted).
type rewritingTransport struct {
	prefix string
	next   http.RoundTripper
}

func (rt rewritingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req.Header.Add("X-Trace", "t")
	req.Header.Add("Accept", "text/plain")
	req.URL.Path = rt.prefix + req.URL.Path
	return rt.next.RoundTrip(req)
}

// TestCallerTransportGetsItsOwnRequest: a caller's transport that modifies
// the request changes only that request; calls made at the same time and
// later ones are sent as built (under -race, sharing would be a data race).
func TestCallerTransportGetsItsOwnRequest(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, bySuccess(t))
	hc := &http.Client{Transport: rewritingTransport{prefix: apiPrefix, next: http.DefaultTransport}}
	c, _ := newClient(t, ts.URL, upicollect.WithHTTPClient(hc), noRetry())
	const calls = 8
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.CheckPaymentStatus(context.Background(), "ORD-1")
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	reqs := ts.Requests()
	require.Len(t, reqs, calls)
	for _, r := range reqs {
		assert.Equal(t, apiPrefix+"/v1/payments/checkPaymentStatus", r.Path, "the prefix added once, not once per earlier call")
		assert.Equal(t, []string{"t"}, r.Header.Values("X-Trace"))
		assert.Equal(t, []string{"application/json", "text/plain"}, r.Header.Values("Accept"))
	}
}

// TestCallerClientWithJarOrTimeout: a client whose jar or timeout adds to
// its transport is used through http.Client.Do, so both apply.
func TestCallerClientWithJarOrTimeout(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			http.SetCookie(w, &http.Cookie{Name: "lb", Value: "node-7", Path: "/"})
		}
		respond(w, http.StatusOK, successBody(t, opStatus))
	})
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	c, _ := newClient(t, ts.BaseURL(), upicollect.WithHTTPClient(&http.Client{Jar: jar}), noRetry())
	for range 2 {
		_, err := c.CheckPaymentStatus(context.Background(), "ORD-1")
		require.NoError(t, err)
	}
	reqs := ts.Requests()
	require.Len(t, reqs, 2)
	assert.Empty(t, reqs[0].Header.Get("Cookie"))
	assert.Equal(t, "lb=node-7", reqs[1].Header.Get("Cookie"), "the jar's cookie sent back")

	slow := newTestServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { block(r) })
	c, _ = newClient(t, slow.BaseURL(), upicollect.WithHTTPClient(&http.Client{Timeout: time.Millisecond}), noRetry())
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	_, err = c.CheckPaymentStatus(ctx, "ORD-1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Client.Timeout exceeded", "the client's own timeout ended the attempt")
	assert.NoError(t, ctx.Err(), "not the test's bound")
}

// fakeTransport answers with whatever it is given.
type fakeTransport struct {
	res *http.Response
	err error
}

func (ft fakeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, req.Body)
	if ft.res != nil {
		ft.res.Request = req
	}
	return ft.res, ft.err
}

type trackedBody struct {
	io.Reader
	closed bool
}

func (b *trackedBody) Close() error { b.closed = true; return nil }

// TestCallerTransportOddAnswers: what a transport may return that
// net/http's never does is an error, never a panic or a wrong answer.
func TestCallerTransportOddAnswers(t *testing.T) {
	t.Parallel()
	newC := func(ft fakeTransport) *upicollect.Client {
		c, _ := newClient(t, "http://127.0.0.1:1/api", upicollect.WithHTTPClient(&http.Client{Transport: ft}), noRetry())
		return c
	}
	ok := successBody(t, opStatus)

	_, err := newC(fakeTransport{}).CheckPaymentStatus(context.Background(), "ORD-1")
	require.Error(t, err, "neither a response nor an error")
	var ue *url.Error
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, "Post", ue.Op)
	assert.Equal(t, "http://127.0.0.1:1/api/v1/payments/checkPaymentStatus", ue.URL)

	body := &trackedBody{Reader: strings.NewReader(string(ok))}
	boom := errors.New("boom")
	_, err = newC(fakeTransport{res: &http.Response{StatusCode: 200, Body: body}, err: boom}).CheckPaymentStatus(context.Background(), "ORD-1")
	require.ErrorIs(t, err, boom, "a response with an error is the error")
	assert.True(t, body.closed, "and its body is closed")

	_, err = newC(fakeTransport{res: &http.Response{StatusCode: 200, Header: http.Header{}, ContentLength: -1}}).CheckPaymentStatus(context.Background(), "ORD-1")
	require.ErrorIs(t, err, upicollect.ErrUnexpectedResponse, "no body is an empty one")

	for _, length := range []int64{-1, 0, 10, int64(len(ok)), 1 << 30} {
		res := &http.Response{StatusCode: 200, Header: http.Header{}, ContentLength: length, Body: io.NopCloser(strings.NewReader(string(ok)))}
		st, err := newC(fakeTransport{res: res}).CheckPaymentStatus(context.Background(), "ORD-1")
		require.NoError(t, err, "a Content-Length of %d does not cut or pad the body", length)
		assert.Equal(t, string(ok), string(st.Response.Body))
	}
}
