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
	NotFound  bool    `json:"not_found,omitempty"` // the service does not know the order (yet)
	Amount    *string `json:"amount"`
	UTR       string  `json:"utr"`
	Message   string  `json:"message"`
}

func toStatusJSON(s *upicollect.PaymentStatus) statusJSON {
	return statusJSON{
		OrderID: s.OrderID, TxnStatus: string(s.TxnStatus), NotFound: s.NotFound, Amount: optAmount(s.Amount),
		UTR: s.UTR, Message: s.Message,
	}
}

// statusText is the state as a person reads it: an order the service does
// not know is said to be not found, not merely PENDING.
func statusText(s *upicollect.PaymentStatus) string {
	if s.NotFound {
		return shortStatus(s) + ": the service does not know this order, or no payment was started"
	}
	return string(s.TxnStatus)
}

func (a *app) statusCmd() *cobra.Command {
	var (
		conn        connFlags
		fromFile    string
		concurrency int
	)
	cmd := &cobra.Command{
		Use:   "status ORDER_ID | --from-file FILE|-",
		Short: "Check a payment's status once",
		Long: `Check the status of an order once: PENDING, SUCCESS, FAIL or REJECT.
An order the service does not know is PENDING and said to be not found
("not_found": true with --json): a typo, an order never created, or one
nobody has started to pay yet. Exits 6 when the payment ended FAIL or
REJECT, 0 otherwise: check txn_status for SUCCESS.

With --from-file, check every order listed in FILE (- for standard input),
one order ID a line, --concurrency at a time, and print one JSON line per
order as its check completes: its status, or {"order_id":…,"error":{…}}.
On a terminal, stderr shows a progress bar with the count and the rate;
on a pipe, nothing. Exits 0 when every order was checked, whatever its
state; else with the exit code of the first order that could not be.`,
		Example: `  upicollect status ORD20261122150405ABCD1234
  upicollect status ORD20261122150405ABCD1234 --json | jq -r .txn_status
  upicollect status --from-file orders.txt > statuses.jsonl
  cut -f1 orders.tsv | upicollect status --from-file - | jq -r 'select(.txn_status == "SUCCESS") | .order_id'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if fromFile != "" {
				return usageArgs(cobra.NoArgs(cmd, args))
			}
			return exactArgs("ORDER_ID")(cmd, args)
		},
		ValidArgsFunction: cobra.NoFileCompletions, // order IDs and links are not files
		RunE: a.runE(func(_ *cobra.Command, args []string) error {
			if fromFile != "" {
				c, _, err := a.client(&conn)
				if err != nil {
					return err
				}
				defer c.CloseIdleConnections()
				return a.statusBatch(c, fromFile, concurrency)
			}
			return runCall(a, &conn, func(c *upicollect.Client) (*upicollect.PaymentStatus, error) {
				return c.CheckPaymentStatus(a.ctx, args[0])
			}, func(st *upicollect.PaymentStatus) error {
				if err := a.printStatus(st); err != nil {
					return err
				}
				return silentExit(statusExit(st.TxnStatus))
			})
		}),
	}
	a.addConnFlags(cmd, &conn, true)
	cmd.Flags().StringVar(&fromFile, "from-file", "", "check every order ID listed in `FILE` (- for standard input), one a line")
	cmd.Flags().IntVar(&concurrency, "concurrency", upicollect.DefaultConcurrency, "checks in flight at once with --from-file")
	cmd.MarkFlagsMutuallyExclusive("from-file", "dry-run")
	return cmd
}

func (a *app) printStatus(st *upicollect.PaymentStatus) error {
	if a.json {
		return a.printJSON(toStatusJSON(st))
	}
	return a.printFields(
		field{"Order", st.OrderID},
		field{"Status", statusText(st)},
		field{"Amount", rupees(st.Amount)},
		field{"UTR", st.UTR},
		field{"Message", st.Message},
	)
}

// usageArgs marks an argument error as a usage error.
func usageArgs(err error) error {
	if err == nil {
		return nil
	}
	return usageError(err)
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
