package upicollect

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/internal/redact"
	"github.com/upicollect/upicollect-go/internal/vocab"
	"github.com/upicollect/upicollect-go/internal/wire"
)

// TestAnswers tables what every HTTP status and envelope shape means, for
// the status check (with its not-found shapes) and for a create, as judge
// reads them: the envelope (wire.EnvelopeOf), the operation's shapes and
// codeTable together.
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
		kind       sentinels
		unreadable bool
	}{
		{"success", create, 200, `{"status":true,"statusCode":200,"data":{}}`, true, 0, sentinels(0), false},
		{"success 201", create, 201, `{"status":true}`, true, 0, sentinels(0), false},
		{"success in a 500 is not one", create, 500, `{"status":true}`, false, 500, isServer, false},
		{"success in a 404 is not one", status, 404, `{"status":true,"txnStatus":"SUCCESS"}`, false, 404, isNotFound, false},
		{"refusal without a code", create, 200, `{"status":false,"msg":"Merchant inactive"}`, false, 200, isInvalid, false},
		{"duplicate in a 200", create, 200, `{"status":false,"statusCode":409,"msg":"dup"}`, false, 409, isDuplicate, false},
		{"duplicate", create, 409, `{"status":false,"statusCode":409}`, false, 409, isDuplicate, false},
		{"body statusCode 200 in a 400", create, 400, `{"status":false,"statusCode":200}`, false, 400, isInvalid, false},
		{"string statusCode", create, 200, `{"status":false,"statusCode":"429"}`, false, 429, isRateLimited, false},
		{"missing auth in a 401", create, 401, `{"status":false,"message":"Authorization header is required"}`, false, 401, isUnauthorized, false},
		{"missing auth in a 200", status, 200, `{"status":false,"message":"Authorization header is required"}`, false, 200, isUnauthorized, false},
		{"message with a statusCode is not missing auth", create, 400, `{"status":false,"statusCode":400,"message":"bad"}`, false, 400, isInvalid, false},
		{"rejected credentials", create, 200, `{"status":false,"statusCode":401,"msg":"Invalid API credentials"}`, false, 401, isUnauthorized, false},
		{"forbidden", create, 403, `{"status":false}`, false, 403, isUnauthorized, false},
		{"server", create, 502, `{"status":false,"statusCode":502}`, false, 502, isServer, false},
		{"5xx bounds", create, 599, `{"status":false}`, false, 599, isServer, false},
		{"600 is nothing known", create, 600, `{"status":false}`, false, 600, isInvalid, false},
		{"499", create, 499, `{"status":false}`, false, 499, isInvalid, false},

		{"status: not found (document)", status, 200, `{"status":false,"statusCode":200,"txnStatus":"PENDING","msg":"Transaction not found"}`, true, 0, sentinels(0), false},
		{"status: not found (404 shape)", status, 200, `{"status":false,"statusCode":404,"msg":"Transaction not found"}`, true, 0, sentinels(0), false},
		{"status: not found (404 shape in a 404)", status, 404, `{"status":false,"statusCode":404,"msg":"Transaction not found"}`, true, 0, sentinels(0), false},
		{"status: FAIL", status, 200, `{"status":false,"statusCode":200,"txnStatus":"FAIL"}`, true, 0, sentinels(0), false},
		{"status: FAIL without statusCode", status, 200, `{"status":false,"txnStatus":"FAIL"}`, true, 0, sentinels(0), false},
		{"status: refusal without code or state", status, 200, `{"status":false,"msg":"Invalid mid"}`, false, 200, isInvalid, false},
		{"status: 404 without statusCode", status, 404, `{"status":false,"msg":"Not found"}`, false, 404, isNotFound, false},
		{"status: 500 with statusCode 200", status, 500, `{"status":false,"statusCode":200,"msg":"oops"}`, false, 500, isServer, false},
		{"status: 500 with statusCode 200 and PENDING", status, 500, `{"status":false,"statusCode":200,"txnStatus":"PENDING"}`, false, 500, isServer, false},
		{"status: 500 with statusCode 404", status, 500, `{"status":false,"statusCode":404}`, false, 404, isNotFound, false},
		{"status: txnStatus with an error code", status, 200, `{"status":false,"statusCode":400,"txnStatus":"PENDING"}`, false, 400, isInvalid, false},
		{"status: txnStatus with statusCode 404", status, 200, `{"status":false,"statusCode":404,"txnStatus":"PENDING"}`, true, 0, sentinels(0), false},
		{"status: 429 with statusCode 200", status, 429, `{"status":false,"statusCode":200}`, false, 429, isRateLimited, false},
		{"status: 299 is a 2xx", status, 299, `{"status":false,"statusCode":404}`, true, 0, sentinels(0), false},
		{"status: 300 is not", status, 300, `{"status":false,"statusCode":404}`, false, 300, sentinels(0), true},
		{"create: not-found shape is a refusal", create, 200, `{"status":false,"statusCode":404}`, false, 404, isNotFound, false},
		{"create: txnStatus is a refusal", create, 200, `{"status":false,"statusCode":200,"txnStatus":"PENDING"}`, false, 200, isInvalid, false},

		{"redirect", create, 303, `{"status":true}`, false, 303, sentinels(0), true},
		{"redirect 399", create, 399, ``, false, 399, sentinels(0), true},
		{"not the envelope", status, 404, `<html>404</html>`, false, 404, isNotFound, true},
		{"empty 200", create, 200, ``, false, 200, sentinels(0), true},
		{"HTML 502", create, 502, `<html>bad gateway</html>`, false, 502, isServer, true},

		// What the envelope reader once decided for every operation alike.
		{"success 299", create, 299, `{"status":true}`, true, 0, sentinels(0), false},
		{"success in a 500 is not one, even for the status check", status, 500, `{"status":true}`, false, 500, isServer, false},
		{"success in a 199 is not one", create, 199, `{"status":true}`, false, 199, isInvalid, false},
		{"missing auth is never the status check's answer", status, 404, `{"status":false,"message":"Authorization header is required"}`, false, 404, isUnauthorized, false},
		{"missing auth with status true", create, 200, `{"status":true,"message":"x"}`, false, 200, isUnauthorized, false},
		{"redirect 300", status, 300, `{"status":true}`, false, 300, sentinels(0), true},
		{"400 is no redirect", create, 400, `{"status":true}`, false, 400, isInvalid, false},
		{"a 2xx status true that names a txnStatus", status, 200, `{"status":true,"txnStatus":"FAIL"}`, true, 0, sentinels(0), false},
	}
	for _, tt := range tests {
		s, sh := keyedCreate, successOnly
		if tt.op == status {
			s, sh = readOnly, statusShapes
		}
		a := attemptOf(tt.http, tt.body)
		ans := judge(s, sh, &a, 1, false)
		if tt.answer {
			assert.True(t, ans.accepted, tt.name)
			assert.NotNil(t, ans.env, tt.name)
			continue
		}
		assert.False(t, ans.accepted, tt.name)
		assert.Equal(t, tt.code, ans.code, "%s: code", tt.name)
		assert.Equal(t, tt.kind, ans.matches&^(isUnexpected|isOutcomeUnknown), "%s: kind", tt.name)
		assert.Equal(t, tt.unreadable, ans.matches&isUnexpected != 0, "%s: unexpected", tt.name)
		assert.Equal(t, tt.unreadable, a.unreadable != "", "%s: unreadable %q", tt.name, a.unreadable)
		assert.Equal(t, tt.unreadable, ans.env == nil, "%s: envelope", tt.name)
	}
}

