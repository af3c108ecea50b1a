package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/dashboard"
	"github.com/upicollect/upicollect-go/reconcile"
)

// ledgerErrors maps the ledger's errors to exit codes: the ledger refused,
// as the service refuses (3).
func ledgerError(err error) error {
	switch {
	case errors.Is(err, reconcile.ErrNotTracked):
		return &exitError{code: exitRefused, kind: "not_tracked", err: err}
	case errors.Is(err, reconcile.ErrTrackedDifferently):
		return &exitError{code: exitRefused, kind: "tracked_differently", err: err}
	}
	return err
}

// openReader opens the ledger for the commands that only read it.
func (a *app) openReader(lf *ledgerFlags) (dashboard.Ledger, func(), error) {
	st, closeDB, err := a.openLedger(lf, true)
	if err != nil {
		return nil, nil, err
	}
	r, ok := st.(dashboard.Ledger)
	if !ok {
		closeDB()
		return nil, nil, errors.New("this ledger's store cannot be read (no Lookup, List and Counts)")
	}
	return r, closeDB, nil
}

// istTime is t for a person, in India time: "2026-11-26 10:00:00 IST";
// "" for the zero time.
func istTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(dashboard.IST).Format("2006-01-02 15:04:05 MST")
}

// --- track ---------------------------------------------------------------

type trackJSON struct {
	OrderID     string `json:"order_id"`
	Amount      string `json:"amount"`
	AmountPaise int64  `json:"amount_paise"`
	Created     string `json:"created"`
	FirstCheck  string `json:"first_check"`
}

func (a *app) reconcileTrackCmd() *cobra.Command {
	var (
		lf      ledgerFlags
		amount  upicollect.Money
		created string
	)
	cmd := &cobra.Command{
		Use:   "track ORDER_ID --amount RUPEES [--created TIME]",
		Short: "Track an order in the ledger (for scripts)",
		Long: `Track an order: run checks it from --created (default now) on the schedule
until its final state, and delivers each event. --amount is what you expect
to be paid, in rupees ("499", "499.50"), read exactly. --created is RFC 3339
("2026-11-26T10:00:00+05:30"). Tracking an order again with the same amount
changes nothing; with another amount it is refused (exit 3).`,
		Example: `  upicollect reconcile track ORD-1042 --amount 499 --dsn sqlite:shop.db --create`,
		Args:    cobra.ExactArgs(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			o := reconcile.Order{ID: args[0], Amount: amount, Created: a.now()}
			var problems []string
			if err := upicollect.ValidateOrderID("track", o.ID); err != nil {
				problems = append(problems, "ORDER_ID: "+strings.TrimPrefix(errorMessage(cmd, err), "track: invalid parameters: "))
			}
			if !cmd.Flags().Changed("amount") || amount <= 0 {
				problems = append(problems, "--amount: must be a positive amount in rupees")
			}
			if created != "" {
				t, err := time.Parse(time.RFC3339, created)
				if err != nil {
					problems = append(problems, "--created: want RFC 3339, like 2026-11-26T10:00:00+05:30")
				}
				o.Created = t
			}
			if len(problems) > 0 {
				return usageError(errors.New(strings.Join(problems, "; ")))
			}
			st, closeDB, err := a.openLedger(&lf, false)
			if err != nil {
				return err
			}
			defer closeDB()
			due := o.Created.Add(reconcile.DefaultSchedule()[0].Every)
			if err := st.Track(a.ctx, o, due); err != nil {
				return ledgerError(fmt.Errorf("track %s: %w", o.ID, err))
			}
			v := trackJSON{OrderID: o.ID, Amount: o.Amount.String(), AmountPaise: o.Amount.Paise(),
				Created: o.Created.Format(time.RFC3339), FirstCheck: due.Format(time.RFC3339)}
			if a.json {
				return a.printJSON(v)
			}
			return a.printFields(field{"tracked", o.ID}, field{"amount", rupees(o.Amount)},
				field{"created", istTime(o.Created)}, field{"first check", istTime(due)})
		}),
	}
	a.addLedgerFlags(cmd, &lf, true)
	f := cmd.Flags()
	f.Var(moneyFlag{&amount}, "amount", "the amount you expect, in rupees (required)")
	f.StringVar(&created, "created", "", "when the order was created, RFC 3339 `TIME` (default now)")
	f.BoolVar(&a.json, "json", false, "print one JSON document (errors too) on stdout")
	return cmd
}

// --- show and list -------------------------------------------------------

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
		NextCheck: optTime(s.Next), Updated: optTime(s.Updated), Reason: s.Reason, Events: []eventJSON{},
	}
	for _, e := range s.Events {
		v.Events = append(v.Events, newEventJSON(e))
	}
	return v
}

