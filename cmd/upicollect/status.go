package main

import (
	"fmt"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
)

// statusJSON is the --json form of a payment status (status and wait).
type statusJSON struct {
	OrderID   string  `json:"order_id"`
	TxnStatus string  `json:"txn_status"`
	Amount    *string `json:"amount"`
	UTR       string  `json:"utr"`
	Message   string  `json:"message"`
}

func toStatusJSON(s *upicollect.PaymentStatus) statusJSON {
	return statusJSON{
		OrderID: s.OrderID, TxnStatus: string(s.TxnStatus), Amount: optAmount(s.Amount),
		UTR: s.UTR, Message: s.Message,
	}
}

func (a *app) statusCmd() *cobra.Command {
	var conn connFlags
	cmd := &cobra.Command{
		Use:   "status ORDER_ID",
		Short: "Check a payment's status once",
		Long: `Check the status of an order once: PENDING, SUCCESS, FAIL or REJECT.
An order the service does not know is PENDING. Exits 6 when the payment
ended FAIL or REJECT, 0 otherwise: check txn_status for SUCCESS.`,
		Example: `  upicollect status ORD20261122150405ABCD1234
  upicollect status ORD20261122150405ABCD1234 --json | jq -r .txn_status`,
		Args:              exactArgs("ORDER_ID"),
		ValidArgsFunction: cobra.NoFileCompletions, // order IDs and links are not files
		RunE: a.runE(func(_ *cobra.Command, args []string) error {
			c, dr, err := a.client(&conn)
			if err != nil {
				return err
			}
			st, err := c.CheckPaymentStatus(a.ctx, args[0])
			if dr != nil {
				return a.reportDryRun(dr, err)
			}
			if err != nil {
				return err
			}
			if err := a.printStatus(st); err != nil {
				return err
			}
			return silentExit(statusExit(st.TxnStatus))
		}),
	}
	a.addConnFlags(cmd, &conn, true)
	return cmd
}

func (a *app) printStatus(st *upicollect.PaymentStatus) error {
	if a.json {
		return a.printJSON(toStatusJSON(st))
	}
	return a.printFields(
		field{"Order", st.OrderID},
		field{"Status", string(st.TxnStatus)},
		field{"Amount", rupees(st.Amount)},
		field{"UTR", st.UTR},
		field{"Message", st.Message},
	)
}

// exactArgs wants one positional argument named name.
func exactArgs(name string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return usageError(fmt.Errorf("missing %s", name))
		case len(args) > 1:
			return usageError(fmt.Errorf("one %s expected, got %d arguments", name, len(args)))
		}
		return nil
	}
}
