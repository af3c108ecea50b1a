package iostreams

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
)

func TestRedactWriter(t *testing.T) {
	var buf bytes.Buffer
	s := &Secrets{}
	w := &redactWriter{w: &buf, secrets: s}
	_, err := w.Write([]byte("before any credentials sk_live_abc\n"))
	require.NoError(t, err)
	s.Set(upicollect.Credentials{MID: "m", PublicKey: "pk_1", SecretKey: "sk_live_abc"})
	msg := "key sk_live_abc auth " + basicPair("pk_1", "sk_live_abc") + " end"
	n, err := w.Write([]byte(msg))
	require.NoError(t, err)
	assert.Equal(t, len(msg), n, "reports the caller's bytes as written")
	assert.Equal(t, "before any credentials sk_live_abc\nkey [REDACTED] auth [REDACTED] end", buf.String())

	_, err = (&redactWriter{w: failWriter{}, secrets: s}).Write([]byte("x"))
	assert.Error(t, err)
}

func TestCanDraw(t *testing.T) {
	env := func(term string) func(string) string {
		return func(k string) string {
			if k == "TERM" {
				return term
			}
			return ""
		}
	}
	tests := []struct {
		name      string
		json, tty bool
		term      string
		want      bool
	}{
		{"terminal", false, true, "xterm-256color", true},
		{"terminal without TERM", false, true, "", true},
		{"json", true, true, "xterm", false},
		{"pipe", false, false, "xterm", false},
		{"dumb terminal", false, true, "dumb", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, canDraw(tt.json, tt.tty, env(tt.term)), tt.name)
	}
}

func TestIsTerminal(t *testing.T) {
	assert.False(t, IsTerminal(&bytes.Buffer{}), "not a file")
	f, err := os.CreateTemp(t.TempDir(), "out")
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, IsTerminal(f), "a regular file")
}

func TestTerminalSafe(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"ORD-1 ₹499.00 नमस्ते", "ORD-1 ₹499.00 नमस्ते"},
		{"\x1b[31mred", `\x1b[31mred`},
		{"a\nb\tc\rd\x7f", `a\x0ab\x09c\x0dd\x7f`},
		{"\u009b1m\u0085", `\u009b1m\u0085`},
		{"\u202eabc\u2066\u200f\u061c", `\u202eabc\u2066\u200f\u061c`},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
		{"\ufffd stays", "\ufffd stays"},
		{"zero\u200bwidth\u200d\ufeff", `zero\u200bwidth\u200d\ufeff`},
		{"tag\U000e0001", `tag\U000e0001`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, TerminalSafe(tt.in), "%q", tt.in)
		assert.Empty(t, rawControl(TerminalSafe(tt.in)))
	}
}

// TestJSONEscapeFormatCharacters: format characters leave --json output as \u
// escapes, a surrogate pair beyond the BMP, and the document still reads
// back as the same text.
func TestJSONEscapeFormatCharacters(t *testing.T) {
	for in, want := range map[string]string{
		"\"a\u202eb\"\n":    `"a\u202eb"` + "\n",
		"\"tag\U000e0001\"": `"tag\udb40\udc01"`,
		"\"ok ₹\"":          `"ok ₹"`,
	} {
		got := jsonEscapeUnsafe(in)
		assert.Equal(t, want, got, "%q", in)
		var back, orig string
		require.NoError(t, json.Unmarshal([]byte(got), &back))
		require.NoError(t, json.Unmarshal([]byte(in), &orig))
		assert.Equal(t, orig, back)
	}
}

func FuzzTerminalSafe(f *testing.F) {
	for _, s := range []string{"", hostile, "\xff", "plain"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := TerminalSafe(s)
		assert.True(t, SafeForTerminal(got), "%q -> %q", s, got)
		if SafeForTerminal(s) {
			assert.Equal(t, s, got, "safe text is left alone")
		}
	})
}

func TestJSONEscapeUnsafe(t *testing.T) {
	var out strings.Builder
	ios := New(strings.NewReader(""), &out, &out, func(string) string { return "" })
	require.NoError(t, ios.PrintJSON(map[string]string{"m": hostile + "\x7f"}))
	assert.Empty(t, rawControl(strings.TrimSuffix(out.String(), "\n")))
	var back map[string]string
	require.NoError(t, json.Unmarshal([]byte(out.String()), &back))
	assert.Equal(t, hostile+"\x7f", back["m"], "the escapes mean the same to a JSON reader")
}

// hostile is text a compromised or buggy service might send: a CSI that
// clears the screen, an OSC that retitles the window and plants a
// hyperlink, a C1 CSI, a bidi override and a bare carriage return.
const hostile = "\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\\u009b31m\u202eRTL\rEND"

// rawControl reports the first raw control character in s that a terminal
// would act on, or "" when there is none.
func rawControl(s string) string {
	for _, r := range s {
		if r != '\n' && r != '\t' && UnsafeRune(r) {
			return strings.ToUpper(string(r))
		}
	}
	return ""
}

// basicPair is the pair as Basic authentication encodes it.
func basicPair(public, secret string) string {
	return base64.StdEncoding.EncodeToString([]byte(public + ":" + secret))
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

// TestOneLine: a failure over many lines is one line: pgx's attempts
// (tab-indented, the same one twice when it retries without TLS),
// errors.Join's parts, CRLF breaks; other control characters stay for
// TerminalSafe.
func TestOneLine(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"one line", "dial tcp: connection refused", "dial tcp: connection refused"},
		{"empty", "", ""},
		{"pgx, retried without TLS", "failed to connect to `user=shop database=shop`:\n\t127.0.0.1:5432 (localhost): dial error: refused\n\t127.0.0.1:5432 (localhost): dial error: refused",
			"failed to connect to `user=shop database=shop`: 127.0.0.1:5432 (localhost): dial error: refused"},
		{"pgx, two hosts", "failed to connect:\n\t127.0.0.1:5432 (localhost): refused\n\t[::1]:5432 (localhost): refused",
			"failed to connect: 127.0.0.1:5432 (localhost): refused; [::1]:5432 (localhost): refused"},
		{"errors.Join", "sqlstore: order \"o-1\": database is locked\nsqlstore: order \"o-1\": recording the retry: database is locked",
			"sqlstore: order \"o-1\": database is locked; sqlstore: order \"o-1\": recording the retry: database is locked"},
		{"CRLF and blank lines", "first\r\n\r\n  second  \n\n", "first; second"},
		{"a repeat not in a row stays", "a\nb\na", "a; b; a"},
		{"other controls stay", "bell\x07\nesc\x1b[2J", "bell\x07; esc\x1b[2J"},
		{"tabs within a line stay", "a\tb\nc", "a\tb; c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := OneLine(tt.in)
			assert.Equal(t, tt.want, got)
			assert.NotContains(t, got, "\n")
		})
	}
	assert.Equal(t, `x\x07; y`, TerminalSafe(OneLine("x\x07\n\ty")), "what TerminalSafe then escapes")
}
