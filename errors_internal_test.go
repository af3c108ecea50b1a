package upicollect

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEscapeControls(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                        "",
		"plain":                   "plain",
		`"quoted" \ back`:         `"quoted" \ back`,
		"refusé €5 �":             "refusé €5 �",
		"a\r\nb":                  `a\r\nb`,
		"\x1b[31mred\x00\x7f":     `\x1b[31mred\x00\x7f`,
		"c1\u0085":                `c1\u0085`,
		"bad\xff\xfe utf8":        `bad\xff\xfe utf8`,
		"cut \xe2\x82":            `cut \xe2\x82`,
		"tab\tand\u2028separator": `tab\tand` + "\u2028separator",
	} {
		assert.Equal(t, want, escapeControls(in), "%q", in)
	}
}

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
	sc := newScrubber([]string{"Basic YS/i", "YS/i", "", "sec"})
	assert.Equal(t, scrubber{"Basic YS/i", `Basic YS\/i`, "YS/i", `YS\/i`, "sec"}, sc)
	assert.Equal(t, "x [REDACTED] y [REDACTED] z [REDACTED]", sc.scrub(`x Basic YS/i y YS/i z sec`))
	assert.Equal(t, "[REDACTED] [REDACTED]", sc.scrub(`Basic YS\/i YS\/i`))
	assert.Equal(t, "nothing here", sc.scrub("nothing here"))
	assert.Equal(t, `body "a [REDACTED] b"`, sc.snippet([]byte("a sec b")))
	assert.Equal(t, `body "clean"`, sc.snippet([]byte("clean")))
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
