// Package text is the one definition of text that is safe to show: what
// the SDK's errors, the sandbox's pages and the CLI's terminal output may
// carry of a service's or a merchant's text as it is, and how the rest is
// escaped.
//
// A rune is unsafe when it is a control character (C0, DEL, C1: ESC, CSI,
// OSC, BEL, CR, LF, ...), which can forge a log line or drive a terminal,
// or a Unicode format character (category Cf: the bidi embeddings,
// overrides, isolates and marks U+202A-U+202E, U+2066-U+2069, U+200E,
// U+200F, U+061C, zero-width spaces and joiners, the byte order mark,
// ...), which can reorder or hide what is shown. Bytes that are not UTF-8
// are unsafe too.
package text

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Unsafe reports whether r must not be shown as it is: a control or a
// format character.
func Unsafe(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }

// Safe reports whether s is valid UTF-8 without an unsafe rune: whether
// Escape leaves it as it is.
func Safe(s string) bool { return utf8.ValidString(s) && !strings.ContainsFunc(s, Unsafe) }

// Escape returns s with every unsafe rune, and every byte that is not
// UTF-8, written as Go writes it in a quoted ASCII string (\r, \n, \x1b,
// \u0085, \u202e, \xff); everything else stays as it is, quotes and
// backslashes included. s itself when it is Safe.
func Escape(s string) string { return escape(s, "") }

// EscapeLaidOut is Escape for text laid out in lines, such as an HTML page:
// tabs, line feeds and carriage returns stay as they are.
func EscapeLaidOut(s string) string { return escape(s, "\t\n\r") }

// escape is Escape leaving the runes of keep as they are.
func escape(s, keep string) string {
	if Safe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for s != "" {
		r, size := utf8.DecodeRuneInString(s)
		if (Unsafe(r) && !strings.ContainsRune(keep, r)) || (r == utf8.RuneError && size == 1) {
			q := strconv.QuoteToASCII(s[:size])
			b.WriteString(q[1 : len(q)-1])
		} else {
			b.WriteString(s[:size])
		}
		s = s[size:]
	}
	return b.String()
}
