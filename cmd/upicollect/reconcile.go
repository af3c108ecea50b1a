package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/upicollect/upicollect-go/reconcile"
)

// envDSN names the database of `upicollect reconcile` when --dsn is not
// given: a DSN may carry a password, which a flag would show in ps.
const envDSN = "UPICOLLECT_RECONCILE_DSN"

// eventJSON is one event as `reconcile` prints it.
type eventJSON struct {
	Event     string  `json:"event"`
	OrderID   string  `json:"order_id"`
	Expected  string  `json:"expected_amount"`
	Amount    *string `json:"amount"`
	TxnStatus string  `json:"txn_status"`
	UTR       string  `json:"utr"`
	Reason    string  `json:"reason,omitempty"`
	At        string  `json:"at"`
}

// stepJSON is the summary of one step.
type stepJSON struct {
	Step     string  `json:"step"` // the step's time
	Checked  int     `json:"checked"`
	Paid     int     `json:"paid"`
	Failed   int     `json:"failed"`
	LatePaid int     `json:"late_paid"`
	Expired  int     `json:"expired"`
	Mismatch int     `json:"mismatch"`
	Pending  int     `json:"pending"`
	Errors   int     `json:"errors"`
	NextDue  *string `json:"next_due"`
}

func (a *app) reconcileCmd() *cobra.Command {
	var (
		conn     connFlags
		dsn      string
		once     bool
		interval time.Duration
	)
	cmd := &cobra.Command{
		Use:   "reconcile --dsn DSN [--once]",
		Short: "Sweep a reconcile database: check every tracked order until it is final",
		Long: `Run a sweeper over the orders an application tracked in a reconcile database
(reconcile/sqlstore): check each on its schedule until its final state,
record every event once, and print each event and a summary line per step.
--once runs one step and exits; without it the sweeper steps until Ctrl-C,
waiting between steps until the next order is due (at most --interval).
Several sweepers may share one database.

The database is --dsn, else ` + envDSN + ` (a DSN may hold a password:
the variable keeps it out of ps): postgres://… or postgresql://… for
PostgreSQL, sqlite:PATH or file:PATH for SQLite.

An event is recorded in the database with the step that found it, once;
it is printed when found, so a step that fails to record it prints it
again at the next step.`,
		Example: `  export UPICOLLECT_RECONCILE_DSN=postgres://shop@127.0.0.1/shop
  upicollect reconcile --once
  upicollect reconcile --dsn sqlite:orders.db --json | jq -c 'select(.event == "late_paid")'`,
		Args: cobra.NoArgs,
		RunE: a.runE(func(*cobra.Command, []string) error {
			src := a.pick(dsn, envDSN)
			if src == "" {
				return usageError(errors.New("missing " + envDSN + " or --dsn (see 'upicollect reconcile --help')"))
			}
			c, _, err := a.client(&conn)
			if err != nil {
				return err
			}
			defer c.CloseIdleConnections()
			st, closeDB, err := openStore(a.ctx, src)
			if err != nil {
				return err
			}
			defer closeDB()
			sw, err := reconcile.New(c, st, a.printEvent, reconcile.WithClock(a.now))
			if err != nil {
				return err
			}
			return a.sweep(sw, once, interval)
		}),
	}
	a.addConnFlags(cmd, &conn, false)
	cmd.Flags().StringVar(&dsn, "dsn", "", "the reconcile database's `DSN` (default $"+envDSN+")")
	cmd.Flags().BoolVar(&once, "once", false, "run one step and exit")
	cmd.Flags().DurationVar(&interval, "interval", 30*time.Second, "the longest wait between two steps")
	return cmd
}

// sweep steps until ctx ends (or once), printing a summary per step. A
// step's errors (a check that failed, an event not recorded) are counted
// in its summary and retried by the next step; with --once they are the
// exit code.
func (a *app) sweep(sw *reconcile.Sweeper, once bool, interval time.Duration) error {
	for {
		now := a.now()
		stats, err := sw.Step(a.ctx, now)
		if a.ctx.Err() != nil {
			return interrupted(a.ctx, errors.New("sweeper stopped"))
		}
		if perr := a.printStep(now, stats); perr != nil {
			return perr
		}
		if once {
			return err
		}
		if err != nil {
			_ = writeLine(a.stderr, "upicollect: "+terminalSafe(errorMessage(nil, err)))
		}
		wait := interval
		if !stats.NextDue.IsZero() {
			wait = min(max(stats.NextDue.Sub(now), 0), interval)
		}
		select {
		case <-a.ctx.Done():
			return interrupted(a.ctx, errors.New("sweeper stopped"))
		case <-time.After(wait):
		}
	}
}

// printEvent is the sweeper's handler: it prints the event. Its error (a
// closed stdout) leaves the event to be delivered again.
func (a *app) printEvent(_ context.Context, e reconcile.Event) error {
	ev := eventJSON{
		Event: string(e.Result), OrderID: e.Order.ID, Expected: e.Order.Amount.String(),
		Reason: e.Reason, At: e.At.Format(time.RFC3339),
	}
	if e.Status != nil {
		ev.Amount, ev.TxnStatus, ev.UTR = optAmount(e.Status.Amount), string(e.Status.TxnStatus), e.Status.UTR
	}
	if a.json {
		return a.printJSON(ev)
	}
	line := fmt.Sprintf("%-9s %s  expected %s", ev.Event, ev.OrderID, rupees(e.Order.Amount))
	if ev.Amount != nil && *ev.Amount != ev.Expected {
		line += ", paid ₹" + *ev.Amount
	}
	if ev.UTR != "" {
		line += "  UTR " + ev.UTR
	}
	if ev.Reason != "" {
		line += "  (" + ev.Reason + ")"
	}
	return writeLine(a.stdout, terminalSafe(line))
}

// printStep prints a step's summary line.
func (a *app) printStep(at time.Time, s reconcile.Stats) error {
	v := stepJSON{Step: at.Format(time.RFC3339), Checked: s.Checked, Paid: s.Paid, Failed: s.Failed,
		LatePaid: s.LatePaid, Expired: s.Expired, Mismatch: s.Mismatch, Pending: s.Pending, Errors: s.Errors,
		NextDue: optTime(s.NextDue)}
	if a.json {
		return a.printJSON(v)
	}
	next := "none"
	if v.NextDue != nil {
		next = *v.NextDue
	}
	return writeLine(a.stdout, fmt.Sprintf(
		"step %s: checked %d, paid %d, failed %d, late_paid %d, expired %d, mismatch %d, pending %d, errors %d; next due %s",
		v.Step, v.Checked, v.Paid, v.Failed, v.LatePaid, v.Expired, v.Mismatch, v.Pending, v.Errors, next))
}