func (a *app) reconcileShowCmd() *cobra.Command {
	var lf ledgerFlags
	cmd := &cobra.Command{
		Use:   "show ORDER_ID",
		Short: "Show one order of the ledger: its state, checks and events",
		Long: `Show what the ledger knows of one order: its state, the checks made, the
next one, and the events delivered. It only reads the ledger: nothing is
checked, recorded or delivered. An order the ledger does not know exits 3.`,
		Example: `  upicollect reconcile show ORD-1042 --dsn sqlite:shop.db`,
		Args:    cobra.ExactArgs(1),
		RunE: a.runE(func(_ *cobra.Command, args []string) error {
			r, closeDB, err := a.openReader(&lf)
			if err != nil {
				return err
			}
			defer closeDB()
			s, err := r.Lookup(a.ctx, args[0])
			if err != nil {
				return ledgerError(fmt.Errorf("show %s: %w", args[0], err))
			}
			if a.json {
				return a.printJSON(newOrderJSON(s))
			}
			return a.printOrder(s)
		}),
	}
	a.addLedgerFlags(cmd, &lf, false)
	cmd.Flags().BoolVar(&a.json, "json", false, "print one JSON document (errors too) on stdout")
	return cmd
}

// printOrder prints one order for a person, times in India time.
func (a *app) printOrder(s *reconcile.OrderState) error {
	next := istTime(s.Next)
	if next == "" {
		next = "none"
	}
	events := "none"
	if len(s.Events) > 0 {
		events = strconv.Itoa(len(s.Events))
	}
	if err := a.printFields(
		field{"order", s.Order.ID}, field{"state", string(s.State)}, field{"amount", rupees(s.Order.Amount)},
		field{"created", istTime(s.Order.Created)}, field{"checks", strconv.Itoa(s.Checks)},
		field{"failures", nonZero(s.Failures)}, field{"next check", next}, field{"reason", s.Reason},
		field{"updated", istTime(s.Updated)}, field{"events", events},
	); err != nil {
		return err
	}
	for _, e := range s.Events {
		if err := writeLine(a.stdout, "  "+istTime(e.At)+"  "+eventLine(e)); err != nil {
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

// maxListLimit bounds --limit: one page of a ledger, as large as a store
// returns at once (reconcile/sqlstore caps List at 1000); --before pages on.
const maxListLimit = 1000

func (a *app) reconcileListCmd() *cobra.Command {
	var (
		lf     ledgerFlags
		states []string
		limit  int
		before string
	)
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
		RunE: a.runE(func(*cobra.Command, []string) error {
			q := reconcile.ListQuery{Limit: limit, Before: before}
			for _, s := range states {
				st, ok := parseState(s)
				if !ok {
					return usageError(fmt.Errorf("--state %q: want one of %s", terminalSafe(s), strings.Join(stateNames(), ", ")))
				}
				q.States = append(q.States, st)
			}
			if limit < 1 || limit > maxListLimit {
				return usageError(fmt.Errorf("--limit %d: want 1 to %d", limit, maxListLimit))
			}
			r, closeDB, err := a.openReader(&lf)
			if err != nil {
				return err
			}
			defer closeDB()
			orders, err := r.List(a.ctx, q)
			if err != nil {
				return fmt.Errorf("list: %w", err)
			}
			return a.printList(orders)
		}),
	}
	a.addLedgerFlags(cmd, &lf, false)
	f := cmd.Flags()
	f.StringArrayVar(&states, "state", nil, "list only orders in `STATE` (repeatable)")
	f.IntVar(&limit, "limit", reconcile.DefaultListLimit, "at most `N` orders")
	f.StringVar(&before, "before", "", "start after `ORDER_ID` (the last of the previous page)")
	f.BoolVar(&a.json, "json", false, "print one JSON object a line (errors too) on stdout")
	return cmd
}

// printList prints orders: a table for a person, JSON lines with --json.
func (a *app) printList(orders []reconcile.OrderState) error {
	if a.json {
		for i := range orders {
			if err := a.printJSON(newOrderJSON(&orders[i])); err != nil {
				return err
			}
		}
		return nil
	}
	rows := [][]string{{"ORDER", "STATE", "AMOUNT", "CREATED", "CHECKS", "NEXT CHECK"}}
	for _, s := range orders {
		next := istTime(s.Next)
		if next == "" {
			next = "-"
		}
		rows = append(rows, []string{terminalSafe(s.Order.ID), string(s.State), rupees(s.Order.Amount),
			istTime(s.Order.Created), strconv.Itoa(s.Checks), next})
	}
	return writeTable(a.stdout, rows)
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
