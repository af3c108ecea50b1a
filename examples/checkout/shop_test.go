package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/sandbox"
)

// newTestShop serves the shop over loopback against a sandbox.
func newTestShop(t *testing.T) (*shop, *httptest.Server, *sandbox.Server) {
	t.Helper()
	sb := sandbox.Start(t)
	s := newShop(sb.Client(), "", sb.URL())
	srv := httptest.NewServer(s.routes())
	t.Cleanup(srv.Close)
	s.baseURL = srv.URL
	return s, srv, sb
}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	res, err := http.Get(u)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

var orderIDRe = regexp.MustCompile(`Order <code>(ord_[a-z2-7]+)</code>`)

func checkout(t *testing.T, srv *httptest.Server) (string, string) {
	t.Helper()
	res, err := http.PostForm(srv.URL+"/checkout", url.Values{
		"name": {"Ravi Kumar"}, "email": {"ravi@example.com"}, "mobile": {"98765 43210"},
	})
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode, string(b))
	m := orderIDRe.FindStringSubmatch(string(b))
	require.NotNil(t, m, string(b))
	return m[1], string(b)
}

func TestCheckoutShowsQRAndLinks(t *testing.T) {
	_, srv, sb := newTestShop(t)
	code, body := get(t, srv.URL+"/")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "₹499.00")

	id, page := checkout(t, srv)
	assert.Contains(t, page, `<img alt="UPI QR code" src="`+sb.URL()+`/sandbox/qr/`+id+`.png">`)
	assert.Contains(t, page, `href="upi://pay?`)
	assert.Contains(t, page, sb.URL()+"/sandbox/pay/"+id)
}

func TestReturnCreditsOnceOnly(t *testing.T) {
	s, srv, sb := newTestShop(t)
	id, _ := checkout(t, srv)
	ret := srv.URL + "/return?ref=" + id

	code, body := get(t, ret)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "Waiting for your payment")
	assert.Equal(t, 0, s.orders.credited())

	_, err := sb.Pay(id)
	require.NoError(t, err)

	// The browser comes back many times, some at once: one credit.
	var wg sync.WaitGroup
	firsts := make(chan bool, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, body := get(t, ret)
			assert.Equal(t, http.StatusOK, code)
			assert.Contains(t, body, "Thank you!")
			firsts <- !regexp.MustCompile("already confirmed").MatchString(body)
		}()
	}
	wg.Wait()
	close(firsts)
	n := 0
	for f := range firsts {
		if f {
			n++
		}
	}
	assert.Equal(t, 1, n, "exactly one return page credits the order")
	assert.Equal(t, 1, s.orders.credited())
}

func TestReturnUnknownOrder(t *testing.T) {
	_, srv, _ := newTestShop(t)
	code, _ := get(t, srv.URL+"/return?ref=ord_nope")
	assert.Equal(t, http.StatusNotFound, code)
}

func TestCheckoutValidationError(t *testing.T) {
	_, srv, _ := newTestShop(t)
	res, err := http.PostForm(srv.URL+"/checkout", url.Values{"name": {"Ravi"}, "email": {"nope"}, "mobile": {"12"}})
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	assert.Contains(t, string(b), "customer_email")
	assert.Contains(t, string(b), "customer_mobile")
}

// TestHostedPageReturnsToShop plays the payer on the sandbox's hosted page:
// the payer comes back to the shop's redirect_url exactly as the shop gave
// it, and the shop reads its own reference back from it.
func TestHostedPageReturnsToShop(t *testing.T) {
	s, srv, sb := newTestShop(t)
	id, _ := checkout(t, srv)
	c := sb.HTTPClient()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := c.PostForm(sb.URL()+"/sandbox/orders/"+url.PathEscape(id)+"/pay", url.Values{"result": {"SUCCESS"}, "return": {"page"}})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	loc := res.Header.Get("Location")
	assert.Equal(t, srv.URL+"/return?ref="+url.QueryEscape(id), loc, "redirect_url exactly as given")

	code, body := get(t, loc)
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "Thank you!")
	assert.Equal(t, 1, s.orders.credited())
}
