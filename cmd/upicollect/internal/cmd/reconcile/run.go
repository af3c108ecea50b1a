package reconcile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
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
	// ReadSecretFile reads --webhook-secret-file (cmdutil.Factory's).
	ReadSecretFile func(path string) (string, error)

	Conn              cmdutil.ConnFlags
	Deliver           string
	DeliverTimeout    time.Duration
	WebhookSecretFile string
	Once              bool
	Interval          time.Duration
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
                           The command also gets UPICOLLECT_DELIVERY_ID,
                           UPICOLLECT_ORDER_ID and UPICOLLECT_RESULT, and
                           not the secrets of this environment.
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
('upicollect help environment').`

// NewCmdRun is `upicollect reconcile run`; runF, when not nil, runs
// instead of runRun (tests).
func NewCmdRun(f *cmdutil.Factory, runF func(*RunOptions) error) *cobra.Command {
	rf := &RunOptions{ledgerOptions: newLedgerOptions(f), ReadSecretFile: f.ReadSecretFile}
	cmd := &cobra.Command{
		Use:   "run --dsn DSN --deliver exec:COMMAND|https://URL [--once]",
		Short: "Sweep the ledger and deliver each event to a command or a webhook",
		Long:  runLong,
		Example: `  upicollect reconcile run --dsn sqlite:shop.db --deliver 'exec:php credit.php' --once
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
	return cmd
}

// runRun checks its flags before any I/O, then sweeps.
func runRun(rf *RunOptions) error {
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
	c, _, err := rf.Client()
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()
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
		x := &execDelivery{command: command, timeout: rf.DeliverTimeout, env: childEnv(os.Environ())}
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

// childEnv is env without the secrets of this process: a delivery command
// needs none of them.
func childEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case cmdutil.EnvSecretKey, envWebhookSecret, envDSN, "UPICOLLECT_DELIVERY_ID", "UPICOLLECT_ORDER_ID", "UPICOLLECT_RESULT":
			continue
		}
		out = append(out, kv)
	}
	return out
}

// maxStderr bounds what a delivery command's stderr adds to the log.
const maxStderr = 2 << 10

// execDelivery runs a command per event.
type execDelivery struct {
	command string
	timeout time.Duration
	env     []string
}

// deliver runs the command with the event's Delivery JSON on stdin. Exit
// 0 is delivered; anything else is an error that quotes the command's
// stderr (at most maxStderr bytes, escaped).
func (x *execDelivery) deliver(ctx context.Context, e reconcile.Event) error {
	body, id, err := deliveryJSON(e)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, x.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", x.command)
	cmd.Stdin = bytes.NewReader(append(body, '\n')) // one line: line-based tools read it whole
	stderr := &boundedBuffer{max: maxStderr}
	cmd.Stderr = stderr
	cmd.Env = append(x.env, "UPICOLLECT_DELIVERY_ID="+id, "UPICOLLECT_ORDER_ID="+e.Order.ID, "UPICOLLECT_RESULT="+string(e.Result))
	cmd.WaitDelay = time.Second // a child that keeps stderr open cannot hold the step
	killGroup(cmd)
	err = cmd.Run()
	if err == nil {
		return nil
	}
	what := err.Error()
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		what = fmt.Sprintf("killed after --deliver-timeout %v", x.timeout)
	}
	if s := stderr.String(); s != "" {
		what += "; stderr: " + s
	}
	return fmt.Errorf("exec delivery failed (%s)", what)
}

// boundedBuffer keeps the first max bytes written to it and counts the
// rest.
type boundedBuffer struct {
	max     int
	buf     bytes.Buffer
	dropped int
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := max(b.max-b.buf.Len(), 0); room < n {
		b.dropped += n - room
		p = p[:room]
	}
	b.buf.Write(p)
	return n, nil
}

// String is what was kept, quoted (every control character escaped), with
// how much was dropped.
func (b *boundedBuffer) String() string {
	s := strings.TrimSpace(b.buf.String())
	if s == "" && b.dropped == 0 {
		return ""
	}
	out := fmt.Sprintf("%q", s)
	if b.dropped > 0 {
		out += fmt.Sprintf(" (%d more bytes)", b.dropped)
	}
	return out
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
