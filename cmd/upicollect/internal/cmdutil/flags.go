package cmdutil

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
)

// MoneyFlag is a --amount in rupees ("499", "499.00", "1.08"), read
// exactly into paise: never through a float, never rounded.
type MoneyFlag struct{ M *upicollect.Money }

// Type is the flag's type in help: RUPEES.
func (f MoneyFlag) Type() string { return "RUPEES" }

// String is the amount as rupee text, "" when unset.
func (f MoneyFlag) String() string {
	if f.M == nil || *f.M == 0 {
		return ""
	}
	return f.M.String()
}

// Set reads s as rupees (see ParseRupees).
func (f MoneyFlag) Set(s string) error {
	m, err := ParseRupees(s)
	if err != nil {
		return err
	}
	*f.M = m
	return nil
}

// maxRupees bounds --amount far above any real payment and far below
// overflow.
const maxRupees = 1_000_000_000

// ParseRupees reads "499", "499.5" or "499.50" into paise with the SDK's
// one reading of rupee text (upicollect.ParseRupees), up to maxRupees.
func ParseRupees(s string) (upicollect.Money, error) {
	m, err := upicollect.ParseRupees(s)
	var ve *upicollect.ValidationError
	if errors.As(err, &ve) && len(ve.Fields) == 1 {
		return 0, errors.New("amount " + ve.Fields[0].Problem)
	}
	if err != nil {
		return 0, err
	}
	if m > upicollect.Rupees(maxRupees) {
		return 0, errors.New("amount too large")
	}
	return m, nil
}

// CreateFlags are the fields the create commands share.
type CreateFlags struct {
	Amount   upicollect.Money
	Note     string
	Customer upicollect.Customer
}

// AddCreateFlags adds the flags of the fields every create shares.
func AddCreateFlags(cmd *cobra.Command, cf *CreateFlags) {
	f := cmd.Flags()
	f.Var(MoneyFlag{&cf.Amount}, "amount", "amount in whole rupees, 1 to 100000")
	f.StringVar(&cf.Note, "note", "", "note shown to the payer")
	f.StringVar(&cf.Customer.Name, "name", "", "customer's name")
	f.StringVar(&cf.Customer.Email, "email", "", "customer's e-mail address")
	f.StringVar(&cf.Customer.Mobile, "mobile", "", "customer's 10-digit mobile number")
}

// AddOrderIDFlag adds --order-id to a create. Its default follows the SDK:
// without it the SDK makes one (NewOrderID) before the first attempt, so a
// retry is safe and the order can be checked whatever happens; the command
// prints it.
func AddOrderIDFlag(cmd *cobra.Command, id *string) {
	cmd.Flags().StringVar(id, "order-id", "", "your unique order `ID` (default: a new one from the SDK, printed)")
}

// UsageArgs marks an argument error as a usage error.
func UsageArgs(err error) error {
	if err == nil {
		return nil
	}
	return UsageError(err)
}

// ExactArgs wants one positional argument named name.
func ExactArgs(name string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return UsageError(fmt.Errorf("missing %s", name))
		case len(args) > 1:
			return UsageError(fmt.Errorf("one %s expected, got %d arguments", name, len(args)))
		}
		return nil
	}
}

// UnknownSubcommand refuses arguments to a command that runs without any
// and has subcommands, suggesting the subcommand a typo meant as cobra
// does for the root's ("sandbox advanc" → advance).
func UnknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t") + "\n"
	}
	return errors.New(msg)
}
