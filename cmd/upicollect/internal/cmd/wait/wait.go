// Package wait is `upicollect wait`: poll a payment until it is final.
package wait

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/status"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
)

// WaitOptions are what `upicollect wait` runs with.
type WaitOptions struct {
	IO     *iostreams.IOStreams
	Ctx    context.Context
	Client cmdutil.ClientFunc

	Conn    cmdutil.ConnFlags
	OrderID string
	Limits  Limits
	JSON    bool
}

// NewCmdWait is `upicollect wait`; runF, when not nil, runs instead of
// waitRun (tests).
func NewCmdWait(f *cmdutil.Factory, runF func(*WaitOptions) error) *cobra.Command {
	opts := &WaitOptions{IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "wait ORDER_ID",
		Short: "Wait until a payment succeeds, fails or is rejected",
		Long: `Poll the status of an order until it is final and print it. Exits 0 on
SUCCESS, 6 on FAIL or REJECT, 130 on Ctrl-C. Two windows end a wait sooner:

  --unknown-timeout (default 10m): an order the service still does not know
    after this long (a mistyped id, an order never created) ends the wait
    with exit 3. The service answers an order nobody has started to pay as
    unknown too ("waiting for the payer"), so this is longer than an intent
    or a collect request lives: a real payer is never cut off.
  --timeout (default 15m): the whole wait; when it passes first, exit 5.

With the defaults a mistyped id ends with exit 3 after 10 minutes and a
payer who never pays with exit 5 after 15; a --timeout at or below
--unknown-timeout makes the unknown-order exit unreachable.
With --amount, a SUCCESS for another amount exits 6: paid, but not as
ordered. A wait that fails says what the last check saw and why it failed
("connection refused").
On a terminal a spinner on stderr shows the time waited and the current
status. With --json, one line per status change, the final status last.`,
		Example: `  upicollect wait ORD20261122150405ABCD1234 --timeout 10m --amount 499 && echo paid
  upicollect wait ORD20261122150405ABCD1234 --json | jq -r .txn_status`,
		Args:              cmdutil.ExactArgs("ORDER_ID"),
		ValidArgsFunction: cobra.NoFileCompletions, // order IDs and links are not files
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx = cmd.Context()
			opts.Client = func() (*upicollect.Client, *cmdutil.DryRun, error) { return f.Client(&opts.Conn) }
			opts.OrderID = args[0]
			if runF != nil {
				return runF(opts)
			}
			return waitRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.DurationVar(&opts.Limits.Timeout, "timeout", defaultTimeout, "give up after this long (exit 5); 0 waits until Ctrl-C")
	fl.DurationVar(&opts.Limits.Unknown, "unknown-timeout", defaultUnknownTimeout,
		"give up on an order the service still does not know after this long (exit 3); 0 never")
	fl.DurationVar(&opts.Limits.Poll, "poll-interval", 0, "shortest time between status checks (default: the SDK's)")
	_ = fl.MarkHidden("poll-interval")
	fl.Var(cmdutil.MoneyFlag{M: &opts.Limits.Amount}, "amount", "the amount the order asks, in rupees: a SUCCESS for another amount exits 6")
	cmdutil.AddConnFlags(cmd, &opts.Conn, false)
	cmdutil.AddJSONFlag(cmd, &opts.JSON, cmdutil.JSONUsage)
	return cmd
}

func waitRun(opts *WaitOptions) error {
	c, _, err := opts.Client()
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()
	return wait(opts, c)
}

// statusPrinter prints a status line whenever the status changes; the SDK
// calls it after every poll.
type statusPrinter struct {
	mu      sync.Mutex
	last    *upicollect.PaymentStatus
	io      *iostreams.IOStreams
	jsonOut bool
	sp      *spinner // nil when not drawn
}

func (p *statusPrinter) seen(st *upicollect.PaymentStatus) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sp != nil {
		p.sp.setStatus(status.Short(st))
	}
	if p.last != nil && sameStatus(p.last, st) {
		return
	}
	p.last = st
	if p.jsonOut {
		_ = p.io.PrintJSON(status.ToJSON(st))
	}
}

// defaultUnknownTimeout is wait's --unknown-timeout: longer than an intent
// or a collect request lives (minutes), so an order nobody has started to
// pay yet, which the service also answers as not found, is never given up
// on while its payer may still act; a typo ends instead of polling until
// --timeout, or forever with --timeout 0.
const defaultUnknownTimeout = 10 * time.Minute

// defaultTimeout is wait's --timeout: the SDK's own bound on a wait
// (upicollect.DefaultMaxWait, 15 minutes), minutes longer than
// defaultUnknownTimeout, so that the poll that finds an order still unknown
// comes well before the timeout and a mistyped id ends with exit 3, not 5.
const defaultTimeout = upicollect.DefaultMaxWait

// Limits are what ends a wait: its whole length, the wait for an order
// the service does not know, the shortest time between polls (0: the
// SDK's), and the amount a SUCCESS must be for (0: any).
type Limits struct {
	Timeout, Unknown, Poll time.Duration
	Amount                 upicollect.Money
}

