package upicollect

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/internal/redact"
)

func TestTruncate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		n    int
		want string
		cut  bool
	}{
		{"abc", 3, "abc", false},
		{"abcd", 3, "abc", true},
		{"ab€", 3, "ab", true},
		{"ab€", 5, "ab€", false},
		{"€", 1, "", true},
		{"", 0, "", false},
	} {
		got, cut := truncate(tt.in, tt.n)
		assert.Equal(t, tt.want, got, "%q/%d", tt.in, tt.n)
		assert.Equal(t, tt.cut, cut, "%q/%d", tt.in, tt.n)
	}
}

func TestScrubber(t *testing.T) {
	t.Parallel()
	// A pair whose base64 holds a '/': "pk:se?" is cGs6c2U/.
	f := redact.New("pk", "se?")
	header := redact.BasicAuth("pk", "se?")
	pair := strings.TrimPrefix(header, "Basic ")
	require.Contains(t, pair, "/")
	esc := strings.ReplaceAll(pair, "/", `\/`)
	assert.Equal(t, "x [REDACTED] y [REDACTED] z [REDACTED]", f.Text("x "+header+" y "+pair+" z se?"))
	assert.Equal(t, "[REDACTED] [REDACTED]", f.Text("Basic "+esc+" "+esc))
	assert.Equal(t, "nothing here", f.Text("nothing here"))
	assert.Equal(t, `body "a [REDACTED] b"`, bodySnippet(f, []byte("a se? b")))
	assert.Equal(t, `body "clean"`, bodySnippet(f, []byte("clean")))
	assert.Equal(t, "a [REDACTED] b", message(f, "a se? b"))
}

func TestShortErr(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`Post "http://127.0.0.1:1/v1": dial tcp 127.0.0.1:1: connect: connection refused`: "connection refused",
		"plain":  "plain",
		": x":    "x",
		"a: b: ": "",
	} {
		assert.Equal(t, want, shortErr(errors.New(in)), in)
	}
}
