package iostreams

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	upicollect "github.com/upicollect/upicollect-go"
)

// IsTerminal reports whether w is a character device, which is what a
// terminal is. It asks the file's mode instead of the terminal driver so
// that the root module needs no terminal package: a character device that
// is not a terminal (/dev/null) is the one case it gets wrong, and there
// the spinner only writes into the void.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// TerminalSafe returns s with every character that a terminal would act on
// instead of showing written as an escape: C0 and C1 controls (ESC, CSI,
// OSC, BEL, CR, newline ...), DEL, the bidirectional overrides and
// isolates and the other format characters that reorder or hide what is
// shown, and bytes that are not UTF-8. Text
// from the service (order ids, UTRs, messages, links) goes through it
// before it reaches a terminal, so that an answer can neither move the
// cursor, retitle the window, hide text nor plant a link.
func TerminalSafe(s string) string {
	if SafeForTerminal(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r < 0x80 && UnsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case UnsafeRune(r) && r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		case UnsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// SafeForTerminal reports whether s is valid UTF-8 without a character
// that UnsafeRune refuses.
func SafeForTerminal(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, UnsafeRune)
}

// UnsafeRune reports whether r must not reach a terminal as it is: the
// SDK's one definition (upicollect.SafeToShow), controls and format
// characters.
func UnsafeRune(r rune) bool { return !upicollect.SafeToShow(r) }
