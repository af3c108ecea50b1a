package reconcile

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/reconcile"
)

// envWebhookSecret is the secret that signs webhook deliveries, when
// --webhook-secret-file is not given.
const envWebhookSecret = "UPICOLLECT_WEBHOOK_SECRET"

// defaultDeliverTimeout bounds one delivery: a command's run or a webhook's
// answer.
const defaultDeliverTimeout = 30 * time.Second

// maxDeliverTimeout keeps a delivery well inside the lease that holds its
// order (reconcile.DefaultLeaseTTL).
const maxDeliverTimeout = 10 * time.Minute

// RunOptions are what `upicollect reconcile run` runs with.
type RunOptions struct {
	ledgerOptions
	Client cmdutil.ClientFunc

	Conn              cmdutil.ConnFlags
	Deliver           string
	DeliverTimeout    time.Duration
	WebhookSecretFile string
	Once              bool
	Interval          time.Duration
	// Clock is --clock: auto, sandbox or local.
	Clock string
	// Consumer is --consumer: "" derives the name from Deliver.
	Consumer string
}

const runLong = `Check the orders tracked in the ledger on their schedule until each has its
final state, and deliver each event once:

  --deliver exec:COMMAND   run COMMAND with /bin/sh -c, the event's JSON on
                           one line (the webhook's Delivery: id, order_id, result,
                           expected_paise, expected, paid_paise, paid, utr,
                           reason, at) on stdin. Exit 0: delivered. Anything
                           else, or running longer than --deliver-timeout:
                           not delivered; its stderr goes to the log and the
                           event comes again, after the ledger's backoff.
                           The command runs in a process group of its own:
                           once it has exited (or was killed), whatever it
                           left running there is killed, so finish any
                           background work before exiting.
                           Its environment is exactly:
                             ` + envDeliveryID + `  the delivery's id
                             ` + envOrderID + `     the order's id
                             ` + envResult + `        the event: paid, failed, ...
                             PATH  the absolute directories of this PATH,
                                   else ` + defaultPath + `
                             HOME  this HOME, else ` + defaultHome + `
                             LANG  this LANG, else ` + defaultLang + `
                           and nothing else of this environment: none of
                           its secrets (the service's keys, the webhook
                           secret, the DSN, PGPASSWORD or any PG* variable).
  --deliver https://URL    POST the event as a signed webhook (see
                           docs/webhooks.md: the signature, the JSON and
                           receivers); a 2xx answer is delivered. The secret is
                           --webhook-secret-file FILE, else $` + envWebhookSecret + `.

Without --deliver run refuses to start: an event is recorded only when it
is delivered, so that the ledger can never say "paid" for an order your
application never heard of. Every delivery of one event carries the same
id: make your handler drop an id it has seen (delivery is at least once).

--once runs one step and exits (1 when an event was not delivered or a
check failed); without it run steps until Ctrl-C, waiting for the next
due order: at most --interval, at least a fifth of it (never two steps
back to back). A failed delivery is retried after a backoff that starts
at --interval and grows with each failure. Several run processes may
share one ledger. The service's credentials come as for every command
('upicollect help environment').

--clock says whose time the sweeper steps on: local (the default) is this
machine's (a PostgreSQL ledger keeps its own); sandbox is the sandbox's at
the base URL (GET /sandbox/clock), so that 'upicollect sandbox advance 3h'
brings a late payment's check due; auto is the sandbox's when the base URL
is a sandbox on this machine, else this machine's.

Every delivery target gets every event once. A run delivers as a
consumer: --consumer NAME, else a name derived from --deliver, so that two
different targets never share deliveries: "exec:" and 12 hex digits of the
command's SHA-256, or "webhook:" and the URL's host and path (12 hex
digits of their SHA-256 when longer than 64 bytes; never the URL's user,
password or query). Runs of one consumer share its deliveries (several
processes of one target); runs of different consumers each deliver every
event, which is checked once, by whichever run finds it first, and
delivered to the others at their next step without another check. A
consumer gets the events recorded from its first run on. Give --consumer
to keep a name when the command or URL changes; a ledger from 0.3.0 has
one consumer, "default": give --consumer default to carry on delivering
as it. 'upicollect reconcile consumers' lists them and removes one.`

