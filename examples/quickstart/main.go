// Command quickstart runs the whole payment flow: create a payment intent,
// show its links, let the payer pay, wait for the status, and print the
// outcome.
//
//	go run ./examples/quickstart
//
// With no configuration it runs against an embedded sandbox and simulates the
// payer. With UPICOLLECT_BASE_URL, UPICOLLECT_MID, UPICOLLECT_PUBLIC_KEY and
// UPICOLLECT_SECRET_KEY set it runs against that service, and waits up to five
// minutes for a real payer to pay the printed link. When that service is a
// sandbox on this machine (`upicollect sandbox`), it also prints the
// sandbox's hosted page, where you play the payer.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"sort"
	"strings"
	"time"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/loopback"
	"github.com/upicollect/upicollect-go/sandbox"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// env is the setup the flow runs with: a client, and a payer to simulate
// when the service is a sandbox (nil against the real service).
type env struct {
	client  *upicollect.Client
	page    string // a local sandbox's base URL, for its hosted page; "" otherwise
	pay     func(orderID string) error
	maxWait time.Duration
	poll    []upicollect.WaitOption
	close   func()
}

func setup(getenv func(string) string) (*env, string, error) {
	if base := getenv(upicollect.EnvBaseURL); base != "" {
		creds, err := upicollect.CredentialsFromEnv()
		if err != nil {
			return nil, "", err
		}
		client, err := upicollect.NewClient(creds, upicollect.WithBaseURL(base), upicollect.WithUserAgent("quickstart"))
		if err != nil {
			return nil, "", err
		}
		e := &env{client: client, maxWait: 5 * time.Minute, close: func() {}}
		if isLoopback(base) {
			e.page = strings.TrimSuffix(base, "/")
		}
		return e, base, nil
	}
	sb := sandbox.New()
	return &env{
		client: sb.Client(upicollect.WithUserAgent("quickstart")),
		pay: func(orderID string) error {
			_, err := sb.Pay(orderID)
			return err
		},
		maxWait: 30 * time.Second,
		poll:    []upicollect.WaitOption{upicollect.WithPollInterval(100*time.Millisecond, 500*time.Millisecond)},
		close:   sb.Close,
	}, "the embedded sandbox at " + sb.URL(), nil
}

func run(ctx context.Context, out io.Writer, getenv func(string) string) error {
	e, where, err := setup(getenv)
	if err != nil {
		return err
	}
	defer e.close()
	fmt.Fprintf(out, "upicollect quickstart, against %s\n\n", where)

	// An order id of our own makes the create safe to retry.
	orderID := upicollect.NewOrderID()
	createCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	params := &upicollect.IntentParams{
		Amount:      upicollect.Rupees(499),
		OrderID:     orderID,
		RedirectURL: "https://shop.example.com/orders/thanks",
		Note:        "Quickstart order",
		Customer:    upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "+91 98765 43210"},
	}
	intent, err := e.client.CreatePaymentIntent(createCtx, params)
	if err != nil {
		return fmt.Errorf("create intent: %w", err)
	}
	// Never show a payer a link that pays another amount or order.
	if err := intent.Verify(params); err != nil {
		return err
	}
	fmt.Fprintln(out, "1. created a payment intent")
	fmt.Fprintf(out, "   order id   %s\n", intent.OrderID)
	fmt.Fprintf(out, "   amount     %s INR\n", intent.Amount)
	fmt.Fprintf(out, "   UPI link   %s\n", intent.Link)
	apps := make([]string, 0, len(intent.AppLinks))
	for app := range intent.AppLinks {
		apps = append(apps, app)
	}
	sort.Strings(apps)
	for _, app := range apps {
		fmt.Fprintf(out, "   %-10s %s\n", app, intent.AppLinks[app])
	}
	fmt.Fprintf(out, "   QR code    %s\n", intent.DynamicQR)
	if !intent.ExpiresAt.IsZero() {
		fmt.Fprintf(out, "   expires    %s\n", intent.ExpiresAt.Format(time.RFC3339))
	}

	if e.pay != nil {
		fmt.Fprintln(out, "\n2. waiting for the payment; the sandbox plays the payer after the first check")
	} else {
		fmt.Fprintln(out, "\n2. waiting for the payment: pay the UPI link or QR code above from a UPI app")
	}
	if e.page != "" {
		fmt.Fprintf(out, "   or play the payer on the sandbox's hosted page:\n   %s/sandbox/pay/%s\n", e.page, url.PathEscape(intent.OrderID))
	}
	var payErr error
	paid := false
	opts := append([]upicollect.WaitOption{
		upicollect.WithMaxWait(e.maxWait),
		upicollect.WithOnPoll(func(s *upicollect.PaymentStatus) {
			fmt.Fprintf(out, "   status %s\n", s.TxnStatus)
			if e.pay != nil && !paid && s.TxnStatus == upicollect.TxnPending {
				paid = true
				fmt.Fprintln(out, "   (sandbox) the payer approves the payment")
				payErr = e.pay(intent.OrderID)
			}
		}),
	}, e.poll...)
	st, err := e.client.WaitForPayment(ctx, intent.OrderID, opts...)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("no payment within %s: %w", e.maxWait, err)
	case err != nil:
		return fmt.Errorf("wait: %w", err)
	case payErr != nil:
		return fmt.Errorf("simulate payer: %w", payErr)
	case !st.Paid():
		return fmt.Errorf("payment ended %s: %s", st.TxnStatus, st.Message)
	}
	fmt.Fprintf(out, "\n%s  order %s  amount %s INR  UTR %s\n", st.TxnStatus, st.OrderID, st.Amount, st.UTR)
	return nil
}

// isLoopback reports whether base names this machine, where a sandbox
// started with `upicollect sandbox` listens.
func isLoopback(base string) bool {
	u, err := url.Parse(base)
	return err == nil && loopback.Host(u.Hostname())
}
