package wire

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/internal/vocab"
)

// TestCheck tables what every HTTP status and envelope shape means, for the
// status check and for a create.
func TestCheck(t *testing.T) {
	t.Parallel()
	const (
		status = vocab.OpCheckPaymentStatus
		create = vocab.OpCreatePaymentIntent
	)
	tests := []struct {
		name       string
		op         string
		http       int
		body       string
		answer     bool
		code       int
		kind       Kind
		unreadable bool
	}{
		{"success", create, 200, `{"status":true,"statusCode":200,"data":{}}`, true, 0, KindNone, false},
		{"success 201", create, 201, `{"status":true}`, true, 0, KindNone, false},
		{"success in a 500 is not one", create, 500, `{"status":true}`, false, 500, KindServer, false},
		{"success in a 404 is not one", status, 404, `{"status":true,"txnStatus":"SUCCESS"}`, false, 404, KindNotFound, false},
		{"refusal without a code", create, 200, `{"status":false,"msg":"Merchant inactive"}`, false, 200, KindInvalid, false},
		{"duplicate in a 200", create, 200, `{"status":false,"statusCode":409,"msg":"dup"}`, false, 409, KindDuplicate, false},
		{"duplicate", create, 409, `{"status":false,"statusCode":409}`, false, 409, KindDuplicate, false},
		{"body statusCode 200 in a 400", create, 400, `{"status":false,"statusCode":200}`, false, 400, KindInvalid, false},
		{"string statusCode", create, 200, `{"status":false,"statusCode":"429"}`, false, 429, KindRateLimited, false},
		{"missing auth in a 401", create, 401, `{"status":false,"message":"Authorization header is required"}`, false, 401, KindUnauthorized, false},
		{"missing auth in a 200", status, 200, `{"status":false,"message":"Authorization header is required"}`, false, 200, KindUnauthorized, false},
		{"message with a statusCode is not missing auth", create, 400, `{"status":false,"statusCode":400,"message":"bad"}`, false, 400, KindInvalid, false},
		{"rejected credentials", create, 200, `{"status":false,"statusCode":401,"msg":"Invalid API credentials"}`, false, 401, KindUnauthorized, false},
		{"forbidden", create, 403, `{"status":false}`, false, 403, KindUnauthorized, false},
		{"server", create, 502, `{"status":false,"statusCode":502}`, false, 502, KindServer, false},
		{"5xx bounds", create, 599, `{"status":false}`, false, 599, KindServer, false},
		{"600 is nothing known", create, 600, `{"status":false}`, false, 600, KindInvalid, false},
		{"499", create, 499, `{"status":false}`, false, 499, KindInvalid, false},

		{"status: not found (document)", status, 200, `{"status":false,"statusCode":200,"txnStatus":"PENDING","msg":"Transaction not found"}`, true, 0, KindNone, false},
		{"status: not found (404 shape)", status, 200, `{"status":false,"statusCode":404,"msg":"Transaction not found"}`, true, 0, KindNone, false},
		{"status: not found (404 shape in a 404)", status, 404, `{"status":false,"statusCode":404,"msg":"Transaction not found"}`, true, 0, KindNone, false},
		{"status: FAIL", status, 200, `{"status":false,"statusCode":200,"txnStatus":"FAIL"}`, true, 0, KindNone, false},
		{"status: FAIL without statusCode", status, 200, `{"status":false,"txnStatus":"FAIL"}`, true, 0, KindNone, false},
		{"status: refusal without code or state", status, 200, `{"status":false,"msg":"Invalid mid"}`, false, 200, KindInvalid, false},
		{"status: 404 without statusCode", status, 404, `{"status":false,"msg":"Not found"}`, false, 404, KindNotFound, false},
		{"status: 500 with statusCode 200", status, 500, `{"status":false,"statusCode":200,"msg":"oops"}`, false, 500, KindServer, false},
		{"status: 500 with statusCode 200 and PENDING", status, 500, `{"status":false,"statusCode":200,"txnStatus":"PENDING"}`, false, 500, KindServer, false},
		{"status: 500 with statusCode 404", status, 500, `{"status":false,"statusCode":404}`, false, 404, KindNotFound, false},
		{"status: txnStatus with an error code", status, 200, `{"status":false,"statusCode":400,"txnStatus":"PENDING"}`, false, 400, KindInvalid, false},
		{"status: txnStatus with statusCode 404", status, 200, `{"status":false,"statusCode":404,"txnStatus":"PENDING"}`, true, 0, KindNone, false},
		{"status: 429 with statusCode 200", status, 429, `{"status":false,"statusCode":200}`, false, 429, KindRateLimited, false},
		{"status: 299 is a 2xx", status, 299, `{"status":false,"statusCode":404}`, true, 0, KindNone, false},
		{"status: 300 is not", status, 300, `{"status":false,"statusCode":404}`, false, 300, KindNone, true},
		{"create: not-found shape is a refusal", create, 200, `{"status":false,"statusCode":404}`, false, 404, KindNotFound, false},
		{"create: txnStatus is a refusal", create, 200, `{"status":false,"statusCode":200,"txnStatus":"PENDING"}`, false, 200, KindInvalid, false},

		{"redirect", create, 303, `{"status":true}`, false, 303, KindNone, true},
		{"redirect 399", create, 399, ``, false, 399, KindNone, true},
		{"not the envelope", status, 404, `<html>404</html>`, false, 404, KindNotFound, true},
		{"empty 200", create, 200, ``, false, 200, KindNone, true},
		{"HTML 502", create, 502, `<html>bad gateway</html>`, false, 502, KindServer, true},
	}
	for _, tt := range tests {
		env, f := Check(tt.op, tt.http, []byte(tt.body))
		if tt.answer {
			assert.NotNil(t, env, tt.name)
			assert.Nil(t, f, tt.name)
			continue
		}
		assert.Nil(t, env, tt.name)
		require.NotNil(t, f, tt.name)
		assert.Equal(t, tt.code, f.Code, "%s: code", tt.name)
		assert.Equal(t, tt.kind, f.Kind, "%s: kind", tt.name)
		assert.Equal(t, tt.unreadable, f.Unreadable != "", "%s: unreadable %q", tt.name, f.Unreadable)
		assert.Equal(t, tt.unreadable, f.Env == nil, "%s: envelope", tt.name)
	}
}

