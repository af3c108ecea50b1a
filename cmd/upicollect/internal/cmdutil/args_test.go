package cmdutil

import (
	"context"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
)

// TestParseRupeesMessages: each refusal says what is wrong with the
// amount, in the command line's words.
func TestParseRupeesMessages(t *testing.T) {
	for in, want := range map[string]string{
		"x":                    "amount must be rupees, like 499 or 499.50",
		"1.":                   "amount must have one or two decimals after its point",
		"1.005":                "amount has more than two decimals (a fraction of a paisa)",
		"1000000001":           "amount too large",
		"99999999999999999999": "amount is too large",
	} {
		_, err := ParseRupees(in)
		require.Error(t, err, in)
		assert.Equal(t, want, err.Error(), in)
	}
}

func TestMoneyFlagUnbound(t *testing.T) {
	assert.Equal(t, "", MoneyFlag{}.String(), "a flag with no amount behind it")
	m := upicollect.Money(1)
	assert.Equal(t, "0.01", MoneyFlag{&m}.String())
}

func TestExactArgs(t *testing.T) {
	check := ExactArgs("ORDER_ID")
	tests := []struct {
		args []string
		err  string
	}{
		{nil, "missing ORDER_ID"},
		{[]string{}, "missing ORDER_ID"},
		{[]string{"ORD1"}, ""},
		{[]string{"ORD1", "ORD2"}, "one ORDER_ID expected, got 2 arguments"},
		{[]string{"a", "b", "c"}, "one ORDER_ID expected, got 3 arguments"},
	}
	for _, tt := range tests {
		err := check(nil, tt.args)
		if tt.err == "" {
			assert.NoError(t, err, "%q", tt.args)
			continue
		}
		require.Error(t, err, "%q", tt.args)
		assert.Equal(t, tt.err, err.Error())
		code, kind := Classify(context.Background(), err)
		assert.Equal(t, ExitUsage, code)
		assert.Equal(t, KindUsage, kind)
	}
}

func TestUnknownSubcommand(t *testing.T) {
	root := &cobra.Command{Use: "upicollect"}
	sb := &cobra.Command{Use: "sandbox", Args: UnknownSubcommand}
	for _, name := range []string{"advance", "pay", "control"} {
		sb.AddCommand(&cobra.Command{Use: name, Run: func(*cobra.Command, []string) {}})
	}
	root.AddCommand(sb)
	tests := []struct {
		args []string
		err  string
	}{
		{nil, ""},
		{[]string{"advanc"}, "unknown command \"advanc\" for \"upicollect sandbox\"\n\nDid you mean this?\n\tadvance\n"},
		{[]string{"pa", "x"}, "unknown command \"pa\" for \"upicollect sandbox\"\n\nDid you mean this?\n\tpay\n"},
		{[]string{"zzzzzz"}, "unknown command \"zzzzzz\" for \"upicollect sandbox\""},
	}
	for _, tt := range tests {
		err := UnknownSubcommand(sb, tt.args)
		if tt.err == "" {
			assert.NoError(t, err)
			continue
		}
		require.Error(t, err, "%q", tt.args)
		assert.Equal(t, tt.err, err.Error())
	}
}

// TestCreateFlags: the shared create flags fill CreateFlags, --amount
// exactly in paise.
func TestCreateFlags(t *testing.T) {
	cmd := &cobra.Command{Use: "request"}
	var cf CreateFlags
	var id string
	AddCreateFlags(cmd, &cf)
	AddOrderIDFlag(cmd, &id)
	require.NoError(t, cmd.ParseFlags([]string{"--amount", "499.50", "--note", "tea", "--name", "Asha", "--email", "a@example.com", "--mobile", "9876543210", "--order-id", "ORD1"}))
	assert.Equal(t, CreateFlags{Amount: 49950, Note: "tea", Customer: upicollect.Customer{Name: "Asha", Email: "a@example.com", Mobile: "9876543210"}}, cf)
	assert.Equal(t, "ORD1", id)
	assert.Equal(t, "RUPEES", cmd.Flags().Lookup("amount").Value.Type())
	err := cmd.ParseFlags([]string{"--amount", "4.999"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "amount has more than two decimals")
}
