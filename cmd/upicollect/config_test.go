package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/sandbox"
)

// TestSecretFile: --secret-file reads the first line of a small file, warns
// when others may read it, and refuses a large one without reading it
// whole.
func TestSecretFile(t *testing.T) {
	s := sandbox.Start(t)
	env := sandboxEnv(s)[:3]
	secret := s.Credentials().SecretKey
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), mode))
		require.NoError(t, os.Chmod(p, mode)) // whatever the umask
		return p
	}
	private := write("private", secret+"\n", 0o600)
	shared := write("shared", secret+"\n", 0o644)
	large := write("large", secret+"\n"+strings.Repeat("x", maxSecretFile), 0o600)

	r := cli(t, env, "", "status", "x", "--secret-file", private)
	assert.Equal(t, exitOK, r.code, r.output())
	assert.Empty(t, r.stderr, "no warning for a private file")

	r = cli(t, env, "", "status", "x", "--secret-file", shared)
	assert.Equal(t, exitOK, r.code, r.output())
	assert.Contains(t, r.stderr, "upicollect: warning: "+shared+" can be read by others (mode 0644); chmod 600 "+shared)
	assert.NotContains(t, r.output(), secret)

	r = cli(t, env, "", "status", "x", "--secret-file", large)
	assert.Equal(t, exitUsage, r.code, r.output())
	assert.Contains(t, r.stderr, "larger than 4096 bytes")
	assert.NotContains(t, r.output(), secret)

	r = cli(t, env, "", "status", "x", "--secret-file", dir)
	assert.Equal(t, exitUsage, r.code, r.output())
	assert.Contains(t, r.stderr, "is not a file")
}

// TestBaseURLErrors: a bad base URL is one error, in the CLI's words.
func TestBaseURLErrors(t *testing.T) {
	creds := []string{envMID + "=m", envPublicKey + "=pk", envSecretKey + "=sk"}
	tests := []struct{ base, want string }{
		{"https://api.example.com/v1/payments", "base URL (--base-url or UPICOLLECT_BASE_URL): the base URL should not include the API path"},
		{"ftp://x", "base URL (--base-url or UPICOLLECT_BASE_URL): scheme must be http or https"},
		{"http://api.example.com", `base URL "http://api.example.com": https is required for a non-loopback host`},
	}
	for _, tt := range tests {
		r := cli(t, append([]string{envBaseURL + "=" + tt.base}, creds...), "", "status", "x")
		assert.Equal(t, exitUsage, r.code, r.output())
		assert.Contains(t, r.stderr, "upicollect: "+tt.want)
		assert.Equal(t, 1, strings.Count(r.stderr, "upicollect:"), "one error: %s", r.stderr)
		for _, never := range []string{"no base URL", "WithBaseURL", "WithInsecureHTTP"} {
			assert.NotContains(t, r.stderr, never, "names nothing a CLI user can pass")
		}
	}
}

// TestValidationNamesFlags: a validation error names the flag to change,
// on a line each for a person, in one message with --json.
func TestValidationNamesFlags(t *testing.T) {
	env := []string{envBaseURL + "=http://127.0.0.1:1", envMID + "=m", envPublicKey + "=pk", envSecretKey + "=sk"}
	r := cli(t, env, "", "intent", "--amount", "1", "--mobile", "12", "--email", "nope", "--note", "n", "--name", "N",
		"--redirect-url", "https://shop.example/r", "--order-id", "bad id")
	assert.Equal(t, exitUsage, r.code, r.output())
	assert.Contains(t, r.stderr, "upicollect: invalid parameters:\n  --order-id: ")
	assert.Contains(t, r.stderr, "\n  --email: ")
	assert.Contains(t, r.stderr, "\n  --mobile: ")
	for _, wire := range []string{"customer_mobile", "customer_email", "order_id"} {
		assert.NotContains(t, r.stderr, wire)
	}
	r = cli(t, env, "", "status", "bad id", "--json")
	assert.Equal(t, exitUsage, r.code, r.output())
	assert.Contains(t, r.stdout, "invalid parameters: ORDER_ID: ", "status takes the order id as its argument")
}
