package dashboard

import (
	"errors"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

// oddIDs are order ids a URL path can lose: dot segments, in every
// spelling a browser reads as one, separators, a query's and a fragment's
// start, percent signs, a backslash (a slash to a browser), and Unicode.
var oddIDs = []string{".", "..", "...", "a/b", `a\b`, "%2e", "%2E%2E", ".%2e", "%2F", "../x", "?x", "#y", "a?b#c",
	"ऑर्डर-१", "🙂", "Zoë"}

// browserResolve resolves href against base as a browser does (the WHATWG
// URL standard): as net/url's ResolveReference (RFC 3986), and first the
// path segments a browser reads as dots ("%2e", ".%2E", "%2e%2e" ...,
// whatever the case) taken for "." and "..", which net/url leaves as they
// are.
func browserResolve(t *testing.T, base, href string) *url.URL {
	t.Helper()
	path, rest := href, ""
	if i := strings.IndexAny(href, "?#"); i >= 0 {
		path, rest = href[:i], href[i:]
	}
	segs := strings.Split(path, "/")
	for i, s := range segs {
		switch strings.ToLower(s) {
		case "%2e":
			segs[i] = "."
		case ".%2e", "%2e.", "%2e%2e":
			segs[i] = ".."
		}
	}
	ref, err := url.Parse(strings.Join(segs, "/") + rest)
	require.NoError(t, err, href)
	b, err := url.Parse(base)
	require.NoError(t, err)
	return b.ResolveReference(ref)
}

// TestBrowserResolve: what a browser makes of links to dot ids; the
// percent-encoded dots are lost as the plain ones are.
func TestBrowserResolve(t *testing.T) {
	const page = "http://127.0.0.1:8790/orders?state=pending"
	tests := []struct{ href, want string }{
		{"/orders/..", "http://127.0.0.1:8790/"},
		{"/orders/%2E%2E", "http://127.0.0.1:8790/"},
		{"/orders/.%2e", "http://127.0.0.1:8790/"},
		{"/orders/%2e", "http://127.0.0.1:8790/orders/"},
		{"/orders/%252e", "http://127.0.0.1:8790/orders/%252e"},
		{"/orders/a%2Fb", "http://127.0.0.1:8790/orders/a%2Fb"},
		{"/order?id=..", "http://127.0.0.1:8790/order?id=.."},
		{"orders/x", "http://127.0.0.1:8790/orders/x"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, browserResolve(t, page, tt.href).String(), tt.href)
	}
}

// TestOrderURL: the link of each odd id.
func TestOrderURL(t *testing.T) {
	tests := []struct{ id, want string }{
		{"ORD-1", "/orders/ORD-1"},
		{".", "/order?id=."},
		{"..", "/order?id=.."},
		{"...", "/orders/..."},
		{"a/b", "/orders/a%2Fb"},
		{"%2e", "/orders/%252e"},
		{"?x", "/orders/%3Fx"},
		{"#y", "/orders/%23y"},
		{"Zoë", "/orders/Zo%C3%AB"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, orderURL(tt.id), tt.id)
	}
}

// reOrderLink is an order's row and its link in a table.
var reOrderLink = regexp.MustCompile(`<tr data-order="([^"]*)">\s*<td class="id"><a href="([^"]*)">`)

// reOrderID is the id an order's page is about.
var reOrderID = regexp.MustCompile(`<span data-order-id>([^<]*)</span>`)

// TestOddIDsLinks follows the dashboard's own links to orders whose ids a
// URL can lose, as a browser resolves them against the page that holds
// them: from the lists and the overview, each reaches its order's page
// (200, no redirect, that order's id).
func TestOddIDsLinks(t *testing.T) {
	ctx := testContext(t)
	st := reconcile.NewMemoryStore()
	for _, id := range oddIDs {
		require.NoError(t, st.Track(ctx, reconcile.Order{ID: id, Amount: upicollect.Rupees(499), Created: now}, now.Add(time.Minute)), id)
	}
	srv := serve(t, st)
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return errors.New("redirected") }
	pages := []struct {
		path  string
		links int
	}{
		{"/orders", len(oddIDs)},
		{"/orders?state=pending", len(oddIDs)},
		{"/", 10}, // the newest orders
	}
	followed := map[string]int{}
	total := 0
	for _, p := range pages {
		code, body := get(t, srv, p.path)
		require.Equal(t, http.StatusOK, code, p.path)
		links := reOrderLink.FindAllStringSubmatch(body, -1)
		require.Len(t, links, p.links, p.path)
		for _, l := range links {
			id, href := html.UnescapeString(l[1]), html.UnescapeString(l[2])
			u := browserResolve(t, srv.URL+p.path, href)
			code, body := fetch(t, client, u.String())
			require.Equal(t, http.StatusOK, code, "%q: %s from %s", id, u, p.path)
			m := reOrderID.FindStringSubmatch(body)
			require.NotNil(t, m, "%q: %s is no order's page", id, u)
			assert.Equal(t, id, html.UnescapeString(m[1]), "%s from %s", u, p.path)
			followed[id]++
			total++
		}
	}
	assert.Equal(t, 2*len(oddIDs)+10, total, "every link followed")
	for _, id := range oddIDs {
		assert.GreaterOrEqual(t, followed[id], 2, "%q was linked from both lists", id)
	}
}

// TestOrderPathDecoded: a client that sends the path as written (curl
// --path-as-is, a script) reaches a dot id by its percent-encoded segment
// too: the server decodes each segment after matching it, and its mux
// cleans only literal dots. /order?id= is the other spelling of any id.
func TestOrderPathDecoded(t *testing.T) {
	ctx := testContext(t)
	st := reconcile.NewMemoryStore()
	for _, id := range oddIDs {
		require.NoError(t, st.Track(ctx, reconcile.Order{ID: id, Amount: upicollect.Rupees(499), Created: now}, now.Add(time.Minute)), id)
	}
	srv := serve(t, st)
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return errors.New("redirected") }
	tests := []struct {
		path string
		code int
		id   string
	}{
		{"/orders/%2E%2E", http.StatusOK, ".."},
		{"/orders/%2e", http.StatusOK, "."},
		{"/orders/.%2E", http.StatusOK, ".."},
		{"/orders/a%2Fb", http.StatusOK, "a/b"},
		{"/orders/%252e", http.StatusOK, "%2e"},
		{"/orders/%3Fx", http.StatusOK, "?x"},
		{"/orders/%23y", http.StatusOK, "#y"},
		{"/order?id=..", http.StatusOK, ".."},
		{"/order?id=a%2Fb", http.StatusOK, "a/b"},
		{"/order?id=%F0%9F%99%82", http.StatusOK, "🙂"},
		{"/order?id=no-such-order", http.StatusNotFound, ""},
		{"/order?id=", http.StatusBadRequest, ""},
		{"/order", http.StatusBadRequest, ""},
	}
	for _, tt := range tests {
		code, body := fetch(t, client, srv.URL+tt.path)
		require.Equal(t, tt.code, code, tt.path)
		if tt.id != "" {
			m := reOrderID.FindStringSubmatch(body)
			require.NotNil(t, m, tt.path)
			assert.Equal(t, tt.id, html.UnescapeString(m[1]), tt.path)
		}
	}
}

// fetch GETs rawURL, sending its path as written, and returns the status
// and body.
func fetch(t *testing.T, client *http.Client, rawURL string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), http.MethodGet, rawURL, nil)
	require.NoError(t, err)
	res, err := client.Do(req)
	require.NoError(t, err, rawURL)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}