// NewCmdRun is `upicollect reconcile run`; runF, when not nil, runs
// instead of runRun (tests).
func NewCmdRun(f *cmdutil.Factory, runF func(*RunOptions) error) *cobra.Command {
	rf := &RunOptions{ledgerOptions: newLedgerOptions(f)}
	cmd := &cobra.Command{
		Use:   "run --dsn DSN --deliver exec:COMMAND|https://URL [--once]",
		Short: "Sweep the ledger and deliver each event to a command or a webhook",
		Long:  runLong,
		Example: `  upicollect reconcile run --dsn sqlite:shop.db --deliver 'exec:php credit.php' --once
  upicollect reconcile run --dsn-file /etc/shop/ledger.dsn --deliver 'exec:php credit.php'
  UPICOLLECT_WEBHOOK_SECRET=… upicollect reconcile run --deliver https://shop.example/upi-webhook`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rf.Ctx = cmd.Context()
			rf.Client = func() (*upicollect.Client, *cmdutil.DryRun, error) { return f.Client(&rf.Conn) }
			if runF != nil {
				return runF(rf)
			}
			return runRun(rf)
		},
	}
	cmdutil.AddConnFlags(cmd, &rf.Conn, false)
	cmdutil.AddJSONFlag(cmd, &rf.JSON, cmdutil.JSONUsage)
	addLedgerFlags(cmd, &rf.ledgerOptions, true)
	fl := cmd.Flags()
	fl.StringVar(&rf.Deliver, "deliver", "", "where each event goes: exec:`COMMAND` or https://URL (required)")
	fl.DurationVar(&rf.DeliverTimeout, "deliver-timeout", defaultDeliverTimeout, "how long one delivery may take")
	fl.StringVar(&rf.WebhookSecretFile, "webhook-secret-file", "", "read the webhook secret from `FILE` (default $"+envWebhookSecret+")")
	fl.BoolVar(&rf.Once, "once", false, "run one step and exit")
	fl.DurationVar(&rf.Interval, "interval", 30*time.Second, "the longest wait between two steps")
	fl.StringVar(&rf.Consumer, "consumer", "", "the `NAME` this run delivers as (default: derived from --deliver; see above)")
	fl.StringVar(&rf.Clock, "clock", clockLocal, "whose time the sweeper steps on: local, sandbox (the sandbox's at the base URL), or auto (the sandbox's when the base URL is a sandbox on this machine, else local)")
	return cmd
}

// runRun checks its flags before any I/O, then sweeps.
func runRun(rf *RunOptions) error {
	if err := rf.checkDSNFlags(); err != nil {
		return err
	}
	if rf.Deliver == "" {
		return cmdutil.UsageError(errors.New("run needs --deliver exec:COMMAND or --deliver https://URL: " +
			"every event it records must reach your application, never only this terminal"))
	}
	if rf.DeliverTimeout <= 0 || rf.DeliverTimeout > maxDeliverTimeout {
		return cmdutil.UsageError(fmt.Errorf("--deliver-timeout %v: want more than 0 and at most %v", rf.DeliverTimeout, maxDeliverTimeout))
	}
	if rf.Interval <= 0 {
		return cmdutil.UsageError(fmt.Errorf("--interval %v: want more than 0", rf.Interval))
	}
	deliver, err := rf.deliverer()
	if err != nil {
		return err
	}
	if rf.Consumer != "" {
		if reconcile.ValidateConsumerName(rf.Consumer) != nil {
			return cmdutil.UsageError(fmt.Errorf("--consumer: %q is not a consumer name: non-empty, at most %d bytes, no control character",
				iostreams.TerminalSafe(rf.Consumer), reconcile.MaxConsumerNameLen))
		}
	}
	switch rf.Clock {
	case clockAuto, clockSandbox, clockLocal:
	default:
		return cmdutil.UsageError(fmt.Errorf("--clock %q: want auto, sandbox or local", rf.Clock))
	}
	c, _, err := rf.Client()
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()
	clk, err := pickClock(rf.Ctx, rf.Clock, rf.Config.Pick(rf.Conn.BaseURL, cmdutil.EnvBaseURL))
	if err != nil {
		return fmt.Errorf("--clock sandbox: %w", err)
	}
	if clk != nil {
		// The sweeper and the ledger step on the sandbox's time: an
		// `upicollect sandbox advance` brings checks due.
		defer clk.close()
		rf.IO.Now, rf.followClock = clk.Now, true
	}
	st, closeDB, err := rf.open(false)
	if err != nil {
		return err
	}
	defer closeDB()
	handler := func(ctx context.Context, e reconcile.Event) error {
		if err := deliver(ctx, e); err != nil {
			return err
		}
		return rf.printDelivered(e)
	}
	// Each delivery ends well within its handler's bound, and that well
	// within the lease that holds its order; a failed delivery is retried
	// after a backoff that starts at --interval.
	handlerTimeout := rf.DeliverTimeout + 5*time.Second
	leaseTTL := max(reconcile.DefaultLeaseTTL, 2*handlerTimeout)
	sw, err := reconcile.New(c, st, handler, reconcile.WithClock(rf.IO.Now),
		reconcile.WithConsumer(rf.consumerName()),
		reconcile.WithHandlerTimeout(handlerTimeout),
		reconcile.WithLeaseTTL(leaseTTL),
		reconcile.WithStepInterval(rf.Interval),
		reconcile.WithStepHook(rf.stepDone))
	if err != nil {
		return err
	}
	if rf.Once {
		r := sw.RunStep(rf.Ctx)
		if rf.Ctx.Err() != nil {
			return cmdutil.Interrupted(rf.Ctx, errors.New("sweeper stopped"))
		}
		if err := rf.printStep(r.At, r.Stats); err != nil {
			return err
		}
		return r.Err
	}
	err = sw.Run(rf.Ctx)
	if rf.Ctx.Err() != nil {
		return cmdutil.Interrupted(rf.Ctx, errors.New("sweeper stopped"))
	}
	return err
}

