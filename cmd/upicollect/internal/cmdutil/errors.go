package cmdutil

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
)

// ErrorJSON is the --json form of a failure: {"error":{"kind":…,"message":…}}.
type ErrorJSON struct {
	Error ErrorBody `json:"error"`
}

// ErrorBody is the kind and message of a failure.
type ErrorBody struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// paramFlags names the flag that sets each parameter the SDK validates,
// by the parameter's wire name, so that an error says what to change on
// the command line.
var paramFlags = map[string]string{
	"amount":          "amount",
	"order_id":        "order-id",
	"redirect_url":    "redirect-url",
	"vpa":             "vpa",
	"note":            "note",
	"customer_name":   "name",
	"customer_email":  "email",
	"customer_mobile": "mobile",
}

// FlagName is how cmd's user sets the parameter field: its flag
// ("--mobile"), the ORDER_ID argument of a command that takes one, or the
// field's own name when cmd has neither.
func FlagName(cmd *cobra.Command, field string) string {
	if name, ok := paramFlags[field]; ok && cmd != nil && cmd.Flags().Lookup(name) != nil {
		return "--" + name
	}
	if field == "order_id" {
		return "ORDER_ID"
	}
	return field
}

// FieldProblems is each problem of ve as cmd's user reads it: the flag
// or argument to change, and what is wrong with it.
func FieldProblems(cmd *cobra.Command, ve *upicollect.ValidationError) []string {
	parts := make([]string, len(ve.Fields))
	for i, f := range ve.Fields {
		parts[i] = FlagName(cmd, f.Field) + ": " + f.Problem
	}
	return parts
}

// sdkPrefix starts the text of every error of the SDK's own.
const sdkPrefix = "upicollect: "

// ErrorMessage is err's text without the SDK's "upicollect: " prefix,
// which the command's own output already says. A validation error is
// written from its fields and names cmd's flags (--mobile), not the
// service's field names.
func ErrorMessage(cmd *cobra.Command, err error) string {
	var ve *upicollect.ValidationError
	if errors.As(err, &ve) && len(ve.Fields) > 0 {
		return ve.Op + ": invalid parameters: " + strings.Join(FieldProblems(cmd, ve), "; ")
	}
	return strings.TrimPrefix(err.Error(), sdkPrefix)
}

// HumanError is msg, ErrorMessage's text, for a person on a terminal:
// escaped (see iostreams.TerminalSafe), and a validation error lists one
// problem a line.
func HumanError(cmd *cobra.Command, err error, msg string) string {
	var ve *upicollect.ValidationError
	if !errors.As(err, &ve) || len(ve.Fields) == 0 {
		return iostreams.TerminalSafe(msg)
	}
	var b strings.Builder
	b.WriteString("invalid parameters:")
	for _, p := range FieldProblems(cmd, ve) {
		b.WriteString("\n  ")
		b.WriteString(iostreams.TerminalSafe(p))
	}
	return b.String()
}