// attemptOf is the attempt the transport makes of an answer read whole.
func attemptOf(httpStatus int, body string) attempt {
	resp := &Response{HTTPStatus: httpStatus, Header: http.Header{}, Body: []byte(body)}
	env, err := wire.EnvelopeOf(httpStatus, resp.Body)
	a := attempt{resp: resp, env: env}
	if err != nil {
		a.unreadable = err.Error()
	}
	return a
}

// FuzzJudge: whatever the answer, judge never accepts an unreadable body,
// a redirect or the missing-Authorization answer, marks every unreadable
// body unexpected, never makes the status check's outcome unknown, and
// never panics.
func FuzzJudge(f *testing.F) {
	for _, s := range []string{`{"status":true}`, `{"status":false,"statusCode":404}`, `{"status":false,"message":"x"}`,
		`{"status":false,"statusCode":200,"txnStatus":"PENDING"}`, `<html>`, ``} {
		f.Add(200, []byte(s), true, uint8(0), uint8(1), false)
		f.Add(404, []byte(s), true, uint8(1), uint8(2), true)
		f.Add(303, []byte(s), false, uint8(2), uint8(1), false)
	}
	f.Fuzz(func(t *testing.T, status int, body []byte, statusCheck bool, s, n uint8, was bool) {
		sh := successOnly
		if statusCheck {
			sh = statusShapes
		}
		a := attemptOf(status, string(body))
		ans := judge(safety(s%3), sh, &a, int(n%5)+1, was)
		switch {
		case ans.accepted && (a.env == nil || status >= 300 && status < 400 || a.env.MissingAuth()):
			t.Fatalf("judge accepted %d %q", status, body)
		case !ans.accepted && a.env == nil && ans.matches&isUnexpected == 0:
			t.Fatalf("judge: unreadable %d %q is not unexpected", status, body)
		case safety(s%3) == readOnly && ans.outcomeUnknown:
			t.Fatalf("judge: a read's outcome unknown after %d %q", status, body)
		}
	})
}

