package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

// TestQRLint: a upi: link is read first; one a payer's app would misread
// is refused unless --force, and legal but risky links draw with warnings.
func TestQRLint(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
		drawn  bool
	}{
		{"no payee", []string{"qr", "upi://pay?am=499.00"}, exitUsage, "not a UPI link a payer's app can read", false},
		{"bad amount", []string{"qr", "upi://pay?pa=shop@okaxis&am=4.999"}, exitUsage, "(--force draws it anyway)", false},
		{"web scheme is not linted", []string{"qr", "https://shop.example/pay"}, exitOK, "", true},
		{"forced", []string{"qr", "--force", "upi://pay?am=499.00"}, exitOK, "upicollect: warning: drawn anyway (--force)", true},
		{"forced png", []string{"qr", "--force", "upi://pay?am=499.00", "--png", "-"}, exitOK, "drawn anyway", true},
		{"lint warning", []string{"qr", "upi://pay?pa=shop@okaxis&am=499.00&cu=USD"}, exitOK, "upicollect: warning: cu: currency USD", true},
		{"upper-case scheme", []string{"qr", "UPI://pay?am=1"}, exitUsage, "not a UPI link", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cli(t, nil, "", tt.args...)
			assert.Equal(t, tt.code, r.code, r.output())
			assert.Contains(t, r.stderr, tt.stderr)
			assert.Equal(t, tt.drawn, r.stdout != "", "drawn: %q", r.stdout)
		})
	}
}

// TestQRSandboxLinks: the links a sandbox makes (the generic link and
// each app's, from a real intent) draw without a warning, though they
// carry a transaction reference without a merchant code, as the service's
// do; the same link to another payee is warned about, and a sandbox link
// with another problem still is.
func TestQRSandboxLinks(t *testing.T) {
	s := sandbox.Start(t)
	in, err := s.Client().CreatePaymentIntent(context.Background(), &upicollect.IntentParams{Amount: upicollect.Rupees(499),
		RedirectURL: "https://shop.example/thanks", Note: "Order 42",
		Customer: upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"}})
	require.NoError(t, err)
	require.Contains(t, in.Link, "&tr=", "the case in point: a transaction reference")
	require.NotContains(t, in.Link, "mc=", "the case in point: no merchant code")

	links := []string{in.Link}
	for _, l := range in.AppLinks {
		links = append(links, l)
	}
	for _, l := range links {
		r := cli(t, nil, l, "qr", "-")
		assert.Equal(t, exitOK, r.code, r.output())
		assert.Empty(t, r.stderr, "%s", l)
		assert.NotEmpty(t, r.stdout)
	}

	other := strings.Replace(in.Link, "pa="+sandbox.DefaultMerchantVPA, "pa=shop@okaxis", 1)
	require.NotEqual(t, in.Link, other)
	r := cli(t, nil, "", "qr", other)
	assert.Equal(t, exitOK, r.code, r.output())
	assert.Equal(t, "upicollect: warning: mc: a transaction reference without a merchant code\n", r.stderr)

	r = cli(t, nil, "", "qr", strings.Replace(in.Link, "cu=INR", "cu=USD", 1))
	assert.Equal(t, exitOK, r.code, r.output())
	assert.Equal(t, "upicollect: warning: cu: currency USD: UPI settles INR only\n", r.stderr)
}

// TestIntentLinksChecked: an intent whose links fail the SDK's checks (a
// wrong amount, an app link to the web) is shown neither as a link nor as
// a QR code; the order's fate is unknown.
func TestIntentLinksChecked(t *testing.T) {
	answers := map[string]func(id string) map[string]any{
		"wrong amount": func(id string) map[string]any {
			return map[string]any{
				"intent":  "upi://pay?pa=evil@okaxis&am=1.00&tr=" + id + "&cu=INR", // ₹1, not ₹499
				"phonepe": "phonepe://pay?pa=evil@okaxis&am=1.00&tr=" + id + "&cu=INR",
			}
		},
		"web app link": func(id string) map[string]any {
			return map[string]any{
				"intent":  "upi://pay?pa=shop@okaxis&am=499.00&tr=" + id + "&cu=INR",
				"phonepe": "https://evil.example/pay?pa=shop@okaxis&am=499.00&tr=" + id,
			}
		},
	}
	for name, links := range answers {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				require.NoError(t, r.ParseForm())
				id := r.PostForm.Get("order_id")
				data := links(id)
				data["amount"], data["orderId"] = "499", id
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(map[string]any{"status": true, "statusCode": 200, "msg": "ok", "data": data})
			}))
			t.Cleanup(srv.Close)
			env := []string{envBaseURL + "=" + srv.URL, envMID + "=m", envPublicKey + "=pk", envSecretKey + "=sk"}
			for _, extra := range [][]string{{"--qr"}, {"--json"}, nil} {
				r := cli(t, env, "", intentArgs("checked-1", extra...)...)
				assert.Equal(t, exitUnknown, r.code, r.output())
				assert.NotContains(t, r.output(), "█", "no QR drawn")
				assert.NotContains(t, r.output(), "upi://pay", "no link shown")
				assert.NotContains(t, r.output(), "evil.example", "no link shown")
				assert.Contains(t, r.output(), "checked-1", "the error names the order to check")
			}
		})
	}
}
