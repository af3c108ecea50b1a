// Command reconcile shows a reconciliation sweeper knowing the final state
// of every order: five orders with different fates in an embedded sandbox,
// and 72 hours of sandbox time walked in a second, one step at each time
// an order is due. Each event reaches the handler once.
//
//	go run ./examples/reconcile
//
// A real shop runs the sweeper with Run on the real clock, on a database
// shared by its processes (the reconcile/sqlstore module), and tracks each
// order when it creates it.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"time"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/sandbox"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// start is when the example's sandbox time begins.
var start = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// sandboxTime is the sandbox's clock, moved by the walk.
type sandboxTime struct {
	mu  sync.Mutex
	now time.Time
}

func (c *sandboxTime) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *sandboxTime) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
}

// fate is what the sandbox's bank does with an order: results at times
// after its creation.
type fate struct {
	id       string
	outcomes []outcome
}

type outcome struct {
	result upicollect.TxnStatus
	after  time.Duration
}

var fates = []fate{
	{"ORD-1", []outcome{{upicollect.TxnSuccess, 2 * time.Minute}}},                                  // paid at the checkout
	{"ORD-2", []outcome{{upicollect.TxnFail, time.Minute}}},                                         // failed
	{"ORD-3", []outcome{{upicollect.TxnFail, time.Minute}, {upicollect.TxnSuccess, 5 * time.Hour}}}, // the bank's late authorisation
	{"ORD-4", []outcome{{upicollect.TxnSuccess, 3 * time.Hour}}},                                    // paid long after the intent expired
	{"ORD-5", nil}, // never paid
}

func run(ctx context.Context, w io.Writer) error {
	clk := &sandboxTime{now: start}
	sb := sandbox.New(sandbox.WithClock(clk.Now))
	defer sb.Close()
	client := sb.Client()
	defer client.CloseIdleConnections()

	// The handler is the merchant's side: called once per event of an
	// order. An error (or a panic) leaves the event to be delivered again.
	handle := func(_ context.Context, e reconcile.Event) error {
		var action string
		switch e.Result {
		case reconcile.Paid:
			action = "fulfil the order"
		case reconcile.Failed:
			action = "tell the payer; keep the order open for a late payment"
		case reconcile.Expired:
			action = "release the stock (" + e.Reason + ")"
		case reconcile.LatePaid:
			action = "money arrived after all: fulfil it, or return " + e.Paid.String() + " INR where the service makes refunds"
		case reconcile.Mismatch:
			action = "paid " + e.Paid.String() + " INR instead of " + e.Expected.String() + ": hold for a person"
		}
		fmt.Fprintf(w, "%-8v %s  %-9s %s\n", e.At.Sub(start), e.Order.ID, e.Result, action)
		return nil
	}
	// One check at a time, so that the events of one step print in the same
	// order every run; a shop keeps the default (8).
	sweeper, err := reconcile.New(client, reconcile.NewMemoryStore(), handle, reconcile.WithConcurrency(1))
	if err != nil {
		return err
	}
	for _, f := range fates {
		_, err := client.CreatePaymentIntent(ctx, &upicollect.IntentParams{
			Amount: upicollect.Rupees(499), OrderID: f.id, RedirectURL: "https://shop.example.com/return",
			Note: "Order " + f.id, Customer: upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"},
		})
		if err != nil {
			return err
		}
		for _, o := range f.outcomes {
			if err := sb.Settle(f.id, o.result, start.Add(o.after)); err != nil {
				return err
			}
		}
		if err := sweeper.Track(ctx, reconcile.Order{ID: f.id, Amount: upicollect.Rupees(499), Created: start}); err != nil {
			return err
		}
	}

	// Step at each time an order is due, until none is.
	var checks, steps int
	for {
		stats, err := sweeper.Step(ctx, clk.Now())
		if err != nil {
			return err
		}
		checks += stats.Checked
		steps++
		if stats.NextDue.IsZero() {
			break
		}
		clk.Set(stats.NextDue)
	}
	fmt.Fprintf(w, "%d status checks in %d steps over %v of sandbox time; every order has its final state\n",
		checks, steps, clk.Now().Sub(start))
	return nil
}
