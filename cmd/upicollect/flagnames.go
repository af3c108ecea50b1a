package main

import "github.com/spf13/cobra"

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

// flagName is how cmd's user sets the parameter field: its flag
// ("--mobile"), the ORDER_ID argument of a command that takes one, or the
// field's own name when cmd has neither.
func flagName(cmd *cobra.Command, field string) string {
	if name, ok := paramFlags[field]; ok && cmd != nil && cmd.Flags().Lookup(name) != nil {
		return "--" + name
	}
	if field == "order_id" {
		return "ORDER_ID"
	}
	return field
}
