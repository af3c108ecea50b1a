package main

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
)

func (a *app) waitCmd() *cobra.Command {
	var (
		conn    connFlags
		timeout time.Duration
		unknown time.Duration
		poll    time.Duration
		amount  upicollect.Money
	)
	cmd := &cobra.Command{
		Use:   "wait ORDER_ID",
		Short: "Wait until a payment succeeds, fails or is rejected",
		Long: `Poll the status of an order until it is final and print it. Exits 0 on
SUCCESS, 6 on FAIL or REJECT, 5 when --timeout passes first, 130 on Ctrl-C.
An order the service still does not know after --unknown-timeout (a typo,
an order never created) ends the wait with exit 3; its default is longer
than an intent or a collect request lives, so a real payer is never cut off,
and longer than the default --timeout: give a --timeout above it (or 0) to
tell an unknown order from a slow payer.
With --amount, a SUCCESS for another amount exits 6: paid, but not as
ordered. A wait that fails says what the last check saw and why it failed
("connection refused").
On a terminal a spinner on stderr shows the time waited and the current
status. With --json, one line per status change, the final status last.`,
		Example: `  upicollect wait ORD20261122150405ABCD1234 --timeout 10m --amount 499 && echo paid
  upicollect wait ORD20261122150405ABCD1234 --json | jq -r .txn_status`,
		Args:              exactArgs("ORDER_ID"),
		ValidArgsFunction: cobra.NoFileCompletions, // order IDs and links are not files
		RunE: a.runE(func(_ *cobra.Command, args []string) error {
			c, _, err := a.client(&conn)
			if err != nil {
				return err
			}
			defer c.CloseIdleConnections()
			return a.wait(c, args[0], waitLimits{timeout: timeout, unknown: unknown, poll: poll, amount: amount})
		}),
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Minute, "give up after this long (exit 5); 0 waits until Ctrl-C")
	cmd.Flags().DurationVar(&unknown, "unknown-timeout", defaultUnknownTimeout,
		"give up on an order the service still does not know after this long (exit 3); 0 never")
	cmd.Flags().DurationVar(&poll, "poll-interval", 0, "shortest time between status checks (default: the SDK's)")
	_ = cmd.Flags().MarkHidden("poll-interval")
	cmd.Flags().Var(moneyFlag{&amount}, "amount", "the amount the order asks, in rupees: a SUCCESS for another amount exits 6")
	a.addConnFlags(cmd, &conn, false)
	return cmd
}

// statusPrinter prints a status line whenever the status changes; the SDK
// calls it after every poll.
type statusPrinter struct {
	mu   sync.Mutex
	last *upicollect.PaymentStatus
	a    *app
	sp   *spinner // nil when not drawn
}

func (p *statusPrinter) seen(st *upicollect.PaymentStatus) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sp != nil {
		p.sp.setStatus(shortStatus(st))
	}
	if p.last != nil && sameStatus(p.last, st) {
		return
	}
	p.last = st
	if p.a.json {
		_ = p.a.printJSON(toStatusJSON(st))
	}
}

// defaultUnknownTimeout is wait's --unknown-timeout: longer than an intent
// or a collect request lives (minutes), so an order nobody has started to
// pay yet, which the service also answers as not found, is never given up
// on while its payer may still act; a typo ends instead of polling until
// --timeout, or forever with --timeout 0.
const defaultUnknownTimeout = 10 * time.Minute

// waitLimits are what ends a wait: its whole length, the wait for an order
// the service does not know, the shortest time between polls (0: the
// SDK's), and the amount a SUCCESS must be for (0: any).
type waitLimits struct {
	timeout, unknown, poll time.Duration
	amount                 upicollect.Money
}

func (a *app) wait(c *upicollect.Client, orderID string, lim waitLimits) error {
	timeout, poll := lim.timeout, lim.poll
	ctx := a.ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	p := &statusPrinter{a: a}
	if showSpinner(a.json, a.stderrTTY, a.getenv) {
		p.sp = startSpinner(a.stderr, orderID, a.getenv(envNoColor) == "")
	}
	opts := []upicollect.WaitOption{upicollect.WithOnPoll(p.seen), upicollect.WithUnknownOrderTimeout(lim.unknown),
		upicollect.WithExpectedAmount(lim.amount)}
	opts = append(opts, upicollect.WithMaxWait(maxWaitFor(timeout)))
	if poll > 0 {
		opts = append(opts, upicollect.WithPollInterval(poll, 4*poll))
	}
	st, err := c.WaitForPayment(ctx, orderID, opts...)
	if p.sp != nil {
		p.sp.stop()
	}
	if err != nil {
		return a.waitFailed(orderID, st, err, lim, p)
	}
	if a.json {
		p.seen(st) // printed only if the last poll's line was not this one
	} else if err := a.printStatus(st); err != nil {
		return err
	}
	return silentExit(statusExit(st.TxnStatus))
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

// waitFailed is the error of a wait that ended without a final state as
// ordered: interrupted, timed out, an order still unknown, or a SUCCESS
// for another amount than --amount. Each says what the last check saw,
// and why it failed when it did ("connection refused").
func (a *app) waitFailed(orderID string, st *upicollect.PaymentStatus, err error, lim waitLimits, p *statusPrinter) error {
	last := "no status seen"
	if st != nil {
		last = "still " + shortStatus(st)
	}
	if why := lastCheckFailure(err); why != "" {
		last += "; the last check failed: " + why
	}
	switch {
	case a.ctx.Err() != nil:
		return interrupted(a.ctx, fmt.Errorf("order %s: %s", orderID, last))
	case errors.Is(err, context.DeadlineExceeded):
		return &exitError{code: exitUnknown, kind: kindTimeout,
			err: fmt.Errorf("order %s: %s after %s", orderID, last, lim.timeout)}
	case errors.Is(err, upicollect.ErrNotFound) && st != nil && st.NotFound:
		return &exitError{code: exitRefused, kind: "not_found", err: fmt.Errorf(
			"order %s: not found: the service still does not know this order after %s (--unknown-timeout): a typo, or an order never created",
			orderID, lim.unknown)}
	case errors.Is(err, upicollect.ErrAmountMismatch) && st != nil:
		if a.json {
			p.seen(st)
		} else if perr := a.printStatus(st); perr != nil {
			return perr
		}
		return &exitError{code: exitPaymentFailed, kind: "amount_mismatch", err: fmt.Errorf(
			"order %s: paid %s, but --amount is %s: not paid as ordered; do not ship it", orderID, st.Amount, lim.amount)}
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

// shortStatus is the state in a few words: "PENDING, not found" for an
// order the service does not know.
func shortStatus(st *upicollect.PaymentStatus) string {
	if st.NotFound {
		return string(st.TxnStatus) + ", not found"
	}
	return string(st.TxnStatus)
}
