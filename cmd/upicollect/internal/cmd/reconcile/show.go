package reconcile

import (
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/reconcile"
)

// orderJSON is an order as show and list print it.
type orderJSON struct {
	OrderID     string      `json:"order_id"`
	State       string      `json:"state"`
	Amount      string      `json:"amount"`
	AmountPaise int64       `json:"amount_paise"`
	Created     string      `json:"created"`
	Checks      int         `json:"checks"`
	Failures    int         `json:"failures"`
	NextCheck   *string     `json:"next_check"`
	Updated     *string     `json:"updated"`
	Reason      string      `json:"reason,omitempty"`
	Events      []eventJSON `json:"events"`
}

func newOrderJSON(s *reconcile.OrderState) orderJSON {
	v := orderJSON{
		OrderID: s.Order.ID, State: string(s.State), Amount: s.Order.Amount.String(), AmountPaise: s.Order.Amount.Paise(),
		Created: s.Order.Created.Format(time.RFC3339), Checks: s.Checks, Failures: s.Failures,
		NextCheck: cmdutil.OptTime(s.Next), Updated: cmdutil.OptTime(s.Updated), Reason: s.Reason, Events: []eventJSON{},
	}
	for _, e := range s.Events {
		v.Events = append(v.Events, newEventJSON(e))
	}
	return v
}

// ShowOptions are what `upicollect reconcile show` runs with.
type ShowOptions struct {
	ledgerOptions
	OrderID string
}

// NewCmdShow is `upicollect reconcile show`; runF, when not nil, runs
// instead of showRun (tests).
func NewCmdShow(f *cmdutil.Factory, runF func(*ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{ledgerOptions: newLedgerOptions(f)}
	cmd := &cobra.Command{
		Use:   "show ORDER_ID",
		Short: "Show one order of the ledger: its state, checks and events",
		Long: `Show what the ledger knows of one order: its state, the checks made, the
next one, and the events delivered. It only reads the ledger: nothing is
checked, recorded or delivered. An order the ledger does not know exits 3.`,
		Example: `  upicollect reconcile show ORD-1042 --dsn sqlite:shop.db`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx = cmd.Context()
			opts.OrderID = args[0]
			if runF != nil {
				return runF(opts)
			}
			return showRun(opts)
		},
	}
	addLedgerFlags(cmd, &opts.ledgerOptions, false)
	cmdutil.AddJSONFlag(cmd, &opts.JSON, cmdutil.JSONUsage)
	return cmd
}

func showRun(opts *ShowOptions) error {
	r, closeDB, err := opts.openReader()
	if err != nil {
		return err
	}
	defer closeDB()
	s, err := r.Lookup(opts.Ctx, opts.OrderID)
	if err != nil {
		return ledgerError(fmt.Errorf("show %s: %w", opts.OrderID, err))
	}
	if opts.JSON {
		return opts.IO.PrintJSON(newOrderJSON(s))
	}
	return printOrder(opts.IO, s)
}

// printOrder prints one order for a person, times in India time.
func printOrder(ios *iostreams.IOStreams, s *reconcile.OrderState) error {
	next := cmdutil.IndiaTime(s.Next)
	if next == "" {
		next = "none"
	}
	events := "none"
	if len(s.Events) > 0 {
		events = strconv.Itoa(len(s.Events))
	}
	if err := ios.PrintFields(
		iostreams.Field{Name: "order", Value: s.Order.ID}, iostreams.Field{Name: "state", Value: string(s.State)}, iostreams.Field{Name: "amount", Value: cmdutil.Rupees(s.Order.Amount)},
		iostreams.Field{Name: "created", Value: cmdutil.IndiaTime(s.Order.Created)}, iostreams.Field{Name: "checks", Value: strconv.Itoa(s.Checks)},
		iostreams.Field{Name: "failures", Value: nonZero(s.Failures)}, iostreams.Field{Name: "next check", Value: next}, iostreams.Field{Name: "reason", Value: s.Reason},
		iostreams.Field{Name: "updated", Value: cmdutil.IndiaTime(s.Updated)}, iostreams.Field{Name: "events", Value: events},
	); err != nil {
		return err
	}
	for _, e := range s.Events {
		if err := iostreams.WriteLine(ios.Out, "  "+cmdutil.IndiaTime(e.At)+"  "+eventLine(e)); err != nil {
			return err
		}
	}
	return nil
}

func nonZero(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}
