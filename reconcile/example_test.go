package reconcile_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/sandbox"
)

// A shop's payment path on the ledger: the checkout tracks each order and
// then creates it at the service, the payer's return page confirms it
// (Confirm), and a sweeper (Run) finds the payments of the payers who never
// come back. The handler is the one place an order is credited: once per
// event, whichever path learns it first.
func Example() {
	ctx := context.Background()
	sb := sandbox.New() // the service's fake; a shop's client talks to the live service
	defer sb.Close()
	client := sb.Client()

	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	credit := func(_ context.Context, e reconcile.Event) error {
		fmt.Println("credit", e.Order.ID, e.Result, e.Status.Amount)
		if e.Order.ID == "ORD-2" {
			stopRun() // here only: end the example once the sweeper found ORD-2's payment
		}
		return nil // an error: the event comes again at a later step
	}
	sweeper, err := reconcile.New(client, reconcile.NewMemoryStore(), credit)
	if err != nil {
		log.Fatal(err)
	}

	// The checkout: track the order, then create it at the service (a
	// database store tracks it in the order row's transaction: TrackTx).
	checkout := func(orderID string, created time.Time) {
		order := reconcile.Order{ID: orderID, Amount: upicollect.Rupees(499), Created: created}
		if err := sweeper.Track(ctx, order); err != nil {
			log.Fatal(err)
		}
		if _, err := client.CreateOrderRequest(ctx, &upicollect.OrderRequestParams{
			Amount: order.Amount, OrderID: orderID, Note: "Masala chai",
			RedirectURL: "https://shop.example.com/return?order=" + orderID,
			Customer:    upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"},
		}); err != nil {
			log.Fatal(err)
		}
	}
	checkout("ORD-1", time.Now())
	checkout("ORD-2", time.Now().Add(-time.Minute)) // a minute old: due for a check now

	// Both payers pay on the service's page (the sandbox plays them); only
	// the first comes back to the shop.
	for _, id := range []string{"ORD-1", "ORD-2"} {
		if _, err := sb.Pay(id); err != nil {
			log.Fatal(err)
		}
	}

	// ORD-1's return page: Confirm checks the order now, and the handler
	// credits it. The payer reloads: the ledger answers, nothing is credited
	// twice.
	for _, page := range []string{"return page", "reloaded"} {
		st, err := sweeper.Confirm(ctx, "ORD-1")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(page+":", st.State, len(st.Events), "event")
	}

	// Beside the shop, until shutdown: the sweeper checks every tracked
	// order on its schedule, and finds ORD-2's payment.
	err = sweeper.Run(runCtx)
	fmt.Println("run:", err)
	// Output:
	// credit ORD-1 paid 499.00
	// return page: paid 1 event
	// reloaded: paid 1 event
	// credit ORD-2 paid 499.00
	// run: context canceled
}