func TestEnvelopeShapes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		body                  string
		missingAuth, notFound bool
	}{
		{`{"status":false,"message":"Authorization header is required"}`, true, true},
		{`{"status":false,"message":"x","statusCode":401}`, false, true},
		{`{"status":false,"msg":"x"}`, false, true},
		{`{"status":false,"msg":"x","txnStatus":"PENDING"}`, false, false},
		{`{"status":true,"message":"x"}`, true, false},
	} {
		env, err := DecodeEnvelope([]byte(tt.body))
		require.NoError(t, err)
		assert.Equal(t, tt.missingAuth, env.MissingAuth(), tt.body)
		assert.Equal(t, tt.notFound, env.NotFound(), tt.body)
	}
}

func TestEffectiveCode(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		env  Envelope
		http int
		want int
	}{
		{Envelope{}, 500, 500},
		{Envelope{HasStatusCode: true, StatusCode: 200}, 500, 500},
		{Envelope{HasStatusCode: true, StatusCode: 0}, 502, 502},
		{Envelope{HasStatusCode: true, StatusCode: 409}, 200, 409},
		{Envelope{HasStatusCode: false, StatusCode: 409}, 200, 200},
	} {
		assert.Equal(t, tt.want, EffectiveCode(&tt.env, tt.http), "%+v in %d", tt.env, tt.http)
	}
}

func TestCheckStatusOrder(t *testing.T) {
	t.Parallel()
	assert.NoError(t, CheckStatusOrder("A", nil))
	assert.NoError(t, CheckStatusOrder("A", &StatusData{}))
	assert.NoError(t, CheckStatusOrder("A", &StatusData{OrderID: "A"}))
	err := CheckStatusOrder("A", &StatusData{OrderID: "B"})
	assert.ErrorIs(t, err, ErrOtherOrder)
	assert.EqualError(t, err, `the answer names another order: asked "A", answer names "B"`)
}

