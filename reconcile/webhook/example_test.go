package webhook_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/webhook"
)

// A sweeper's handler that delivers each event to a shop's URL. Here the
// shop is a test server on loopback (http is allowed there only) that
// checks each delivery with Receive.
func ExampleSender() {
	secret := []byte("whsec_example") // shared with the shop: openssl rand -hex 32
	shop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, err := webhook.Receive(r, secret, webhook.DefaultTolerance)
		if err != nil {
			http.Error(w, "bad delivery", http.StatusBadRequest)
			return
		}
		fmt.Println(d.Result, d.OrderID, d.Paid, d.ID)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer shop.Close()

	send, err := webhook.Sender(shop.URL+"/upicollect-webhook", secret)
	if err != nil {
		log.Fatal(err)
	}
	// reconcile.New(client, store, send) calls it once per event; here by hand:
	err = send(context.Background(), reconcile.NewEvent(
		reconcile.Order{ID: "order-1001", Amount: upicollect.Rupees(499), Created: time.Now()}, reconcile.Paid,
		&upicollect.PaymentStatus{TxnStatus: upicollect.TxnSuccess, Amount: upicollect.Rupees(499), UTR: "412345678901"},
		time.Now(), ""))
	fmt.Println("handled:", err == nil)
	// Output:
	// paid order-1001 499.00 evt_e4feeee24b284b5f6893fb21cc12b7c9
	// handled: true
}

// A shop's webhook endpoint: Receive checks the signature and age; a
// delivery that comes again has the same ID and is answered without
// acting twice.
func ExampleReceive() {
	secret := []byte("whsec_example")
	var mu sync.Mutex
	seen := map[string]bool{} // in a shop: a unique key in its database
	endpoint := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, err := webhook.Receive(r, secret, webhook.DefaultTolerance)
		if err != nil { // ErrBadSignature, ErrTooOld, ErrTooLarge, ...
			http.Error(w, "bad delivery", http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if seen[d.ID] {
			fmt.Println("again:", d.ID)
			return
		}
		seen[d.ID] = true
		fmt.Printf("%s: %s expected, %s paid\n", d.OrderID, d.Expected, d.Paid)
	})
	shop := httptest.NewServer(endpoint)
	defer shop.Close()

	send, err := webhook.Sender(shop.URL, secret)
	if err != nil {
		log.Fatal(err)
	}
	ev := reconcile.NewEvent(reconcile.Order{ID: "order-1003", Amount: upicollect.Rupees(1500), Created: time.Now()},
		reconcile.Mismatch, &upicollect.PaymentStatus{TxnStatus: upicollect.TxnSuccess, Amount: 108}, time.Now(), "")
	_ = send(context.Background(), ev)
	_ = send(context.Background(), ev) // delivered again (the answer was lost, say)

	forged, _ := webhook.Sender(shop.URL, []byte("not the secret"))
	fmt.Println(forged(context.Background(), ev) != nil)
	// Output:
	// order-1003: 1500.00 expected, 1.08 paid
	// again: evt_bd9a5a176a2845404764167975e686e1
	// true
}