func wait(opts *WaitOptions, c *upicollect.Client) error {
	lim, orderID := opts.Limits, opts.OrderID
	timeout, poll := lim.Timeout, lim.Poll
	ctx := opts.Ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	p := &statusPrinter{io: opts.IO, jsonOut: opts.JSON}
	if opts.IO.CanDraw(opts.JSON) {
		p.sp = startSpinner(opts.IO.ErrOut, orderID, opts.IO.ColorEnabled())
	}
	wopts := []upicollect.WaitOption{upicollect.WithOnPoll(p.seen), upicollect.WithUnknownOrderTimeout(lim.Unknown),
		upicollect.WithExpectedAmount(lim.Amount)}
	wopts = append(wopts, upicollect.WithMaxWait(maxWaitFor(timeout)))
	if poll > 0 {
		wopts = append(wopts, upicollect.WithPollInterval(poll, 4*poll))
	}
	st, err := c.WaitForPayment(ctx, orderID, wopts...)
	if p.sp != nil {
		p.sp.stop()
	}
	if err != nil {
		return failed(opts, st, err, p)
	}
	if opts.JSON {
		p.seen(st) // printed only if the last poll's line was not this one
	} else if err := status.Print(opts.IO, false, st); err != nil {
		return err
	}
	return cmdutil.SilentExit(cmdutil.StatusExit(st.TxnStatus))
}

// untilInterrupted is the SDK's bound for `wait --timeout 0`: the SDK has
// no unbounded wait (DefaultMaxWait is 15 minutes), and a century is as
// good as until Ctrl-C.
const untilInterrupted = 100 * 365 * 24 * time.Hour

// maxWaitFor is the SDK's WithMaxWait for --timeout: the timeout itself,
// so that one longer than DefaultMaxWait is honoured, or untilInterrupted
// for 0.
func maxWaitFor(timeout time.Duration) time.Duration {
	if timeout <= 0 {
		return untilInterrupted
	}
	return timeout
}

// failed is the error of a wait that ended without a final state as
// ordered: interrupted, timed out, an order still unknown, or a SUCCESS
// for another amount than --amount. Each says what the last check saw,
// and why it failed when it did ("connection refused").
func failed(opts *WaitOptions, st *upicollect.PaymentStatus, err error, p *statusPrinter) error {
	orderID, lim := opts.OrderID, opts.Limits
	last := "no status seen"
	if st != nil {
		last = "still " + status.Short(st)
	}
	if why := lastCheckFailure(err); why != "" {
		last += "; the last check failed: " + why
	}
	switch {
	case opts.Ctx.Err() != nil:
		return cmdutil.Interrupted(opts.Ctx, fmt.Errorf("order %s: %s", orderID, last))
	case errors.Is(err, context.DeadlineExceeded):
		return &cmdutil.ExitError{Code: cmdutil.ExitUnknown, Kind: cmdutil.KindTimeout,
			Err: fmt.Errorf("order %s: %s after %s", orderID, last, lim.Timeout)}
	case errors.Is(err, upicollect.ErrNotFound) && st != nil && st.NotFound:
		return &cmdutil.ExitError{Code: cmdutil.ExitRefused, Kind: cmdutil.KindNotFound, Err: fmt.Errorf(
			"order %s: not found: the service still does not know this order after %s (--unknown-timeout): a typo, or an order never created",
			orderID, lim.Unknown)}
	case errors.Is(err, upicollect.ErrAmountMismatch) && st != nil:
		if opts.JSON {
			p.seen(st)
		} else if perr := status.Print(opts.IO, false, st); perr != nil {
			return perr
		}
		return &cmdutil.ExitError{Code: cmdutil.ExitPaymentFailed, Kind: cmdutil.KindAmountMismatch, Err: fmt.Errorf(
			"order %s: paid %s, but --amount is %s: not paid as ordered; do not ship it", orderID, st.Amount, lim.Amount)}
	}
	return err
}

// lastCheckFailure says why the last status check of a failed wait failed,
// from WaitForPayment's error: the network's reason ("dial tcp …: connect:
// connection refused"), or the service's answer; "" when it did not fail.
func lastCheckFailure(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) && !errors.Is(ue.Err, context.Canceled) && !errors.Is(ue.Err, context.DeadlineExceeded) {
		return ue.Err.Error() // without the request's URL, which the user gave
	}
	var ae *upicollect.APIError
	if errors.As(err, &ae) && ae.HTTPStatus != 0 {
		why := "HTTP " + strconv.Itoa(ae.HTTPStatus)
		if ae.Message != "" {
			why += ": " + ae.Message
		}
		return why
	}
	return ""
}

// sameStatus reports whether a and b print the same.
func sameStatus(a, b *upicollect.PaymentStatus) bool {
	return a.OrderID == b.OrderID && a.TxnStatus == b.TxnStatus && a.Amount == b.Amount &&
		a.UTR == b.UTR && a.Message == b.Message
}
