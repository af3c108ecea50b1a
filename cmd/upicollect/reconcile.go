package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/upicollect/upicollect-go/reconcile"
)

// envDSN names the ledger of `upicollect reconcile` when --dsn is not
// given: a DSN may carry a password, which a flag would show in ps.
const envDSN = "UPICOLLECT_RECONCILE_DSN"

// ledgerFlags are the flags every reconcile subcommand shares.
type ledgerFlags struct {
	dsn    string
	create bool // only on the commands that write: run and track
}

func (a *app) addLedgerFlags(cmd *cobra.Command, lf *ledgerFlags, writes bool) {
	f := cmd.Flags()
	f.StringVar(&lf.dsn, "dsn", "", "the ledger's `DSN`: postgres://…, sqlite:PATH (default $"+envDSN+")")
	if writes {
		f.BoolVar(&lf.create, "create", false, "create the SQLite file when it does not exist")
	}
}

// openLedger opens the ledger the flags name, for a command that writes
// (run, track) or only reads (show, list, serve).
func (a *app) openLedger(lf *ledgerFlags, readOnly bool) (reconcile.Store, func(), error) {
	src := a.pick(lf.dsn, envDSN)
	if src == "" {
		return nil, nil, usageError(errors.New("missing " + envDSN + " or --dsn"))
	}
	return a.openStore(a.ctx, src, lf.create, readOnly)
}

const reconcileLong = `Work with a reconcile ledger: the database (reconcile/sqlstore) in which an
application tracks its orders until each has its final state.

  run    check the tracked orders on their schedule and deliver each event
         to a command (exec:COMMAND) or a signed webhook (https://URL)
  track  track an order, for scripts
  show   one order: its state, checks and events
  list   the orders, newest first, by state
  serve  a read-only dashboard of the ledger in the browser

Only run records events, and only with --deliver: an event it records is
delivered, never just printed. show, list and serve only read.

The ledger is --dsn, else ` + envDSN + ` (a DSN may hold a password:
the variable keeps it out of ps): postgres://… or postgresql://… for
PostgreSQL, sqlite:PATH or file:PATH for SQLite. A SQLite file that does
not exist is refused, unless run or track is given --create. A DSN is
never printed with its password.`

func (a *app) reconcileCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "reconcile",
		Short: "Run, inspect and serve a reconcile ledger (run, track, show, list, serve)",
		Long:  reconcileLong,
		Example: `  export ` + envDSN + `=sqlite:shop.db
  upicollect reconcile run --deliver 'exec:php credit.php' --once
  upicollect reconcile list --state late_paid
  upicollect reconcile serve --addr 127.0.0.1:8790`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError(fmt.Errorf("unknown reconcile command %q: want run, track, show, list or serve", args[0]))
			}
			return nil
		},
		RunE: a.runE(func(cmd *cobra.Command, _ []string) error {
			return usageError(errors.New("reconcile needs a command: run, track, show, list or serve " +
				"(the sweeper is 'reconcile run --deliver …': it never consumes events without delivering them)"))
		}),
	}
	cmd.AddCommand(a.reconcileRunCmd(), a.reconcileTrackCmd(), a.reconcileShowCmd(), a.reconcileListCmd(), a.reconcileServeCmd())
	return cmd
}

// eventJSON is one event as `reconcile run` prints it when delivered, and
// as show and list print an order's events.
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

func newEventJSON(e reconcile.Event) eventJSON {
	ev := eventJSON{
		Event: string(e.Result), OrderID: e.Order.ID, Expected: e.Order.Amount.String(),
		Reason: e.Reason, At: e.At.Format(time.RFC3339),
	}
	if e.Status != nil {
		ev.Amount, ev.TxnStatus, ev.UTR = optAmount(e.Status.Amount), string(e.Status.TxnStatus), e.Status.UTR
	}
	return ev
}

// eventLine is e for a person: "paid  ORDER  expected ₹499.00, paid ₹…  UTR …  (reason)".
func eventLine(e reconcile.Event) string {
	ev := newEventJSON(e)
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
	return terminalSafe(line)
}

// printDelivered prints an event that was delivered.
func (a *app) printDelivered(e reconcile.Event) error {
	if a.json {
		return a.printJSON(newEventJSON(e))
	}
	return writeLine(a.stdout, eventLine(e))
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

// minStepGap is the least time between two steps of `reconcile run`,
// whatever the ledger says is due (a fifth of --interval when that is
// longer): an order whose delivery keeps failing is never stepped back to
// back (the ledger's backoff spaces its retries; this is the floor under
// it).
const minStepGap = time.Second

// sweep steps until ctx ends (or once), printing a summary per step. Each
// step is at the ledger's time (Store.Now: PostgreSQL's clock, so that
// sweepers on hosts whose clocks differ agree) and bounded by stepTimeout.
// Between steps it waits until the ledger's next due order (NextDue), at
// least minStepGap (or interval/5) and at most interval. A step's errors (a
// check that failed, an event not delivered) are printed and retried on
// the ledger's backoff; with --once they are the exit code.
func (a *app) sweep(sw *reconcile.Sweeper, st reconcile.Store, once bool, interval, stepTimeout time.Duration) error {
	for {
		now, stats, err := a.step(sw, st, stepTimeout)
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
			for _, line := range strings.Split(errorMessage(nil, err), "\n") {
				_ = writeLine(a.stderr, "upicollect: "+terminalSafe(line))
			}
		}
		select {
		case <-a.ctx.Done():
			return interrupted(a.ctx, errors.New("sweeper stopped"))
		case <-time.After(stepWait(now, stats.NextDue, interval)):
		}
	}
}

// step is one of sweep's steps, at the ledger's time, bounded by timeout.
func (a *app) step(sw *reconcile.Sweeper, st reconcile.Store, timeout time.Duration) (time.Time, reconcile.Stats, error) {
	ctx, cancel := context.WithTimeout(a.ctx, timeout)
	defer cancel()
	now, ok, err := st.Now(ctx)
	if err != nil {
		return a.now(), reconcile.Stats{}, fmt.Errorf("reading the ledger's clock: %w", err)
	}
	if !ok {
		now = a.now()
	}
	stats, err := sw.Step(ctx, now)
	return now, stats, err
}

// stepWait is how long sweep waits after a step at now: until next (the
// ledger's next due order), at least minStepGap, at most interval.
func stepWait(now, next time.Time, interval time.Duration) time.Duration {
	wait := interval
	if !next.IsZero() {
		wait = min(next.Sub(now), interval)
	}
	return max(wait, minStepGap, interval/5)
}