// TestAttemptErrorParts: the error attemptError makes of judge's answer:
// its statuses, message and detail, an unreadable body quoted unless it is
// empty or a redirect's, and a 409 after the first attempt of a create
// made outcome unknown.
func TestAttemptErrorParts(t *testing.T) {
	t.Parallel()
	f := redact.New("pk", "sk")
	tests := []struct {
		name       string
		s          safety
		a          attempt
		n          int
		http, code int
		message    string
		detail     string
		is, isNot  []error
	}{
		{name: "redirect 300 with a body", s: readOnly, a: attemptOf(300, `{"status":true}`), n: 1, http: 300,
			detail: "redirect not followed", is: []error{ErrUnexpectedResponse}},
		{name: "redirect 399 with a body", s: readOnly, a: attemptOf(399, `x`), n: 1, http: 399,
			detail: "redirect not followed", is: []error{ErrUnexpectedResponse}},
		{name: "HTML in a 299", s: readOnly, a: attemptOf(299, `<html>`), n: 1, http: 299,
			detail: `body is not a JSON object: body "<html>"`, is: []error{ErrUnexpectedResponse}},
		{name: "HTML in a 400", s: readOnly, a: attemptOf(400, `<html>`), n: 1, http: 400,
			detail: `body is not a JSON object: body "<html>"`, is: []error{ErrUnexpectedResponse, ErrInvalidRequest}},
		{name: "empty 200", s: readOnly, a: attemptOf(200, ``), n: 1, http: 200,
			detail: "empty body", is: []error{ErrUnexpectedResponse}},
		{name: "refusal without a code", s: readOnly, a: attemptOf(200, `{"status":false,"msg":"m"}`), n: 1, http: 200,
			message: "m", detail: "the service refused the call", is: []error{ErrInvalidRequest}},
		{name: "refusal with a code", s: readOnly, a: attemptOf(200, `{"status":false,"statusCode":400,"msg":"m"}`), n: 1, http: 200, code: 400,
			message: "m", is: []error{ErrInvalidRequest}},
		{name: "duplicate on the first attempt", s: keyedCreate, a: attemptOf(409, `{"status":false,"statusCode":409}`), n: 1, http: 409, code: 409,
			is: []error{ErrDuplicateOrderID}, isNot: []error{ErrOutcomeUnknown}},
		{name: "duplicate on a later attempt", s: keyedCreate, a: attemptOf(409, `{"status":false,"statusCode":409}`), n: 2, http: 409, code: 409,
			detail: "the order id exists, perhaps from an earlier attempt of this call; check its status",
			is:     []error{ErrOutcomeUnknown}, isNot: []error{ErrDuplicateOrderID}},
		{name: "a body that could not be read", s: keyedCreate, n: 1, http: 200,
			a:      attempt{resp: &Response{HTTPStatus: 200, Header: http.Header{}}, err: errors.New("read: connection reset")},
			detail: "reading the body", is: []error{ErrOutcomeUnknown}, isNot: []error{ErrUnexpectedResponse}},
	}
	for _, tt := range tests {
		ans := judge(tt.s, successOnly, &tt.a, tt.n, false)
		require.False(t, ans.accepted, tt.name)
		e := attemptError("op", "o-1", &ans, f)
		assert.Equal(t, tt.http, e.HTTPStatus, "%s: HTTPStatus", tt.name)
		assert.Equal(t, tt.code, e.StatusCode, "%s: StatusCode", tt.name)
		assert.Equal(t, tt.message, e.Message, "%s: Message", tt.name)
		assert.Equal(t, tt.detail, e.detail, "%s: detail", tt.name)
		assert.Same(t, tt.a.resp, e.Response, "%s: Response", tt.name)
		assert.Equal(t, tt.a.err, e.cause, "%s: cause", tt.name)
		for _, s := range tt.is {
			assert.ErrorIs(t, e, s, tt.name)
		}
		for _, s := range tt.isNot {
			assert.NotErrorIs(t, e, s, tt.name)
		}
	}
}
