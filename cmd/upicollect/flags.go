package main

import (
	"errors"
	"strconv"
	"strings"

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

// parseRupees reads "499", "499.5" or "499.50" into paise. More than two
// decimals, signs, exponents and separators are refused.
func parseRupees(s string) (upicollect.Money, error) {
	whole, frac, hasPoint := strings.Cut(s, ".")
	digits := func(v string) bool {
		for _, c := range v {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	switch {
	case whole == "" || !digits(whole) || !digits(frac):
		return 0, errors.New("amount must be rupees, like 499 or 499.00")
	case hasPoint && (frac == "" || len(frac) > 2):
		return 0, errors.New("amount must have at most two decimals (paise)")
	case len(whole) > 10:
		return 0, errors.New("amount too large")
	}
	r, _ := strconv.ParseInt(whole, 10, 64) // at most 10 digits: fits
	if r > maxRupees {
		return 0, errors.New("amount too large")
	}
	p := int64(0)
	if frac != "" {
		p, _ = strconv.ParseInt(frac, 10, 64)
		if len(frac) == 1 {
			p *= 10
		}
	}
	return upicollect.Money(r*100 + p), nil
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
