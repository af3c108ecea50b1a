package reconcile

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/upicollect/upicollect-go/cmd/upicollect/dashboard"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/reconcile"
)

// DefaultStaleAfter is how long a consumer with pending events may go
// without a step before `reconcile consumers` flags it: the dashboard's.
const DefaultStaleAfter = dashboard.DefaultStaleAfter

// ConsumersOptions are what `upicollect reconcile consumers` runs with.
type ConsumersOptions struct {
	ledgerOptions
	Remove     string
	StaleAfter time.Duration
}

// NewCmdConsumers is `upicollect reconcile consumers`; runF, when not nil,
// runs instead of consumersRun (tests).
func NewCmdConsumers(f *cmdutil.Factory, runF func(*ConsumersOptions) error) *cobra.Command {
	opts := &ConsumersOptions{ledgerOptions: newLedgerOptions(f)}
	cmd := &cobra.Command{
		Use:   "consumers [--remove NAME] [--json]",
		Short: "List the ledger's consumers (delivery targets), or remove one",
		Long: `List the ledger's consumers: every delivery target 'reconcile run' (or a Go
sweeper, reconcile.WithConsumer) delivers as, with its pending events (recorded
and not yet delivered to it), the events delivered to it, and when a
sweeper of it last stepped. A consumer with pending events not seen for
longer than --stale-after (several step intervals) is flagged STALE, and
the command then exits 1: run it from cron to learn that a target's
sweeper stopped.

--remove NAME ends a consumer's registration: its pending events are
dropped for it alone (stop its sweepers first: a running one registers it
again). It exits 3 when no consumer has that name.`,
		Example: `  upicollect reconcile consumers --dsn sqlite:shop.db
  upicollect reconcile consumers --remove exec:0a1b2c3d4e5f`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return consumersRun(opts)
		},
	}
	addLedgerFlags(cmd, &opts.ledgerOptions, false)
	fl := cmd.Flags()
	fl.StringVar(&opts.Remove, "remove", "", "remove the consumer `NAME` (its pending events are dropped for it)")
	fl.DurationVar(&opts.StaleAfter, "stale-after", DefaultStaleAfter, "flag a consumer with pending events not seen for this long")
	cmdutil.AddJSONFlag(cmd, &opts.JSON, "print one JSON object a line (errors too) on stdout")
	return cmd
}

// consumerJSON is one consumer as --json prints it.
type consumerJSON struct {
	Name      string  `json:"name"`
	Pending   int     `json:"pending"`
	Delivered int     `json:"delivered"`
	LastSeen  *string `json:"last_seen"`
	Stale     bool    `json:"stale"`
}

// errStaleConsumers is the exit of a listing that flagged a consumer.
var errStaleConsumers = errors.New("a consumer with pending events has not been seen for longer than --stale-after")

func consumersRun(opts *ConsumersOptions) error {
	if err := opts.checkDSNFlags(); err != nil {
		return err
	}
	if opts.StaleAfter <= 0 {
		return cmdutil.UsageError(fmt.Errorf("--stale-after %v: want more than 0", opts.StaleAfter))
	}
	st, closeDB, err := opts.open(true)
	if err != nil {
		return err
	}
	defer closeDB()
	if opts.Remove != "" {
		err := st.RemoveConsumer(opts.Ctx, opts.Remove)
		if errors.Is(err, reconcile.ErrNoConsumer) {
			return &cmdutil.ExitError{Code: cmdutil.ExitRefused, Kind: "no_consumer",
				Err: fmt.Errorf("consumers --remove %s: %w", iostreams.TerminalSafe(opts.Remove), err)}
		}
		if err != nil {
			return fmt.Errorf("consumers --remove: %w", err)
		}
		if opts.JSON {
			return opts.IO.PrintJSON(map[string]string{"removed": opts.Remove})
		}
		return iostreams.WriteLine(opts.IO.Out, "removed "+iostreams.TerminalSafe(opts.Remove))
	}
	cs, err := st.Consumers(opts.Ctx)
	if err != nil {
		return fmt.Errorf("consumers: %w", err)
	}
	now, _, err := st.Now(opts.Ctx)
	if err != nil {
		return fmt.Errorf("consumers: %w", err)
	}
	if now.IsZero() {
		now = opts.IO.Now()
	}
	stale := 0
	rows := [][]string{{"CONSUMER", "PENDING", "DELIVERED", "LAST SEEN", ""}}
	for _, c := range cs {
		flag := ""
		if c.Stale(now, opts.StaleAfter) {
			stale++
			flag = "STALE"
		}
		if opts.JSON {
			if err := opts.IO.PrintJSON(consumerJSON{Name: c.Name, Pending: c.Pending, Delivered: c.Delivered,
				LastSeen: cmdutil.OptTime(c.LastSeen), Stale: flag != ""}); err != nil {
				return err
			}
			continue
		}
		seen := cmdutil.IndiaTime(c.LastSeen)
		if seen == "" {
			seen = "never"
		}
		rows = append(rows, []string{iostreams.TerminalSafe(c.Name), strconv.Itoa(c.Pending), strconv.Itoa(c.Delivered), seen, flag})
	}
	if !opts.JSON {
		if len(cs) == 0 {
			if err := iostreams.WriteLine(opts.IO.Out, "no consumers yet: 'reconcile run' registers one at its first step"); err != nil {
				return err
			}
		} else if err := writeTable(opts.IO.Out, rows); err != nil {
			return err
		}
	}
	if stale > 0 {
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure, Kind: "stale_consumer", Err: fmt.Errorf("%d %s", stale, errStaleConsumers)}
	}
	return nil
}