func TestCheckLinks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s       string
		web, ok bool // web: CheckWebURL passes; ok: CheckAppLink passes
	}{
		{"https://pay.example.com/l/1", true, true},
		{"http://127.0.0.1:8080/pay", true, true},
		{"HTTPS://pay.example.com/", true, true},
		{"https:///nohost", false, true},
		{"//pay.example.com/x", false, false},
		{"/relative", false, false},
		{"", false, false},
		{"upi://pay?pa=a@b", false, true},
		{"upi:pay?pa=a@b", false, true},
		{"phonepe://pay?pa=a@b", false, true},
		{"tez://upi/pay?pa=a@b", false, true},
		{"javascript:alert(1)", false, false},
		{"JavaScript:alert(1)", false, false},
		{" javascript:alert(1)", false, false},
		{"vbscript:msgbox(1)", false, false},
		{"data:text/html,<script>alert(1)</script>", false, false},
		{"file:///etc/passwd", false, false},
		{"about:blank", false, false},
		{"blob:https://x/1", false, false},
		{"filesystem:https://x/1", false, false},
		{"ftp://x.example/f", false, true},
		{"https://x.example/\x00", false, false},
	} {
		assert.Equal(t, tt.web, CheckWebURL("payment_link", tt.s) == nil, "web %q", tt.s)
		assert.Equal(t, tt.ok, CheckAppLink("intent", tt.s) == nil, "app %q", tt.s)
	}
	at := "javascript:" + strings.Repeat("x", 64-len("javascript:"))
	assert.NotContains(t, CheckWebURL("payment_link", at).Error(), "…", "64 bytes are quoted whole")
	assert.Contains(t, CheckWebURL("payment_link", at+"y").Error(), `x"…`, "a longer value is cut at 64")

	for _, tt := range []struct{ data, err string }{
		{`{}`, ""},
		{`{"intent":"upi://pay","a":"appa://pay","b":"appb://pay "}`, `b "appb://pay " is not a UPI or app link`},
		{`{"intent":"javascript:x","z":"data:x"}`, `intent "javascript:x" is not a UPI or app link`},
		{`{"intent":"upi://pay","b":"upi://ok","z":"data:x","y":"file:///x","x":"appx://ok"}`, `y "file:///x" is not a UPI or app link`},
		{`{"a":" javascript:x"}`, `a " javascript:x" is not a UPI or app link`},
		{`{"a":"upi://pay?pa=x@y "}`, ""},
	} {
		_, err := DecodeIntentData([]byte(tt.data))
		if tt.err == "" {
			assert.NoError(t, err, tt.data)
		} else {
			assert.EqualError(t, err, tt.err, tt.data)
		}
	}
}

func TestCheckCarriesTheRefusal(t *testing.T) {
	t.Parallel()
	_, f := Check(vocab.OpCreatePaymentLink, 200, []byte(`{"status":false,"statusCode":"409","msg":"Order ID already exists"}`))
	require.NotNil(t, f)
	assert.Equal(t, 409, f.StatusCode)
	assert.Equal(t, "Order ID already exists", f.Msg)
	_, f = Check(vocab.OpCreatePaymentLink, 401, []byte(`{"status":false,"message":"Authorization header is required"}`))
	require.NotNil(t, f)
	assert.Equal(t, 0, f.StatusCode)
	assert.Equal(t, "Authorization header is required", f.Msg)
}

// FuzzCheck: any answer is an envelope to decode or a failure, never both
// nor neither, and never a panic.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"status":true}`, `{"status":false,"statusCode":404}`, `{"status":false,"message":"x"}`,
		`{"status":false,"statusCode":200,"txnStatus":"PENDING"}`, `<html>`, ``} {
		f.Add(vocab.OpCheckPaymentStatus, 200, []byte(s))
		f.Add(vocab.OpCreatePaymentIntent, 500, []byte(s))
	}
	f.Fuzz(func(t *testing.T, op string, status int, body []byte) {
		env, fail := Check(op, status, body)
		if (env == nil) == (fail == nil) {
			t.Fatalf("Check(%q, %d, %q) = %v, %v", op, status, body, env, fail)
		}
		if fail != nil && (fail.Unreadable == "") == (fail.Env == nil) {
			t.Fatalf("a failure is unreadable exactly when it has no envelope: %+v", fail)
		}
		if env != nil && status >= 300 && status < 400 {
			t.Fatalf("a redirect read as an answer")
		}
	})
}

func TestKindOf(t *testing.T) {
	t.Parallel()
	for code, want := range map[int]Kind{
		0: KindNone, 200: KindNone, 302: KindNone, 399: KindNone,
		400: KindInvalid, 401: KindUnauthorized, 402: KindInvalid, 403: KindUnauthorized, 404: KindNotFound,
		409: KindDuplicate, 429: KindRateLimited, 499: KindInvalid,
		500: KindServer, 599: KindServer, 600: KindNone,
	} {
		assert.Equal(t, want, KindOf(code), "%d", code)
	}
}
