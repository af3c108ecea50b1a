package cmdutil

import (
	"errors"
	"fmt"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	upicollect "github.com/upicollect/upicollect-go"
)

// createCmd is a command with the create flags and --order-id; statusCmd
// has none of them and takes ORDER_ID.
func createCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "request"}
	AddCreateFlags(cmd, &CreateFlags{})
	AddOrderIDFlag(cmd, new(string))
	cmd.Flags().String("vpa", "", "")
	return cmd
}

func TestFlagName(t *testing.T) {
	create, status := createCmd(), &cobra.Command{Use: "status"}
	tests := []struct {
		cmd   *cobra.Command
		field string
		want  string
	}{
		{create, "amount", "--amount"},
		{create, "order_id", "--order-id"},
		{create, "vpa", "--vpa"},
		{create, "note", "--note"},
		{create, "customer_name", "--name"},
		{create, "customer_email", "--email"},
		{create, "customer_mobile", "--mobile"},
		{create, "redirect_url", "redirect_url"}, // no such flag on this command
		{create, "mid", "mid"},
		{status, "order_id", "ORDER_ID"},
		{status, "amount", "amount"},
		{nil, "customer_mobile", "customer_mobile"},
		{nil, "order_id", "ORDER_ID"},
	}
	for _, tt := range tests {
		name := "nil"
		if tt.cmd != nil {
			name = tt.cmd.Name()
		}
		assert.Equal(t, tt.want, FlagName(tt.cmd, tt.field), "%s %s", name, tt.field)
	}
}

// TestErrorMessage: the SDK's prefix goes; a validation error names the
// command's flags.
func TestErrorMessage(t *testing.T) {
	ve := &upicollect.ValidationError{Op: "CreatePaymentRequest", Fields: []upicollect.FieldError{
		{Field: "amount", Problem: "must be at least 1.00"}, {Field: "customer_mobile", Problem: "must be 10 digits"},
	}}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"validation", ve, "CreatePaymentRequest: invalid parameters: --amount: must be at least 1.00; --mobile: must be 10 digits"},
		{"wrapped validation", fmt.Errorf("create: %w", ve), "CreatePaymentRequest: invalid parameters: --amount: must be at least 1.00; --mobile: must be 10 digits"},
		{"validation without fields", &upicollect.ValidationError{}, "invalid parameters: "},
		{"validation without fields, quoted op", &upicollect.ValidationError{Op: "a\nb"}, `"a\nb": invalid parameters: `},
		{"SDK error", fmt.Errorf("upicollect: %w", errors.New("server said no")), "server said no"},
		{"prefix once", errors.New("upicollect: upicollect: x"), "upicollect: x"},
		{"own error", errors.New("missing ORDER_ID"), "missing ORDER_ID"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ErrorMessage(createCmd(), tt.err), tt.name)
	}
}

// TestHumanError: one problem a line for a validation error, everything
// escaped for the terminal.
func TestHumanError(t *testing.T) {
	ve := &upicollect.ValidationError{Op: "CreatePaymentRequest", Fields: []upicollect.FieldError{
		{Field: "amount", Problem: "must be at least 1.00"}, {Field: "note", Problem: "has \x1b[2J in it"},
	}}
	assert.Equal(t, "invalid parameters:\n  --amount: must be at least 1.00\n  --note: has \\x1b[2J in it",
		HumanError(createCmd(), ve, ErrorMessage(createCmd(), ve)))
	assert.Equal(t, "invalid parameters:\n  ORDER_ID: is required",
		HumanError(&cobra.Command{Use: "status"}, &upicollect.ValidationError{Fields: []upicollect.FieldError{{Field: "order_id", Problem: "is required"}}}, "ignored"))
	assert.Equal(t, `refused\x0d\x1b[2J`, HumanError(nil, errors.New("x"), "refused\r\x1b[2J"))
	assert.Equal(t, `op: invalid parameters: \x07`, HumanError(nil, &upicollect.ValidationError{Op: "op"}, "op: invalid parameters: \a"),
		"a validation error without fields is its message")
}
