package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostile is text a compromised or buggy service might send: a CSI that
// clears the screen, an OSC that retitles the window and plants a
// hyperlink, a C1 CSI, a bidi override and a bare carriage return.
const hostile = "\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\\u009b31m\u202eRTL\rEND"

// rawControl reports the first raw control character in s that a terminal
// would act on, or "" when there is none.
func rawControl(s string) string {
	for _, r := range s {
		if r != '\n' && r != '\t' && unsafeRune(r) {
			return strings.ToUpper(string(r))
		}
	}
	return ""
}

// hostileService answers every operation successfully, with hostile text
// in the fields a person reads that the SDK passes on as sent: message, UTR,
// dynamic QR.
func hostileService(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.NoError(t, r.ParseForm())
		orderID := r.PostForm.Get("order_id")
		var data map[string]any
		answer := map[string]any{"status": true, "statusCode": 200, "msg": "ok " + hostile}
		switch {
		case strings.HasSuffix(r.URL.Path, "/createPaymentIntent"):
			link := "upi://pay?pa=acme@okaxis&pn=Acme&am=499.00&cu=INR"
			if orderID != "" {
				link += "&tr=" + orderID
			}
			data = map[string]any{"intent": link, "amount": "499", "orderId": orderID,
				"dynamicQR": "https://pay.example/qr/" + hostile}
		case strings.HasSuffix(r.URL.Path, "/createPaymentLink"):
			data = map[string]any{"payment_link": "https://pay.example/l/abc"} // the SDK refuses a URL with controls
		case strings.HasSuffix(r.URL.Path, "/createPaymentRequest"):
			data = map[string]any{"order_id": orderID, "payment_url": "https://pay.example/r/abc"}
		case strings.HasSuffix(r.URL.Path, "/checkPaymentStatus"):
			answer["txnStatus"] = "SUCCESS"
			data = map[string]any{"amount": 499, "UTR": "4123" + hostile, "order_id": orderID}
		}
		answer["data"] = data
		w.Header().Set("Content-Type", "application/json")
		require.NoError(t, json.NewEncoder(w).Encode(answer))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// refusingService refuses every call with hostile text in its message.
func refusingService(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]any{"status": false, "statusCode": 400, "msg": "refused " + hostile})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestServiceTextEscaped: what the service sends is printed with its
// control characters escaped, never executed, in human output, JSON and
// error messages alike.
func TestServiceTextEscaped(t *testing.T) {
	env := func(base string) []string {
		return []string{envBaseURL + "=" + base, envMID + "=m", envPublicKey + "=pk", envSecretKey + "=sk"}
	}
	good := env(hostileService(t))
	runs := [][]string{
		intentArgs("esc-1"), intentArgs("esc-2", "--json"), intentArgs("esc-3", "--qr"),
		{"status", "esc-1"}, {"status", "esc-1", "--json"},
		{"wait", "esc-1"}, {"wait", "esc-1", "--json"},
		append([]string{"link", "--amount", "1"}, customer...), append([]string{"link", "--amount", "1", "--json"}, customer...),
		append([]string{"request", "--amount", "1", "--vpa", "a@b", "--order-id", "esc-4"}, customer...),
	}
	for _, args := range runs {
		r := cli(t, good, "", args...)
		assert.Equal(t, exitOK, r.code, "%v: %s", args, r.output())
		assert.Empty(t, rawControl(r.output()), "%v printed a raw control character: %q", args, r.output())
		if wantsJSON(args) {
			assert.Contains(t, r.stdout, `\u001b[2J`, "%v: JSON escapes it", args)
			assert.Contains(t, r.stdout, `\u009b31m`, "%v: C1 controls escaped too", args)
			assert.Contains(t, r.stdout, `\u202eRTL`, "%v: and bidi overrides", args)
		} else {
			assert.Contains(t, r.stdout, `\x1b[2J\x1b[H\x1b]0;pwned\x07`, "%v: shown escaped", args)
			assert.Contains(t, r.stdout, `\u009b31m\u202eRTL\x0dEND`, "%v: shown escaped", args)
		}
	}
	bad := env(refusingService(t))
	for _, args := range [][]string{{"status", "esc-1"}, intentArgs("esc-5"), {"status", "esc-1", "--json"}} {
		r := cli(t, bad, "", args...)
		assert.Equal(t, exitRefused, r.code, "%v: %s", args, r.output())
		assert.Empty(t, rawControl(r.output()), "%v printed a raw control character: %q", args, r.output())
		assert.Contains(t, r.output(), "refused ", args)
	}
}

// TestNoRepeatedPhrases: an error says each thing once; an empty answer is
// "empty body", not "empty body: empty body".
func TestNoRepeatedPhrases(t *testing.T) {
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(empty.Close)
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) }))
	t.Cleanup(failing.Close)
	for _, base := range []string{empty.URL, failing.URL} {
		env := []string{envBaseURL + "=" + base, envMID + "=m", envPublicKey + "=pk", envSecretKey + "=sk"}
		for _, args := range [][]string{{"status", "x"}, intentArgs("x"), {"status", "x", "--json"}} {
			r := cli(t, env, "", args...)
			assert.NotEqual(t, exitOK, r.code)
			assert.Contains(t, r.output(), "empty body")
			assert.Empty(t, repeatedPhrase(r.output()), "%v: %s", args, r.output())
		}
	}
}

// repeatedPhrase is the first ": "-separated phrase that comes twice in a
// row in s, or "".
func repeatedPhrase(s string) string {
	parts := strings.Split(s, ": ")
	for i := 1; i < len(parts); i++ {
		if strings.TrimSpace(parts[i]) == strings.TrimSpace(parts[i-1]) {
			return parts[i]
		}
	}
	return ""
}
