package upicollect

import "github.com/upicollect/upicollect-go/internal/text"

// SafeToShow reports whether r may be shown as it is where the SDK shows
// a service's text: it is neither a control character (C0, DEL, C1: ESC,
// CR, LF, ...), which can forge a log line or drive a terminal, nor a
// Unicode format character (category Cf: bidi overrides and isolates
// such as U+202E and U+2066-U+2069, zero-width spaces and joiners, ...),
// which can reorder or hide what is shown. APIError.Error escapes every
// other rune of the service's message, the sandbox's pages and the CLI do
// the same, and a program that prints the service's text itself can too.
func SafeToShow(r rune) bool { return !text.Unsafe(r) }
