package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	upicollect "github.com/upicollect/upicollect-go"
)

// printJSON writes v as one line of JSON on stdout. HTML characters stay
// as they are: links carry '&'.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

type errorJSON struct {
	Error errorBody `json:"error"`
}

type errorBody struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

func (a *app) printErrorJSON(kind string, err error) {
	_ = a.printJSON(errorJSON{errorBody{Kind: kind, Message: errorMessage(err)}})
}

// errorMessage is err's text without the SDK's "upicollect: " prefix, which
// the command's own output already says.
func errorMessage(err error) string {
	return strings.TrimPrefix(err.Error(), "upicollect: ")
}

// humanError is errorMessage for a person: a validation error lists one
// problem a line.
func humanError(err error) string {
	var ve *upicollect.ValidationError
	if !errors.As(err, &ve) || len(ve.Fields) == 0 {
		return errorMessage(err)
	}
	var b strings.Builder
	b.WriteString("invalid parameters:")
	for _, f := range ve.Fields {
		b.WriteString("\n  ")
		b.WriteString(f.Error())
	}
	return b.String()
}

// field is one line of a human summary; empty values are left out.
type field struct{ name, value string }

// printFields writes a short aligned summary on stdout.
func (a *app) printFields(fields ...field) error {
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	for _, f := range fields {
		if f.value != "" {
			fmt.Fprintf(tw, "%s\t%s\n", f.name, f.value)
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
