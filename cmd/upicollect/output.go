package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
)

// printJSON writes v as one line of JSON on stdout. HTML characters stay
// as they are: links carry '&'. What encoding/json leaves raw and a
// terminal would act on (DEL, C1 controls, bidi overrides) is written as a
// \u escape, which means the same to a JSON reader.
func (a *app) printJSON(v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	out := buf.String()
	if !safeForTerminal(strings.TrimSuffix(out, "\n")) {
		out = jsonEscapeUnsafe(out)
	}
	_, err := io.WriteString(a.stdout, out)
	return err
}

// jsonEscapeUnsafe writes every unsafeRune of js, a JSON document that
// encoding/json wrote (valid UTF-8, C0 controls already escaped, so every
// such rune is inside a string), as a \u escape.
func jsonEscapeUnsafe(js string) string {
	var b strings.Builder
	for _, r := range js {
		if r != '\n' && unsafeRune(r) {
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

type errorJSON struct {
	Error errorBody `json:"error"`
}

type errorBody struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// errorMessage is err's text without the SDK's "upicollect: " prefix, which
// the command's own output already says. A validation error names cmd's
// flags (--mobile), not the service's field names.
func errorMessage(cmd *cobra.Command, err error) string {
	var ve *upicollect.ValidationError
	if errors.As(err, &ve) && len(ve.Fields) > 0 {
		parts := make([]string, len(ve.Fields))
		for i, f := range ve.Fields {
			parts[i] = flagName(cmd, f.Field) + ": " + f.Problem
		}
		return ve.Op + ": invalid parameters: " + strings.Join(parts, "; ")
	}
	return strings.TrimPrefix(err.Error(), "upicollect: ")
}

// humanError is msg, errorMessage's text, for a person on a terminal:
// escaped (see terminalSafe), and a validation error lists one problem a
// line.
func humanError(cmd *cobra.Command, err error, msg string) string {
	var ve *upicollect.ValidationError
	if !errors.As(err, &ve) || len(ve.Fields) == 0 {
		return terminalSafe(msg)
	}
	var b strings.Builder
	b.WriteString("invalid parameters:")
	for _, f := range ve.Fields {
		b.WriteString("\n  ")
		b.WriteString(terminalSafe(flagName(cmd, f.Field) + ": " + f.Problem))
	}
	return b.String()
}

// multilineSafe is msg, an error of cobra's or pflag's own (an unknown
// command, a bad flag), for a terminal: its lines stay lines and a
// suggestion's leading tab stays, so that "Did you mean this?" reads as
// cobra wrote it, while each line is escaped as terminalSafe does, since
// it may quote what the user typed. Trailing blank lines are dropped.
// Text from the service never goes through it.
func multilineSafe(msg string) string {
	lines := strings.Split(strings.TrimRight(msg, "\n"), "\n")
	for i, l := range lines {
		rest := strings.TrimLeft(l, "\t")
		lines[i] = l[:len(l)-len(rest)] + terminalSafe(rest)
	}
	return strings.Join(lines, "\n")
}

// field is one line of a human summary; empty values are left out.
type field struct{ name, value string }

// printFields writes a short aligned summary on stdout, every value
// escaped for the terminal (see terminalSafe).
func (a *app) printFields(fields ...field) error {
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	for _, f := range fields {
		if f.value != "" {
			fmt.Fprintf(tw, "%s\t%s\n", terminalSafe(f.name), terminalSafe(f.value))
		}
	}
	return tw.Flush()
}

// rupees formats m for humans: "₹499.00".
func rupees(m upicollect.Money) string {
	if m == 0 {
		return ""
	}
	return "₹" + m.String()
}

// optAmount is m as the JSON amount: "499.00", or null when the answer had none.
func optAmount(m upicollect.Money) *string {
	if m == 0 {
		return nil
	}
	s := m.String()
	return &s
}

// optTime is t in RFC 3339, or null when zero.
func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.Format(time.RFC3339)
	return &s
}

func writeLine(w io.Writer, s string) error {
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	_, err := io.WriteString(w, s)
	return err
}