// stepDone prints what one of the sweeper's steps did, and its errors
// (a check that failed, an event not delivered), which the ledger retries
// on its backoff; an error printing the step stops the sweeper.
func (o *RunOptions) stepDone(_ context.Context, r reconcile.StepReport) error {
	if err := o.printStep(r.At, r.Stats); err != nil {
		return err
	}
	if r.Err != nil {
		for _, line := range strings.Split(cmdutil.ErrorMessage(nil, r.Err), "\n") {
			_ = iostreams.WriteLine(o.IO.ErrOut, "upicollect: "+iostreams.TerminalSafe(line))
		}
	}
	return nil
}

// deliverer returns the delivery --deliver names.
func (rf *RunOptions) deliverer() (reconcile.Handler, error) {
	switch {
	case strings.HasPrefix(rf.Deliver, "exec:"):
		command := strings.TrimSpace(strings.TrimPrefix(rf.Deliver, "exec:"))
		if command == "" {
			return nil, cmdutil.UsageError(errors.New("--deliver exec:COMMAND: the command is empty"))
		}
		x := &execDelivery{command: command, timeout: rf.DeliverTimeout, env: childEnv(rf.Config.Get)}
		return x.deliver, nil
	case strings.HasPrefix(strings.ToLower(rf.Deliver), "https://"), strings.HasPrefix(strings.ToLower(rf.Deliver), "http://"):
		return rf.webhookDelivery()
	}
	return nil, cmdutil.UsageError(errors.New("--deliver: want exec:COMMAND or https://URL"))
}

// webhookSecret is the secret of --deliver https://: the file, else the
// environment; the flag wins. It is never printed.
func (rf *RunOptions) webhookSecret() ([]byte, error) {
	secret := rf.Config.Get(envWebhookSecret)
	if rf.WebhookSecretFile != "" {
		s, err := rf.ReadSecretFile(rf.WebhookSecretFile)
		if err != nil {
			return nil, cmdutil.UsageError(fmt.Errorf("--webhook-secret-file: %w", err))
		}
		secret = s
	}
	if secret == "" {
		return nil, cmdutil.UsageError(errors.New("--deliver https://… signs each delivery: set " + envWebhookSecret + " or --webhook-secret-file FILE"))
	}
	rf.IO.Secrets().Add(secret)
	return []byte(secret), nil
}

// printDelivered prints an event that was delivered.
func (o *RunOptions) printDelivered(e reconcile.Event) error {
	if o.JSON {
		return o.IO.PrintJSON(newEventJSON(e))
	}
	return iostreams.WriteLine(o.IO.Out, eventLine(e))
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
func (o *RunOptions) printStep(at time.Time, s reconcile.Stats) error {
	v := stepJSON{Step: at.Format(time.RFC3339), Checked: s.Checked, Paid: s.Paid, Failed: s.Failed,
		LatePaid: s.LatePaid, Expired: s.Expired, Mismatch: s.Mismatch, Pending: s.Pending, Errors: s.Errors,
		NextDue: cmdutil.OptTime(s.NextDue)}
	if o.JSON {
		return o.IO.PrintJSON(v)
	}
	next := "none"
	if v.NextDue != nil {
		next = *v.NextDue
	}
	return iostreams.WriteLine(o.IO.Out, fmt.Sprintf(
		"step %s: checked %d, paid %d, failed %d, late_paid %d, expired %d, mismatch %d, pending %d, errors %d; next due %s",
		v.Step, v.Checked, v.Paid, v.Failed, v.LatePaid, v.Expired, v.Mismatch, v.Pending, v.Errors, next))
}
