package reconcile

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/upicollect/upicollect-go/cmd/upicollect/dashboard"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/reconcile"
)

// maxListLimit bounds --limit: one page of a ledger, as large as a store
// returns at once (reconcile/sqlstore caps List at 1000); --before pages on.
const maxListLimit = 1000

// ListOptions are what `upicollect reconcile list` runs with.
type ListOptions struct {
	ledgerOptions
	States []string
	Limit  int
	Before string
}

// NewCmdList is `upicollect reconcile list`; runF, when not nil, runs
// instead of listRun (tests).
func NewCmdList(f *cmdutil.Factory, runF func(*ListOptions) error) *cobra.Command {
	opts := &ListOptions{ledgerOptions: newLedgerOptions(f)}
	cmd := &cobra.Command{
		Use:   "list [--state STATE]... [--json]",
		Short: "List the ledger's orders, newest first",
		Long: `List the ledger's orders, newest created first: one line each, or with
--json one JSON object a line. --state keeps the orders in that state
(repeatable): ` + strings.Join(stateNames(), ", ") + `. --limit says how many
(default 100); --before ORDER_ID starts after that order, for the next page.
It only reads the ledger: nothing is checked, recorded or delivered.`,
		Example: `  upicollect reconcile list --state late_paid --state mismatch
  upicollect reconcile list --json | jq -r 'select(.state == "expired") | .order_id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return listRun(opts)
		},
	}
	addLedgerFlags(cmd, &opts.ledgerOptions, false)
	fl := cmd.Flags()
	fl.StringArrayVar(&opts.States, "state", nil, "list only orders in `STATE` (repeatable)")
	fl.IntVar(&opts.Limit, "limit", reconcile.DefaultListLimit, "at most `N` orders")
	fl.StringVar(&opts.Before, "before", "", "start after `ORDER_ID` (the last of the previous page)")
	cmdutil.AddJSONFlag(cmd, &opts.JSON, "print one JSON object a line (errors too) on stdout")
	return cmd
}

func listRun(opts *ListOptions) error {
	q := reconcile.ListQuery{Limit: opts.Limit, Before: opts.Before}
	for _, s := range opts.States {
		st, ok := parseState(s)
		if !ok {
			return cmdutil.UsageError(fmt.Errorf("--state %q: want one of %s", iostreams.TerminalSafe(s), strings.Join(stateNames(), ", ")))
		}
		q.States = append(q.States, st)
	}
	if opts.Limit < 1 || opts.Limit > maxListLimit {
		return cmdutil.UsageError(fmt.Errorf("--limit %d: want 1 to %d", opts.Limit, maxListLimit))
	}
	r, closeDB, err := opts.openReader()
	if err != nil {
		return err
	}
	defer closeDB()
	orders, err := r.List(opts.Ctx, q)
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	return printList(opts.IO, opts.JSON, orders)
}

// printList prints orders: a table for a person, JSON lines with --json.
func printList(ios *iostreams.IOStreams, jsonOut bool, orders []reconcile.OrderState) error {
	if jsonOut {
		for i := range orders {
			if err := ios.PrintJSON(newOrderJSON(&orders[i])); err != nil {
				return err
			}
		}
		return nil
	}
	rows := [][]string{{"ORDER", "STATE", "AMOUNT", "CREATED", "CHECKS", "NEXT CHECK"}}
	for _, s := range orders {
		next := cmdutil.IndiaTime(s.Next)
		if next == "" {
			next = "-"
		}
		rows = append(rows, []string{iostreams.TerminalSafe(s.Order.ID), string(s.State), cmdutil.Rupees(s.Order.Amount),
			cmdutil.IndiaTime(s.Order.Created), strconv.Itoa(s.Checks), next})
	}
	return writeTable(ios.Out, rows)
}

// stateNames are the states --state accepts.
func stateNames() []string {
	out := make([]string, len(dashboard.States))
	for i, s := range dashboard.States {
		out[i] = string(s)
	}
	return out
}

func parseState(s string) (reconcile.State, bool) {
	for _, st := range dashboard.States {
		if strings.EqualFold(s, string(st)) {
			return st, true
		}
	}
	return "", false
}

// writeTable writes rows aligned in columns, two spaces apart.
func writeTable(w io.Writer, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}
