package upicollect_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/upicollect/upicollect-go"
)

// TestRedactor: a Redactor hides the secret and the Authorization made from
// the pair, as text, bytes (JSON keeps its shape) and headers; text without
// them comes back as it was, and a nil Redactor or one without a secret
// finds nothing.
func TestRedactor(t *testing.T) {
	creds := upicollect.Credentials{MID: "M1", PublicKey: "pk_live", SecretKey: "sk_secret_42"}
	pair := base64.StdEncoding.EncodeToString([]byte("pk_live:sk_secret_42"))
	r := creds.Redactor()

	tests := []struct {
		name, in, want string
	}{
		{"secret", "key sk_secret_42 here", "key [REDACTED] here"},
		{"authorization", "Authorization: Basic " + pair, "Authorization: [REDACTED]"},
		{"percent-encoded pair", "a=" + base64.URLEncoding.EncodeToString([]byte("pk_live:sk_secret_42")), "a=[REDACTED]"},
		{"nothing to hide", "sk_secret_4 and pk_live", "sk_secret_4 and pk_live"},
		{"part of a longer token", "sk_secret_42x", "sk_secret_42x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, r.Text(tt.in))
			assert.Equal(t, tt.want, string(r.Bytes([]byte(tt.in))))
		})
	}

	assert.JSONEq(t, `{"note":"[REDACTED]","n":1}`, string(r.Bytes([]byte(`{"note":"sk_secret_42","n":1}`))))

	h := r.Header(http.Header{"Authorization": {"Basic " + pair}, "X-Note": {"sk_secret_42"}})
	assert.Equal(t, http.Header{"Authorization": {"Basic [REDACTED]"}, "X-Note": {"[REDACTED]"}}, h)

	var none *upicollect.Redactor
	assert.Equal(t, "sk_secret_42", none.Text("sk_secret_42"), "a nil Redactor finds nothing")
	assert.Equal(t, "sk_secret_42", upicollect.Credentials{PublicKey: "pk"}.Redactor().Text("sk_secret_42"), "no secret, nothing to hide")
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x"} {
		assert.NotContains(t, fmt.Sprintf(verb, r), "sk_secret", "a Redactor never prints what it searches for (%s)", verb)
		assert.NotContains(t, fmt.Sprintf(verb, *r), "sk_secret", "a Redactor never prints what it searches for (%s)", verb)
	}
}
