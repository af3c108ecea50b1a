package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/sandbox"
)

const payLong = `Settle an order in a running sandbox as its payer would: SUCCESS (the
default), FAIL or REJECT, through POST /sandbox/orders/ORDER_ID/pay. With
--after the bank's answer comes that much sandbox time later: the order
stays as it is until then ('upicollect sandbox advance' gets there at once).
A FAIL may later become SUCCESS, as a bank's late authorisation does:

  upicollect sandbox pay ORDER_ID --result FAIL
  upicollect sandbox pay ORDER_ID --after 3h
  upicollect sandbox advance 3h

Prints the order as the sandbox then holds it.`

const payExample = `  upicollect sandbox pay utz_65f1c2ab3d4e5
  upicollect sandbox pay utz_65f1c2ab3d4e5 --result FAIL
  upicollect sandbox pay utz_65f1c2ab3d4e5 --after 3h --amount 498.50 --json`

// PayOptions are what `upicollect sandbox pay` runs with.
type PayOptions struct {
	control
	OrderID     string
	result, utr string
	after       time.Duration
	amount      upicollect.Money
	afterSet    bool // --after was given
	amountSet   bool // --amount was given
}

// NewCmdPay is `upicollect sandbox pay`; runF, when not nil, runs instead
// of payRun (tests).
func NewCmdPay(f *cmdutil.Factory, runF func(*PayOptions) error) *cobra.Command {
	pf := &PayOptions{control: control{IO: f.IOStreams, Config: f.Config}}
	cmd := &cobra.Command{
		Use:     "pay ORDER_ID",
		Short:   "Settle an order in a running sandbox, now or later",
		Long:    payLong,
		Example: payExample,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pf.Ctx = cmd.Context()
			pf.OrderID = args[0]
			pf.afterSet, pf.amountSet = cmd.Flags().Changed("after"), cmd.Flags().Changed("amount")
			if runF != nil {
				return runF(pf)
			}
			return payRun(pf)
		},
	}
	addControlFlags(cmd, &pf.control)
	fl := cmd.Flags()
	fl.StringVar(&pf.result, "result", sandbox.StatusSuccess, "the payer's choice: `RESULT` SUCCESS, FAIL or REJECT")
	fl.DurationVar(&pf.after, "after", 0, "the bank answers this much sandbox time later (default: at once)")
	fl.StringVar(&pf.utr, "utr", "", "the bank reference `UTR` to report (default: a new one)")
	fl.Var(cmdutil.MoneyFlag{M: &pf.amount}, "amount", "the amount paid in rupees, when it differs from the order's")
	return cmd
}

func payRun(pf *PayOptions) error {
	form, err := pf.form()
	if err != nil {
		return err
	}
	return pay(&pf.control, pf.OrderID, form)
}

// form is the pay endpoint's form, checked before any I/O.
func (pf *PayOptions) form() (url.Values, error) {
	result := strings.ToUpper(pf.result)
	switch result {
	case sandbox.StatusSuccess, sandbox.StatusFail, sandbox.StatusReject:
	default:
		return nil, cmdutil.UsageError(fmt.Errorf("--result %q: want SUCCESS, FAIL or REJECT", pf.result))
	}
	form := url.Values{"result": {result}}
	if pf.utr != "" {
		form.Set("utr", pf.utr)
	}
	if pf.afterSet {
		if pf.after < 0 {
			return nil, cmdutil.UsageError(fmt.Errorf("--after %s is negative", pf.after))
		}
		form.Set("after", pf.after.String())
	}
	if pf.amountSet {
		if pf.amount <= 0 {
			return nil, cmdutil.UsageError(errors.New("--amount must be more than zero"))
		}
		form.Set("amount", pf.amount.String())
	}
	return form, nil
}

func pay(cf *control, orderID string, form url.Values) error {
	base, err := cf.base()
	if err != nil {
		return err
	}
	b, err := cf.call(base, "/sandbox/orders/"+url.PathEscape(orderID)+"/pay",
		"application/x-www-form-urlencoded", []byte(form.Encode()))
	if err != nil {
		return err
	}
	var o sandbox.Order
	if err := json.Unmarshal(b, &o); err != nil {
		return fmt.Errorf("the sandbox's answer is not an order: %w", err)
	}
	if cf.JSON {
		return cf.IO.PrintJSON(json.RawMessage(b))
	}
	fields := []iostreams.Field{{Name: "order_id", Value: o.OrderID}, {Name: "status", Value: o.Status}, {Name: "utr", Value: o.UTR}}
	if o.PaidPaise != 0 && o.PaidPaise != o.AmountPaise {
		fields = append(fields, iostreams.Field{Name: "paid", Value: cmdutil.Rupees(upicollect.Money(o.PaidPaise))})
	}
	for _, c := range o.Scheduled {
		fields = append(fields, iostreams.Field{Name: "scheduled", Value: c.Result + " at " + cmdutil.IndiaTime(c.At)})
	}
	return cf.IO.PrintFields(fields...)
}
