package text

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// TestEscape: controls, format characters and bytes that are not UTF-8 are
// escaped as Go quotes them; other text, quotes and backslashes included,
// is left as it is. (The table was the root package's TestEscapeControls.)
func TestEscape(t *testing.T) {
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
		"paid\u202edeifirev":      `paid\u202edeifirev`,
		"\u2066iso\u2069\u200e\u200f\u061c\u202a\u202d": `\u2066iso\u2069\u200e\u200f\u061c\u202a\u202d`,
		"zero\u200bwidth\u200d\ufeff\u00ad":             `zero\u200bwidth\u200d\ufeff\u00ad`,
		"नमस्ते ₹499.00":                                "नमस्ते ₹499.00",
	} {
		assert.Equal(t, want, Escape(in), "%q", in)
		assert.Equal(t, in == want, Safe(in), "Safe(%q)", in)
	}
}

// TestEscapeLaidOut: tabs, line feeds and carriage returns stay; every
// other unsafe rune is escaped as Escape escapes it.
func TestEscapeLaidOut(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"<p>\n\tline\r\n</p>":       "<p>\n\tline\r\n</p>",
		"<p>\u202eRTL\x1b[2J</p>\n": "<p>\\u202eRTL\\x1b[2J</p>\n",
		"\x00\v\f\xff":              `\x00\v\f\xff`,
	} {
		assert.Equal(t, want, EscapeLaidOut(in), "%q", in)
	}
}

func TestUnsafe(t *testing.T) {
	t.Parallel()
	for _, r := range []rune{0, '\t', '\n', 0x1b, 0x7f, 0x80, 0x9b, 0x9f, 0xad, 0x61c, 0x200b, 0x200d, 0x200e, 0x202a, 0x202e, 0x2066, 0x2069, 0xfeff} {
		assert.True(t, Unsafe(r), "%U", r)
	}
	for _, r := range []rune{' ', 'a', '~', 0xa0, 'é', '₹', 0x2028, 0x2029, 0xfffd, 'न', 0x1f600} {
		assert.False(t, Unsafe(r), "%U", r)
	}
}

// FuzzEscape: what Escape returns is safe, and safe text comes back as it
// was.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[2J\u202e", "\xff", "a\r\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Escape(s)
		if !Safe(got) || !utf8.ValidString(got) {
			t.Fatalf("Escape(%q) = %q, not safe", s, got)
		}
		if Safe(s) && got != s {
			t.Fatalf("Escape(%q) = %q, changed safe text", s, got)
		}
	})
}
