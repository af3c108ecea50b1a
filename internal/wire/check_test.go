package wire

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheck: what Check decides for every operation alike; what each
// status means is the root package's table (TestAnswers there).
func TestCheck(t *testing.T) {
	t.Parallel()
	yes := func(*Envelope, int) bool { return true }
	tests := []struct {
		name       string
		http       int
		body       string
		accept     Accept
		answer     bool
		unreadable string
	}{
		{"success", 200, `{"status":true,"statusCode":200,"data":{}}`, nil, true, ""},
		{"success 299", 299, `{"status":true}`, nil, true, ""},
		{"success in a 500 is not one", 500, `{"status":true}`, yes, false, ""},
		{"success in a 199 is not one", 199, `{"status":true}`, nil, false, ""},
		{"refusal", 200, `{"status":false,"statusCode":409}`, nil, false, ""},
		{"refusal accepted", 200, `{"status":false,"statusCode":404}`, yes, true, ""},
		{"missing auth is never accepted", 200, `{"status":false,"message":"Authorization header is required"}`, yes, false, ""},
		{"missing auth with status true", 200, `{"status":true,"message":"x"}`, nil, false, ""},
		{"redirect", 303, `{"status":true}`, yes, false, "redirect not followed"},
		{"redirect 300", 300, `{"status":true}`, yes, false, "redirect not followed"},
		{"redirect 399", 399, ``, nil, false, "redirect not followed"},
		{"400 is no redirect", 400, `{"status":true}`, nil, false, ""},
		{"not the envelope", 404, `<html>404</html>`, yes, false, "body is not a JSON object"},
		{"empty 200", 200, ``, nil, false, "empty body"},
	}
	for _, tt := range tests {
		env, ok, err := Check(tt.http, []byte(tt.body), tt.accept)
		assert.Equal(t, tt.answer, ok, tt.name)
		if tt.unreadable != "" {
			assert.EqualError(t, err, tt.unreadable, tt.name)
			assert.Nil(t, env, tt.name)
			continue
		}
		assert.NoError(t, err, tt.name)
		assert.NotNil(t, env, tt.name)
	}
	var seen int
	_, _, _ = Check(200, []byte(`{"status":false}`), func(_ *Envelope, status int) bool { seen = status; return false })
	assert.Equal(t, 200, seen, "accept sees the HTTP status")
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

func TestCheckCarriesTheRefusal(t *testing.T) {
	t.Parallel()
	env, ok, err := Check(200, []byte(`{"status":false,"statusCode":"409","msg":"Order ID already exists"}`), nil)
	require.NoError(t, err)
	require.False(t, ok)
	assert.Equal(t, 409, env.StatusCode)
	assert.Equal(t, "Order ID already exists", env.Msg)
	env, ok, err = Check(401, []byte(`{"status":false,"message":"Authorization header is required"}`), nil)
	require.NoError(t, err)
	require.False(t, ok)
	assert.Equal(t, 0, env.StatusCode)
	assert.Equal(t, "Authorization header is required", env.Msg)
}

// FuzzCheck: any answer is an envelope or unreadable, never both nor
// neither, never accepted when unreadable or a redirect, and never a panic.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"status":true}`, `{"status":false,"statusCode":404}`, `{"status":false,"message":"x"}`,
		`{"status":false,"statusCode":200,"txnStatus":"PENDING"}`, `<html>`, ``} {
		f.Add(true, 200, []byte(s))
		f.Add(false, 500, []byte(s))
	}
	f.Fuzz(func(t *testing.T, acceptAll bool, status int, body []byte) {
		var accept Accept
		if acceptAll {
			accept = func(*Envelope, int) bool { return true }
		}
		env, ok, err := Check(status, body, accept)
		if (env == nil) == (err == nil) {
			t.Fatalf("Check(%d, %q) = %v, %v, %v", status, body, env, ok, err)
		}
		if ok && (err != nil || status >= 300 && status < 400) {
			t.Fatalf("Check(%d, %q) accepted an unreadable answer or a redirect", status, body)
		}
	})
}
