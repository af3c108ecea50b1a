// Package status is `upicollect status`: check a payment's status once,
// or every order a file lists (--from-file).
package status

import (
	"context"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
)

// StatusOptions are what `upicollect status` runs with.
type StatusOptions struct {
	IO     *iostreams.IOStreams
	Ctx    context.Context
	Client cmdutil.ClientFunc

	Conn        cmdutil.ConnFlags
	OrderID     string
	FromFile    string
	Concurrency int
	JSON        bool
}

// JSON is the --json form of a payment status (status and wait).
type JSON struct {
	OrderID   string  `json:"order_id"`
	TxnStatus string  `json:"txn_status"`
	NotFound  bool    `json:"not_found,omitempty"` // the service does not know the order (yet)
	Amount    *string `json:"amount"`
	UTR       string  `json:"utr"`
	Message   string  `json:"message"`
}

// ToJSON is s in its --json form.
func ToJSON(s *upicollect.PaymentStatus) JSON {
	return JSON{
		OrderID: s.OrderID, TxnStatus: string(s.TxnStatus), NotFound: s.NotFound, Amount: cmdutil.OptAmount(s.Amount),
		UTR: s.UTR, Message: s.Message,
	}
}

// Text is the state as a person reads it. The service answers an order
// nobody has started to pay as it answers one it never saw ("not found"),
// and an order created seconds ago is the common case: it reads as
// waiting for the payer, with the typo named second.
func Text(s *upicollect.PaymentStatus) string {
	if s.NotFound {
		return Short(s) + " (no payment started; a mistyped order id reads the same)"
	}
	return string(s.TxnStatus)
}

// Short is the state in a few words, for the spinner and a wait that
// ended: "PENDING, waiting for the payer" for an order the service does
// not know yet.
func Short(st *upicollect.PaymentStatus) string {
	if st.NotFound {
		return string(st.TxnStatus) + ", waiting for the payer"
	}
	return string(st.TxnStatus)
}

// Print prints st: one JSON document with jsonOut, else a summary. The
// summary of an order the service does not know yet leaves out the
// service's message ("Transaction not found"), which Text says better;
// the JSON keeps it.
func Print(ios *iostreams.IOStreams, jsonOut bool, st *upicollect.PaymentStatus) error {
	if jsonOut {
		return ios.PrintJSON(ToJSON(st))
	}
	msg := st.Message
	if st.NotFound {
		msg = ""
	}
	return ios.PrintFields(
		iostreams.Field{Name: "Order", Value: st.OrderID},
		iostreams.Field{Name: "Status", Value: Text(st)},
		iostreams.Field{Name: "Amount", Value: cmdutil.Rupees(st.Amount)},
		iostreams.Field{Name: "UTR", Value: st.UTR},
		iostreams.Field{Name: "Message", Value: msg},
	)
}

// NewCmdStatus is `upicollect status`; runF, when not nil, runs instead of
// statusRun (tests).
func NewCmdStatus(f *cmdutil.Factory, runF func(*StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "status ORDER_ID | --from-file FILE|-",
		Short: "Check a payment's status once",
		Long: `Check the status of an order once: PENDING, SUCCESS, FAIL or REJECT.
An order nobody has started to pay yet is PENDING, waiting for the payer:
the service answers it as an order it does not know ("not_found": true
with --json), so an order id never created (a typo) reads the same. Exits
6 when the payment ended FAIL or REJECT, 0 otherwise: check txn_status for
SUCCESS.

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
			if opts.FromFile != "" {
				return cmdutil.UsageArgs(cobra.NoArgs(cmd, args))
			}
			return cmdutil.ExactArgs("ORDER_ID")(cmd, args)
		},
		ValidArgsFunction: cobra.NoFileCompletions, // order IDs and links are not files
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx = cmd.Context()
			opts.Client = func() (*upicollect.Client, *cmdutil.DryRun, error) { return f.Client(&opts.Conn) }
			if len(args) > 0 {
				opts.OrderID = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return statusRun(opts)
		},
	}
	cmdutil.AddConnFlags(cmd, &opts.Conn, true)
	cmdutil.AddJSONFlag(cmd, &opts.JSON, cmdutil.JSONUsage)
	cmd.Flags().StringVar(&opts.FromFile, "from-file", "", "check every order ID listed in `FILE` (- for standard input), one a line")
	cmd.Flags().IntVar(&opts.Concurrency, "concurrency", upicollect.DefaultConcurrency, "checks in flight at once with --from-file")
	cmd.MarkFlagsMutuallyExclusive("from-file", "dry-run")
	return cmd
}

func statusRun(opts *StatusOptions) error {
	if opts.FromFile != "" {
		c, _, err := opts.Client()
		if err != nil {
			return err
		}
		defer c.CloseIdleConnections()
		return fromFile(opts, c)
	}
	return cmdutil.CallOnce(opts.IO, opts.JSON, opts.Client, func(c *upicollect.Client) (*upicollect.PaymentStatus, error) {
		return c.CheckPaymentStatus(opts.Ctx, opts.OrderID)
	}, func(st *upicollect.PaymentStatus) error {
		if err := Print(opts.IO, opts.JSON, st); err != nil {
			return err
		}
		return cmdutil.SilentExit(cmdutil.StatusExit(st.TxnStatus))
	})
}
