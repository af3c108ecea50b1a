package wire

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEnvelopeOf: the envelope of an answer, or why it has none. What an
// envelope means (an answer, a refusal, its code) is the root package's
// judge to say (TestAnswers there, which also holds the acceptance rows
// this table had).
func TestEnvelopeOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		http       int
		body       string
		unreadable string
	}{
		{"success", 200, `{"status":true,"statusCode":200,"data":{}}`, ""},
		{"success 299", 299, `{"status":true}`, ""},
		{"success in a 500", 500, `{"status":true}`, ""},
		{"success in a 199", 199, `{"status":true}`, ""},
		{"refusal", 200, `{"status":false,"statusCode":409}`, ""},
		{"missing auth", 200, `{"status":false,"message":"Authorization header is required"}`, ""},
		{"redirect", 303, `{"status":true}`, "redirect not followed"},
		{"redirect 300", 300, `{"status":true}`, "redirect not followed"},
		{"redirect 399", 399, ``, "redirect not followed"},
		{"400 is no redirect", 400, `{"status":true}`, ""},
		{"not the envelope", 404, `<html>404</html>`, "body is not a JSON object"},
		{"empty 200", 200, ``, "empty body"},
	}
	for _, tt := range tests {
		env, err := EnvelopeOf(tt.http, []byte(tt.body))
		if tt.unreadable != "" {
			assert.EqualError(t, err, tt.unreadable, tt.name)
			assert.Nil(t, env, tt.name)
			continue
		}
		assert.NoError(t, err, tt.name)
		assert.NotNil(t, env, tt.name)
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

func TestEnvelopeOfCarriesTheRefusal(t *testing.T) {
	t.Parallel()
	env, err := EnvelopeOf(200, []byte(`{"status":false,"statusCode":"409","msg":"Order ID already exists"}`))
	require.NoError(t, err)
	assert.Equal(t, 409, env.StatusCode)
	assert.Equal(t, "Order ID already exists", env.Msg)
	env, err = EnvelopeOf(401, []byte(`{"status":false,"message":"Authorization header is required"}`))
	require.NoError(t, err)
	assert.Equal(t, 0, env.StatusCode)
	assert.Equal(t, "Authorization header is required", env.Msg)
}

// FuzzEnvelopeOf: any answer is an envelope or unreadable, never both nor
// neither, a redirect never an envelope, and never a panic. (That an
// unreadable answer or a redirect is never accepted is the root package's
// FuzzJudge.)
func FuzzEnvelopeOf(f *testing.F) {
	for _, s := range []string{`{"status":true}`, `{"status":false,"statusCode":404}`, `{"status":false,"message":"x"}`,
		`{"status":false,"statusCode":200,"txnStatus":"PENDING"}`, `<html>`, ``} {
		f.Add(200, []byte(s))
		f.Add(500, []byte(s))
		f.Add(302, []byte(s))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		env, err := EnvelopeOf(status, body)
		if (env == nil) == (err == nil) {
			t.Fatalf("EnvelopeOf(%d, %q) = %v, %v", status, body, env, err)
		}
		if env != nil && status >= 300 && status < 400 {
			t.Fatalf("EnvelopeOf(%d, %q) read a redirect's body", status, body)
		}
	})
}
