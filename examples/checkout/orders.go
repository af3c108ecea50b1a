package main

import (
	"sync"

	"github.com/upicollect/upicollect-go"
)

// order is the shop's own record of an order.
type order struct {
	ID         string
	Amount     upicollect.Money
	PaymentURL string             // the hosted checkout page, for an order paid there
	Intent     *upicollect.Intent // the intent, for an order paid on the shop's own page
	Credited   bool
	UTR        string
}

// orderBook stands in for the shop's database. What matters is credit: it
// flips Credited under a lock and reports whether this call did it, like
// UPDATE orders SET credited = true WHERE id = $1 AND NOT credited.
type orderBook struct {
	mu      sync.Mutex
	orders  map[string]*order
	credits map[string]int // credit calls by order, for tests
}

func newOrderBook() *orderBook {
	return &orderBook{orders: make(map[string]*order), credits: make(map[string]int)}
}

func (b *orderBook) add(id string, amount upicollect.Money) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.orders[id] = &order{ID: id, Amount: amount}
}

func (b *orderBook) setPaymentURL(id, u string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if o, ok := b.orders[id]; ok {
		o.PaymentURL = u
	}
}

func (b *orderBook) setIntent(id string, in *upicollect.Intent) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if o, ok := b.orders[id]; ok {
		o.Intent = in
	}
}

func (b *orderBook) get(id string) (order, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.orders[id]
	if !ok {
		return order{}, false
	}
	return *o, true
}

// credit marks the order paid and reports true only the first time.
func (b *orderBook) credit(id, utr string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.credits[id]++
	o, ok := b.orders[id]
	if !ok || o.Credited {
		return false
	}
	o.Credited, o.UTR = true, utr
	return true
}

// credited counts the credited orders, for tests.
func (b *orderBook) credited() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, o := range b.orders {
		if o.Credited {
			n++
		}
	}
	return n
}

// creditCalls is how many times credit was called for id, for tests: the
// ledger's handler calls it once per payment.
func (b *orderBook) creditCalls(id string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.credits[id]
}
