package cmdutil

import (
	"errors"
	"fmt"
	"io"

	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// ErrDryRun stops a request at the transport under --dry-run.
var ErrDryRun = errors.New("dry run: request not sent")

// DryRun is an http.RoundTripper that records the request the SDK built,
// exactly as it would go out, and sends nothing.
type DryRun struct {
	req  *http.Request
	body []byte
}

// RoundTrip records r and sends nothing.
func (d *DryRun) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		d.body = b
	}
	d.req = r
	return nil, ErrDryRun
}

// dryRunJSON is the --json form of a recorded request.
type dryRunJSON struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Form    map[string]string `json:"form"`
}

// Report prints the recorded request on ios, as JSON with jsonOut; err is
// what the SDK returned, which is a validation error when no request was
// built.
func (d *DryRun) Report(ios *iostreams.IOStreams, jsonOut bool, err error) error {
	if d.req == nil {
		if err == nil {
			err = errors.New("dry run: no request was built")
		}
		return err
	}
	// Authorization shows its scheme only; a credential anywhere else (a
	// value pasted where a note goes) is masked as everywhere else.
	filter := ios.Secrets().Current()
	headers := map[string]string{}
	for k, v := range filter.Header(d.req.Header) {
		headers[k] = strings.Join(v, ", ")
	}
	body := filter.Text(string(d.body))
	form, _ := url.ParseQuery(body)
	if jsonOut {
		fj := map[string]string{}
		for k, v := range form {
			fj[k] = strings.Join(v, ",")
		}
		return ios.PrintJSON(dryRunJSON{Method: d.req.Method, URL: d.req.URL.String(), Headers: headers, Form: fj})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", d.req.Method, d.req.URL)
	for _, k := range SortedKeys(headers) {
		fmt.Fprintf(&b, "%s: %s\n", k, headers[k])
	}
	fmt.Fprintf(&b, "\n%s\n\n(dry run: nothing sent)\n", body)
	_, werr := ios.Out.Write([]byte(b.String()))
	return werr
}

// SortedKeys is m's keys in order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
