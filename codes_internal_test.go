package upicollect

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/upicollect/upicollect-go/internal/vocab"
	"github.com/upicollect/upicollect-go/internal/wire"
)

// TestAnswers tables what every HTTP status and envelope shape means, for
// the status check (with its not-found shapes) and for a create: wire.Check,
// statusAnswer and codeTable together.
func TestAnswers(t *testing.T) {
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
		kind       kind
		unreadable bool
	}{
		{"success", create, 200, `{"status":true,"statusCode":200,"data":{}}`, true, 0, kind(0), false},
		{"success 201", create, 201, `{"status":true}`, true, 0, kind(0), false},
		{"success in a 500 is not one", create, 500, `{"status":true}`, false, 500, kindServer, false},
		{"success in a 404 is not one", status, 404, `{"status":true,"txnStatus":"SUCCESS"}`, false, 404, kindNotFound, false},
		{"refusal without a code", create, 200, `{"status":false,"msg":"Merchant inactive"}`, false, 200, kindInvalid, false},
		{"duplicate in a 200", create, 200, `{"status":false,"statusCode":409,"msg":"dup"}`, false, 409, kindDuplicate, false},
		{"duplicate", create, 409, `{"status":false,"statusCode":409}`, false, 409, kindDuplicate, false},
		{"body statusCode 200 in a 400", create, 400, `{"status":false,"statusCode":200}`, false, 400, kindInvalid, false},
		{"string statusCode", create, 200, `{"status":false,"statusCode":"429"}`, false, 429, kindRateLimited, false},
		{"missing auth in a 401", create, 401, `{"status":false,"message":"Authorization header is required"}`, false, 401, kindUnauthorized, false},
		{"missing auth in a 200", status, 200, `{"status":false,"message":"Authorization header is required"}`, false, 200, kindUnauthorized, false},
		{"message with a statusCode is not missing auth", create, 400, `{"status":false,"statusCode":400,"message":"bad"}`, false, 400, kindInvalid, false},
		{"rejected credentials", create, 200, `{"status":false,"statusCode":401,"msg":"Invalid API credentials"}`, false, 401, kindUnauthorized, false},
		{"forbidden", create, 403, `{"status":false}`, false, 403, kindUnauthorized, false},
		{"server", create, 502, `{"status":false,"statusCode":502}`, false, 502, kindServer, false},
		{"5xx bounds", create, 599, `{"status":false}`, false, 599, kindServer, false},
		{"600 is nothing known", create, 600, `{"status":false}`, false, 600, kindInvalid, false},
		{"499", create, 499, `{"status":false}`, false, 499, kindInvalid, false},

		{"status: not found (document)", status, 200, `{"status":false,"statusCode":200,"txnStatus":"PENDING","msg":"Transaction not found"}`, true, 0, kind(0), false},
		{"status: not found (404 shape)", status, 200, `{"status":false,"statusCode":404,"msg":"Transaction not found"}`, true, 0, kind(0), false},
		{"status: not found (404 shape in a 404)", status, 404, `{"status":false,"statusCode":404,"msg":"Transaction not found"}`, true, 0, kind(0), false},
		{"status: FAIL", status, 200, `{"status":false,"statusCode":200,"txnStatus":"FAIL"}`, true, 0, kind(0), false},
		{"status: FAIL without statusCode", status, 200, `{"status":false,"txnStatus":"FAIL"}`, true, 0, kind(0), false},
		{"status: refusal without code or state", status, 200, `{"status":false,"msg":"Invalid mid"}`, false, 200, kindInvalid, false},
		{"status: 404 without statusCode", status, 404, `{"status":false,"msg":"Not found"}`, false, 404, kindNotFound, false},
		{"status: 500 with statusCode 200", status, 500, `{"status":false,"statusCode":200,"msg":"oops"}`, false, 500, kindServer, false},
		{"status: 500 with statusCode 200 and PENDING", status, 500, `{"status":false,"statusCode":200,"txnStatus":"PENDING"}`, false, 500, kindServer, false},
		{"status: 500 with statusCode 404", status, 500, `{"status":false,"statusCode":404}`, false, 404, kindNotFound, false},
		{"status: txnStatus with an error code", status, 200, `{"status":false,"statusCode":400,"txnStatus":"PENDING"}`, false, 400, kindInvalid, false},
		{"status: txnStatus with statusCode 404", status, 200, `{"status":false,"statusCode":404,"txnStatus":"PENDING"}`, true, 0, kind(0), false},
		{"status: 429 with statusCode 200", status, 429, `{"status":false,"statusCode":200}`, false, 429, kindRateLimited, false},
		{"status: 299 is a 2xx", status, 299, `{"status":false,"statusCode":404}`, true, 0, kind(0), false},
		{"status: 300 is not", status, 300, `{"status":false,"statusCode":404}`, false, 300, kind(0), true},
		{"create: not-found shape is a refusal", create, 200, `{"status":false,"statusCode":404}`, false, 404, kindNotFound, false},
		{"create: txnStatus is a refusal", create, 200, `{"status":false,"statusCode":200,"txnStatus":"PENDING"}`, false, 200, kindInvalid, false},

		{"redirect", create, 303, `{"status":true}`, false, 303, kind(0), true},
		{"redirect 399", create, 399, ``, false, 399, kind(0), true},
		{"not the envelope", status, 404, `<html>404</html>`, false, 404, kindNotFound, true},
		{"empty 200", create, 200, ``, false, 200, kind(0), true},
		{"HTML 502", create, 502, `<html>bad gateway</html>`, false, 502, kindServer, true},
	}
	for _, tt := range tests {
		var accept wire.Accept
		if tt.op == status {
			accept = statusAnswer
		}
		env, ok, err := wire.Check(tt.http, []byte(tt.body), accept)
		a := attempt{resp: &Response{HTTPStatus: tt.http}, env: env, accepted: ok}
		if err != nil {
			a.unreadable = err.Error()
		}
		if tt.answer {
			assert.True(t, ok, tt.name)
			assert.NotNil(t, env, tt.name)
			continue
		}
		assert.False(t, ok, tt.name)
		assert.Equal(t, tt.code, a.code(), "%s: code", tt.name)
		assert.Equal(t, tt.kind, answerKinds(&a)&^kindUnexpected, "%s: kind", tt.name)
		assert.Equal(t, tt.unreadable, answerKinds(&a)&kindUnexpected != 0, "%s: unexpected", tt.name)
		assert.Equal(t, tt.unreadable, a.unreadable != "", "%s: unreadable %q", tt.name, a.unreadable)
		assert.Equal(t, tt.unreadable, env == nil, "%s: envelope", tt.name)
	}
}

