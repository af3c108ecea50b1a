package main

import (
	"errors"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
)

// moneyFlag is a --amount in rupees ("499", "499.00", "1.08"), read
// exactly into paise: never through a float, never rounded.
type moneyFlag struct{ m *upicollect.Money }

func (f moneyFlag) Type() string { return "RUPEES" }

func (f moneyFlag) String() string {
	if f.m == nil || *f.m == 0 {
		return ""
	}
	return f.m.String()
}

func (f moneyFlag) Set(s string) error {
	m, err := parseRupees(s)
	if err != nil {
		return err
	}
	*f.m = m
	return nil
}

// maxRupees bounds --amount far above any real payment and far below
// overflow.
const maxRupees = 1_000_000_000

// parseRupees reads "499", "499.5" or "499.50" into paise with the SDK's
// one reading of rupee text (upicollect.ParseRupees), up to maxRupees.
func parseRupees(s string) (upicollect.Money, error) {
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

// createFlags are the fields the create commands share.
type createFlags struct {
	amount   upicollect.Money
	note     string
	customer upicollect.Customer
}

func addCreateFlags(cmd *cobra.Command, cf *createFlags) {
	f := cmd.Flags()
	f.Var(moneyFlag{&cf.amount}, "amount", "amount in whole rupees, 1 to 100000")
	f.StringVar(&cf.note, "note", "", "note shown to the payer")
	f.StringVar(&cf.customer.Name, "name", "", "customer's name")
	f.StringVar(&cf.customer.Email, "email", "", "customer's e-mail address")
	f.StringVar(&cf.customer.Mobile, "mobile", "", "customer's 10-digit mobile number")
}

// addOrderIDFlag adds --order-id to a create. Its default follows the SDK:
// without it the SDK makes one (NewOrderID) before the first attempt, so a
// retry is safe and the order can be checked whatever happens; the command
// prints it.
func addOrderIDFlag(cmd *cobra.Command, id *string) {
	cmd.Flags().StringVar(id, "order-id", "", "your unique order `ID` (default: a new one from the SDK, printed)")
}
