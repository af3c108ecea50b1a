package iostreams

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf16"
	"unicode/utf8"
)

// PrintJSON writes v as one line of JSON on Out. HTML characters stay as
// they are: links carry '&'. What encoding/json leaves raw and a terminal
// would act on (DEL, C1 controls, bidi overrides) is written as a \u
// escape, which means the same to a JSON reader.
func (s *IOStreams) PrintJSON(v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	out := buf.String()
	if !SafeForTerminal(strings.TrimSuffix(out, "\n")) {
		out = jsonEscapeUnsafe(out)
	}
	_, err := io.WriteString(s.Out, out)
	return err
}

// jsonEscapeUnsafe writes every UnsafeRune of js, a JSON document that
// encoding/json wrote (valid UTF-8, C0 controls already escaped, so every
// such rune is inside a string), as a \u escape.
func jsonEscapeUnsafe(js string) string {
	var b strings.Builder
	for _, r := range js {
		if r != '\n' && UnsafeRune(r) {
			if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
				fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2) // beyond the BMP (tags, U+E0001): a surrogate pair
				continue
			}
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Field is one line of a human summary; empty values are left out.
type Field struct{ Name, Value string }

// PrintFields writes a short aligned summary on Out, every value escaped
// for the terminal (see TerminalSafe).
func (s *IOStreams) PrintFields(fields ...Field) error {
	tw := tabwriter.NewWriter(s.Out, 0, 0, 2, ' ', 0)
	for _, f := range fields {
		if f.Value != "" {
			fmt.Fprintf(tw, "%s\t%s\n", TerminalSafe(f.Name), TerminalSafe(f.Value))
		}
	}
	return tw.Flush()
}

// WriteLine writes s on w as one line, adding the line break it lacks.
func WriteLine(w io.Writer, s string) error {
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	_, err := io.WriteString(w, s)
	return err
}

// MultilineSafe is msg, an error of cobra's or pflag's own (an unknown
// command, a bad flag), for a terminal: its lines stay lines and a
// suggestion's leading tab stays, so that "Did you mean this?" reads as
// cobra wrote it, while each line is escaped as TerminalSafe does, since
// it may quote what the user typed. Trailing blank lines are dropped.
// Text from the service never goes through it.
func MultilineSafe(msg string) string {
	lines := strings.Split(strings.TrimRight(msg, "\n"), "\n")
	for i, l := range lines {
		rest := strings.TrimLeft(l, "\t")
		lines[i] = l[:len(l)-len(rest)] + TerminalSafe(rest)
	}
	return strings.Join(lines, "\n")
}

// OneLine is msg, a command's failure, as one line: drivers write errors
// over many (pgx puts each connection attempt on a tab-indented line of
// its own, twice when it retries without TLS; errors.Join joins with line
// breaks), which TerminalSafe would show as \x0a\x09 escapes. Each line
// is trimmed of its spaces and tabs, an empty line or one that repeats the
// line before it is dropped, and the rest are joined with "; ", or with a
// space after a line that ends with ":" (it introduces the next). Other
// control characters stay for TerminalSafe to escape.
func OneLine(msg string) string {
	if !strings.ContainsAny(msg, "\n") {
		return msg
	}
	var b strings.Builder
	prev := ""
	for _, l := range strings.Split(msg, "\n") {
		l = strings.Trim(strings.TrimSuffix(l, "\r"), " \t")
		if l == "" || l == prev {
			continue
		}
		switch {
		case b.Len() == 0:
		case strings.HasSuffix(prev, ":"):
			b.WriteString(" ")
		default:
			b.WriteString("; ")
		}
		b.WriteString(l)
		prev = l
	}
	return b.String()
}
