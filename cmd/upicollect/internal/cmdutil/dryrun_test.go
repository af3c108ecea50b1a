package cmdutil

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
)

// TestReportDryRunMasksAuthorization masks the header itself, not only
// through the output's redaction of known secrets.
func TestReportDryRunMasksAuthorization(t *testing.T) {
	for _, jsonOut := range []bool{false, true} {
		var out bytes.Buffer
		ios := iostreams.New(strings.NewReader(""), &out, &bytes.Buffer{}, func(string) string { return "" })
		req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/v1/payments/checkPaymentStatus", strings.NewReader("mid=m&order_id=o"))
		require.NoError(t, err)
		req.SetBasicAuth("pk", "unregistered-secret")
		d := &DryRun{}
		_, err = d.RoundTrip(req)
		require.ErrorIs(t, err, ErrDryRun)
		require.NoError(t, d.Report(ios, jsonOut, err))
		assert.NotContains(t, out.String(), basicPair("pk", "unregistered-secret"))
		assert.Contains(t, out.String(), "Basic [REDACTED]")
		assert.Contains(t, out.String(), "order_id")
	}
	ios := iostreams.New(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, func(string) string { return "" })
	assert.Error(t, (&DryRun{}).Report(ios, false, nil), "no request built and no error: still a failure")
}

// basicPair is the pair as Basic authentication encodes it.
func basicPair(public, secret string) string {
	return base64.StdEncoding.EncodeToString([]byte(public + ":" + secret))
}