// TestMeaningOf: the kinds codeTable gives each status code.
func TestMeaningOf(t *testing.T) {
	t.Parallel()
	for code, want := range map[int]kind{
		0: kind(0), 200: kind(0), 302: kind(0), 399: kind(0),
		400: kindInvalid, 401: kindUnauthorized, 402: kindInvalid, 403: kindUnauthorized, 404: kindNotFound,
		409: kindDuplicate, 429: kindRateLimited, 499: kindInvalid,
		500: kindServer, 599: kindServer, 600: kind(0),
	} {
		assert.Equal(t, want, meaningOf(code).kinds, "%d", code)
	}
}

// TestCodeTableRetries: which codes each safety may repeat, and which make
// a create's outcome unknown.
func TestCodeTableRetries(t *testing.T) {
	t.Parallel()
	for _, code := range []int{429, 500, 502, 503, 504} {
		m := meaningOf(code)
		assert.Equal(t, [3]bool{true, true, false}, m.retry, "%d", code)
		assert.True(t, m.ambiguous, "%d", code)
		assert.NotEmpty(t, m.transient, "%d", code)
	}
	for _, code := range []int{0, 200, 302, 400, 401, 403, 404, 409, 422, 501, 505, 599, 600} {
		m := meaningOf(code)
		assert.Equal(t, [3]bool{}, m.retry, "%d", code)
		assert.False(t, m.ambiguous, "%d", code)
		assert.Empty(t, m.transient, "%d", code)
	}
}
