package cmdutil

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
)

// recorded is a DryRun that recorded a POST of body with a registered
// secret in its note, through f's streams.
func recorded(t *testing.T, f *Factory, body string) *DryRun {
	t.Helper()
	f.IOStreams.Secrets().Set(upicollect.Credentials{MID: "m", PublicKey: "pk_1", SecretKey: "sk_dry_secret"})
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/v1/payments/createPaymentRequest", strings.NewReader(body))
	require.NoError(t, err)
	req.SetBasicAuth("pk_1", "sk_dry_secret")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Add("X-Note", "a")
	req.Header.Add("X-Note", "b sk_dry_secret")
	d := &DryRun{}
	resp, err := d.RoundTrip(req)
	assert.Nil(t, resp)
	require.ErrorIs(t, err, ErrDryRun)
	return d
}

// TestDryRunReportText: the request line, the headers in order, the body
// with every secret masked, and the note that nothing was sent.
func TestDryRunReportText(t *testing.T) {
	f, out, _ := testFactory(nil)
	d := recorded(t, f, "mid=m&amount=499.00&note=sk_dry_secret")
	require.NoError(t, d.Report(f.IOStreams, false, ErrDryRun))
	assert.Equal(t, "POST http://127.0.0.1:1/v1/payments/createPaymentRequest\n"+
		"Authorization: Basic [REDACTED]\n"+
		"Content-Type: application/x-www-form-urlencoded\n"+
		"X-Note: a, b [REDACTED]\n"+
		"\n"+
		"mid=m&amount=499.00&note=[REDACTED]\n"+
		"\n"+
		"(dry run: nothing sent)\n", out.String())
}

// TestDryRunReportJSON: one document with the method, URL, headers and
// form, secrets masked and repeated form values joined.
func TestDryRunReportJSON(t *testing.T) {
	f, out, _ := testFactory(nil)
	d := recorded(t, f, "mid=m&amount=499.00&tag=x&tag=y")
	require.NoError(t, d.Report(f.IOStreams, true, ErrDryRun))
	assert.JSONEq(t, `{
		"method": "POST",
		"url": "http://127.0.0.1:1/v1/payments/createPaymentRequest",
		"headers": {"Authorization": "Basic [REDACTED]", "Content-Type": "application/x-www-form-urlencoded", "X-Note": "a, b [REDACTED]"},
		"form": {"mid": "m", "amount": "499.00", "tag": "x,y"}
	}`, out.String())
	assert.Equal(t, 1, strings.Count(out.String(), "\n"), "one line")
}

// TestDryRunWithoutBody: a request without a body is recorded with an
// empty one.
func TestDryRunWithoutBody(t *testing.T) {
	f, out, _ := testFactory(nil)
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:1/v1/x", nil)
	require.NoError(t, err)
	d := &DryRun{}
	_, err = d.RoundTrip(req)
	require.ErrorIs(t, err, ErrDryRun)
	require.NoError(t, d.Report(f.IOStreams, false, err))
	assert.Equal(t, "GET http://127.0.0.1:1/v1/x\n\n\n\n(dry run: nothing sent)\n", out.String())
}

// TestDryRunFailures: a body that cannot be read records nothing; without
// a request the SDK's error is the command's; a failed write is reported.
func TestDryRunFailures(t *testing.T) {
	errRead := errors.New("body read failed")
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/v1/x", io.MultiReader(strings.NewReader("a=1"), errReader{errRead}))
	require.NoError(t, err)
	d := &DryRun{}
	_, err = d.RoundTrip(req)
	assert.ErrorIs(t, err, errRead)
	assert.Nil(t, d.req, "nothing recorded")

	f, out, _ := testFactory(nil)
	ve := &upicollect.ValidationError{Op: "CheckPaymentStatus", Fields: []upicollect.FieldError{{Field: "order_id", Problem: "is required"}}}
	assert.Same(t, ve, d.Report(f.IOStreams, false, ve), "no request: the SDK's own error")
	err = d.Report(f.IOStreams, true, nil)
	require.Error(t, err)
	assert.Equal(t, "dry run: no request was built", err.Error())
	assert.Empty(t, out.String())

	for _, jsonOut := range []bool{false, true} {
		ios := iostreams.New(strings.NewReader(""), failWriter{}, io.Discard, func(string) string { return "" })
		d := recorded(t, &Factory{IOStreams: ios}, "mid=m")
		assert.ErrorIs(t, d.Report(ios, jsonOut, ErrDryRun), io.ErrClosedPipe, "json=%v", jsonOut)
	}
}

func TestSortedKeys(t *testing.T) {
	assert.Equal(t, []string{"Accept", "Authorization", "User-Agent", "a"}, SortedKeys(map[string]int{"User-Agent": 1, "a": 2, "Accept": 3, "Authorization": 4}))
	assert.Empty(t, SortedKeys(map[string]bool{}))
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }
