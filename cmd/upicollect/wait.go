package main

import (
	"context"
	"errors"
	"fmt"
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
	)
	cmd := &cobra.Command{
		Use:   "wait ORDER_ID",
		Short: "Wait until a payment succeeds, fails or is rejected",
		Long: `Poll the status of an order until it is final and print it. Exits 0 on
SUCCESS, 6 on FAIL or REJECT, 5 when --timeout passes first, 130 on Ctrl-C.
An order the service still does not know after --unknown-timeout (a typo,
an order never created) ends the wait with exit 3; the default is longer
than an intent or a collect request lives, so a real payer is never cut off.
On a terminal a spinner on stderr shows the time waited and the current
status. With --json, one line per status change, the final status last.`,
		Example: `  upicollect wait ORD20261122150405ABCD1234 --timeout 10m && echo paid
  upicollect wait ORD20261122150405ABCD1234 --json | jq -r .txn_status`,
		Args:              exactArgs("ORDER_ID"),
		ValidArgsFunction: cobra.NoFileCompletions, // order IDs and links are not files
		RunE: a.runE(func(_ *cobra.Command, args []string) error {
			c, _, err := a.client(&conn)
			if err != nil {
				return err
			}
			defer c.CloseIdleConnections()
			return a.wait(c, args[0], waitLimits{timeout: timeout, unknown: unknown, poll: poll})
		}),
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Minute, "give up after this long (exit 5); 0 waits until Ctrl-C")
	cmd.Flags().DurationVar(&unknown, "unknown-timeout", defaultUnknownTimeout,
		"give up on an order the service still does not know after this long (exit 3); 0 never")
	cmd.Flags().DurationVar(&poll, "poll-interval", 0, "shortest time between status checks (default: the SDK's)")
	_ = cmd.Flags().MarkHidden("poll-interval")
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

// waitLimits are wait's durations: the whole wait, the wait for an order
// the service does not know, and the shortest time between polls (0: the
// SDK's).
type waitLimits struct{ timeout, unknown, poll time.Duration }

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
	opts := []upicollect.WaitOption{upicollect.WithOnPoll(p.seen), upicollect.WithUnknownOrderTimeout(lim.unknown)}
	opts = append(opts, upicollect.WithMaxWait(maxWaitFor(timeout)))
	if poll > 0 {
		opts = append(opts, upicollect.WithPollInterval(poll, 4*poll))
	}
	st, err := c.WaitForPayment(ctx, orderID, opts...)
	if p.sp != nil {
		p.sp.stop()
	}
	if err != nil {
		last := "no status seen"
		if st != nil {
			last = "still " + shortStatus(st)
		}
		switch {
		case a.ctx.Err() != nil:
			return interrupted(a.ctx, fmt.Errorf("order %s: %s", orderID, last))
		case errors.Is(err, context.DeadlineExceeded):
			return &exitError{code: exitUnknown, kind: kindTimeout,
				err: fmt.Errorf("order %s: %s after %s", orderID, last, timeout)}
		case errors.Is(err, upicollect.ErrNotFound) && st != nil && st.NotFound:
			return &exitError{code: exitRefused, kind: "not_found", err: fmt.Errorf(
				"order %s: not found: the service still does not know this order after %s (--unknown-timeout): a typo, or an order never created",
				orderID, lim.unknown)}
		}
		return err
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
