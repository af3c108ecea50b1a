// Package reconcile is `upicollect reconcile` and its subcommands run,
// track, show, list and serve: a reconcile ledger from the shell.
package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/reconcile"
)

// envDSN names the ledger of `upicollect reconcile` when neither --dsn nor
// --dsn-file is given: a DSN may carry a password, which a flag would show
// in ps.
const envDSN = "UPICOLLECT_RECONCILE_DSN"

// ledgerOptions are what every reconcile subcommand has: the run's
// streams, context and configuration, and its own --dsn, --create and
// --json.
type ledgerOptions struct {
	IO     *iostreams.IOStreams
	Ctx    context.Context
	Config *cmdutil.Config
	// ReadSecretFile reads --dsn-file and --webhook-secret-file
	// (cmdutil.Factory's).
	ReadSecretFile func(path string) (string, error)

	DSN     string
	DSNFile string
	Create  bool // only on the commands that write: run and track
	JSON    bool
	// followClock makes every store keep IO.Now as its clock, PostgreSQL
	// too (run against a sandbox, on the sandbox's time).
	followClock bool
}

func newLedgerOptions(f *cmdutil.Factory) ledgerOptions {
	return ledgerOptions{IO: f.IOStreams, Config: f.Config, ReadSecretFile: f.ReadSecretFile}
}

// addLedgerFlags adds --dsn and --dsn-file to cmd, and --create when it
// writes.
func addLedgerFlags(cmd *cobra.Command, lo *ledgerOptions, writes bool) {
	f := cmd.Flags()
	f.StringVar(&lo.DSN, "dsn", "", "the ledger's `DSN`, without a password: postgres://…, sqlite:PATH (default $"+envDSN+")")
	f.StringVar(&lo.DSNFile, "dsn-file", "", "read the ledger's DSN, password and all, from the first line of `FILE`")
	if writes {
		f.BoolVar(&lo.Create, "create", false, "create the SQLite file when it does not exist")
	}
}

// checkDSNFlags refuses --dsn with --dsn-file, and a --dsn that holds a
// password (dsnPassword), before any I/O.
func (o *ledgerOptions) checkDSNFlags() error {
	if o.DSN != "" && o.DSNFile != "" {
		return cmdutil.UsageError(errors.New("--dsn and --dsn-file: give one of them"))
	}
	if o.DSN != "" && dsnPassword(o.DSN) {
		o.IO.Secrets().Add(dsnSecrets(o.DSN)...)
		return cmdutil.UsageError(fmt.Errorf("--dsn %s holds a password, which ps and shell history would show: "+
			"give the DSN in $%s or in a file (--dsn-file FILE), or leave the password out "+
			"for the PostgreSQL driver to read from $PGPASSWORD or $PGPASSFILE (~/.pgpass)", redactDSN(o.DSN), envDSN))
	}
	return nil
}

// dsnSource is the ledger's DSN: --dsn, else the first line of --dsn-file,
// else $UPICOLLECT_RECONCILE_DSN.
func (o *ledgerOptions) dsnSource() (string, error) {
	if err := o.checkDSNFlags(); err != nil {
		return "", err
	}
	switch {
	case o.DSN != "":
		return o.DSN, nil
	case o.DSNFile != "":
		dsn, err := o.ReadSecretFile(o.DSNFile)
		if err != nil {
			return "", cmdutil.UsageError(fmt.Errorf("--dsn-file: %w", err))
		}
		name := iostreams.TerminalSafe(o.DSNFile)
		if dsn == "" {
			return "", cmdutil.UsageError(fmt.Errorf("--dsn-file %s: the first line is empty; want the DSN there", name))
		}
		// A line that is no DSN is not shown: it may be part of one, cut
		// where its password held a line break.
		if _, err := parseDSN(dsn); err != nil {
			o.IO.Secrets().Add(dsn)
			return "", cmdutil.UsageError(fmt.Errorf("--dsn-file %s: the first line is no DSN: want postgres://…, postgresql://…, "+
				"sqlite:PATH or file:PATH on one line (percent-encode a password's / # ? @ %% and spaces)", name))
		}
		return dsn, nil
	}
	if dsn := o.Config.Get(envDSN); dsn != "" {
		return dsn, nil
	}
	return "", cmdutil.UsageError(errors.New("missing " + envDSN + ", --dsn or --dsn-file"))
}

// open opens the ledger the flags name, for a command that writes (run,
// track) or only reads (show, list, serve).
func (o *ledgerOptions) open(readOnly bool) (reconcile.Store, func(), error) {
	src, err := o.dsnSource()
	if err != nil {
		return nil, nil, err
	}
	return o.openStore(src, readOnly)
}

