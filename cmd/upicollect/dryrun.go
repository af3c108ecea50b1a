package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// errDryRun stops a request at the transport under --dry-run.
var errDryRun = errors.New("dry run: request not sent")

// dryRun is an http.RoundTripper that records the request the SDK built,
// exactly as it would go out, and sends nothing.
type dryRun struct {
	req  *http.Request
	body []byte
}

func (d *dryRun) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		d.body = b
	}
	d.req = r
	return nil, errDryRun
}

// dryRunJSON is the --json form of a recorded request.
type dryRunJSON struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Form    map[string]string `json:"form"`
}

// report prints the recorded request; err is what the SDK returned, which
// is a validation error when no request was built.
func (a *app) reportDryRun(d *dryRun, err error) error {
	if d.req == nil {
		if err == nil {
			err = errors.New("dry run: no request was built")
		}
		return err
	}
	// Authorization shows its scheme only; a credential anywhere else (a
	// value pasted where a note goes) is masked as everywhere else.
	filter := a.secrets.current()
	headers := map[string]string{}
	for k, v := range filter.Header(d.req.Header) {
		headers[k] = strings.Join(v, ", ")
	}
	body := filter.Text(string(d.body))
	form, _ := url.ParseQuery(body)
	if a.json {
		fj := map[string]string{}
		for k, v := range form {
			fj[k] = strings.Join(v, ",")
		}
		return a.printJSON(dryRunJSON{Method: d.req.Method, URL: d.req.URL.String(), Headers: headers, Form: fj})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", d.req.Method, d.req.URL)
	for _, k := range sortedKeys(headers) {
		fmt.Fprintf(&b, "%s: %s\n", k, headers[k])
	}
	fmt.Fprintf(&b, "\n%s\n\n(dry run: nothing sent)\n", body)
	_, werr := io.WriteString(a.stdout, b.String())
	return werr
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