const reconcileLong = `Work with a reconcile ledger: the database (reconcile/sqlstore) in which an
application tracks its orders until each has its final state.

  run    check the tracked orders on their schedule and deliver each event
         to a command (exec:COMMAND) or a signed webhook (https://URL)
  track  track an order, for scripts
  show   one order: its state, checks and events
  list   the orders, newest first, by state
  serve  a read-only dashboard of the ledger in the browser
  consumers  the delivery targets: pending, delivered, last seen; --remove

Only run records events, and only with --deliver: an event it records is
delivered, never just printed. show, list and serve only read.

The ledger is --dsn, else the first line of --dsn-file FILE, else
$` + envDSN + `: postgres://… or postgresql://… for PostgreSQL,
sqlite:PATH or file:PATH for SQLite. A --dsn that holds a password is
refused, as ps and shell history show flags: give such a DSN in the
variable or the file, or leave the password out for the PostgreSQL driver
to read from $PGPASSWORD or $PGPASSFILE (~/.pgpass). A SQLite file that
does not exist is refused, unless run or track is given --create. A DSN is
never printed with its password.`

// NewCmdReconcile is `upicollect reconcile` with its subcommands.
func NewCmdReconcile(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "reconcile",
		Short: "Run, inspect and serve a reconcile ledger (run, track, show, list, serve, consumers)",
		Long:  reconcileLong,
		Example: `  export ` + envDSN + `=sqlite:shop.db
  upicollect reconcile run --deliver 'exec:php credit.php' --once
  upicollect reconcile list --state late_paid
  upicollect reconcile serve --addr 127.0.0.1:8790`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cmdutil.UsageError(fmt.Errorf("unknown reconcile command %q: want run, track, show, list, serve or consumers", args[0]))
			}
			return nil
		},
		RunE: func(*cobra.Command, []string) error {
			return cmdutil.UsageError(errors.New("reconcile needs a command: run, track, show, list, serve or consumers " +
				"(the sweeper is 'reconcile run --deliver …': it never consumes events without delivering them)"))
		},
	}
	cmd.AddCommand(NewCmdRun(f, nil), NewCmdTrack(f, nil), NewCmdShow(f, nil), NewCmdList(f, nil), NewCmdServe(f, nil), NewCmdConsumers(f, nil))
	return cmd
}

// eventJSON is one event as `reconcile run` prints it when delivered, and
// as show and list print an order's events. Its money is the event's, named
// as the webhook names it: expected, the amount tracked; paid, what the
// status check reported paid (0.00 for a failed or expired event).
type eventJSON struct {
	Event     string `json:"event"`
	OrderID   string `json:"order_id"`
	Expected  string `json:"expected"`
	Paid      string `json:"paid"`
	TxnStatus string `json:"txn_status"`
	UTR       string `json:"utr"`
	Reason    string `json:"reason,omitempty"`
	At        string `json:"at"`
	// DeliveredTo names the consumers the event reached (show, list).
	DeliveredTo []string `json:"delivered_to,omitempty"`
}

func newEventJSON(e reconcile.Event) eventJSON {
	ev := eventJSON{
		Event: string(e.Result), OrderID: e.Order.ID, Expected: e.Expected.String(), Paid: e.Paid.String(),
		Reason: e.Reason, At: e.At.Format(time.RFC3339), DeliveredTo: e.DeliveredTo,
	}
	if e.Status != nil {
		ev.TxnStatus, ev.UTR = string(e.Status.TxnStatus), e.Status.UTR
	}
	return ev
}

// eventLine is e for a person: "paid  ORDER  expected ₹499.00, paid ₹…  UTR …  (reason)".
func eventLine(e reconcile.Event) string {
	ev := newEventJSON(e)
	line := fmt.Sprintf("%-9s %s  expected %s", ev.Event, ev.OrderID, cmdutil.Rupees(e.Expected))
	if e.Paid != 0 && e.Paid != e.Expected {
		line += ", paid " + cmdutil.Rupees(e.Paid)
	}
	if ev.UTR != "" {
		line += "  UTR " + ev.UTR
	}
	if ev.Reason != "" {
		line += "  (" + ev.Reason + ")"
	}
	return iostreams.TerminalSafe(line)
}

// ledgerError maps the ledger's errors to exit codes: the ledger refused,
// as the service refuses (3).
func ledgerError(err error) error {
	switch {
	case errors.Is(err, reconcile.ErrNotTracked):
		return &cmdutil.ExitError{Code: cmdutil.ExitRefused, Kind: "not_tracked", Err: err}
	case errors.Is(err, reconcile.ErrTrackedDifferently):
		return &cmdutil.ExitError{Code: cmdutil.ExitRefused, Kind: "tracked_differently", Err: err}
	}
	return err
}

// openReader opens the ledger for the commands that only read it: its
// read side.
func (o *ledgerOptions) openReader() (reconcile.Reader, func(), error) {
	st, closeDB, err := o.open(true)
	if err != nil {
		return nil, nil, err
	}
	return st, closeDB, nil
}
