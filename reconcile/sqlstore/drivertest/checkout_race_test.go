package drivertest_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
	"github.com/upicollect/upicollect-go/sandbox"
)

// TestCheckoutRacePostgres is the shop of examples/checkout on PostgreSQL,
// raced: every path that learns an outcome (return pages, several at once
// for one order; two sweepers, each with a store of its own as in two
// processes; a script confirming every order) goes through the ledger, and
// the handler is the only place a credit is written, through the event's
// transaction. Each paid order is credited once, and no other order is.
func TestCheckoutRacePostgres(t *testing.T) {
	orders, unpaid := 1000, 100
	if raceEnabled {
		orders, unpaid = 300, 30
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, db := newPostgresDB(t)
	_, err := db.ExecContext(ctx, creditsTable)
	require.NoError(t, err)
	sb := sandbox.Start(t)
	c := sb.Client()
	defer c.CloseIdleConnections()

	// Three sweepers, each on a store of its own over the one database: the
	// shop's (its return page calls Confirm), a second process's and a
	// script's.
	sweeper := func(name string) *reconcile.Sweeper {
		sw, err := reconcile.New(c, newStore(t, sqlstore.Postgres, db), credit(name, sqlstore.Postgres), reconcile.WithBatchSize(64))
		require.NoError(t, err)
		return sw
	}
	shop, other, script := sweeper("shop"), sweeper("other"), sweeper("script")

	// The orders were created a minute ago (so each is due for its first
	// check) and tracked before their creation at the service.
	created := time.Now().Add(-time.Minute)
	ids := make([]string, orders)
	for i := range ids {
		ids[i] = fmt.Sprintf("race-%04d", i)
		require.NoError(t, shop.Track(ctx, reconcile.Order{ID: ids[i], Amount: upicollect.Rupees(499), Created: created}))
		_, err := c.CreatePaymentIntent(ctx, &upicollect.IntentParams{
			Amount: upicollect.Rupees(499), OrderID: ids[i], RedirectURL: "https://shop.example.com/return", Note: "race",
			Customer: upicollect.Customer{Name: "A Payer", Email: "a@example.com", Mobile: "9876543210"},
		})
		require.NoError(t, err)
		if i >= unpaid {
			_, err := sb.Pay(ids[i])
			require.NoError(t, err)
		}
	}

	const pages = 8
	var wg sync.WaitGroup
	for _, sw := range []*reconcile.Sweeper{shop, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				_, err := sw.Step(ctx, time.Now())
				assert.NoError(t, err)
			}
		}()
	}
	wg.Add(1)
	go func() { // a script confirming every order
		defer wg.Done()
		for _, id := range ids {
			_, err := script.Confirm(ctx, id)
			assert.NoError(t, err)
		}
	}()
	for p := range pages { // return pages, several per order at once
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ids {
				st, err := shop.Confirm(ctx, ids[(i+p*orders/pages)%orders])
				if assert.NoError(t, err) && st.State == reconcile.Paid {
					assert.Len(t, st.Events, 1, "a paid order's page reads its one event")
				}
			}
		}()
	}
	wg.Wait()
	_, err = shop.Step(ctx, time.Now())
	require.NoError(t, err)

	got := credits(t, db)
	twice, missed, wrong, credited := 0, 0, 0, 0
	for i, id := range ids {
		n := got[[2]string{id, string(reconcile.Paid)}]
		credited += n
		switch {
		case i < unpaid && n != 0:
			wrong++
		case i >= unpaid && n == 0:
			missed++
		case n > 1:
			twice++
		}
	}
	t.Logf("checkout race on PostgreSQL: %d orders (%d paid), %d return pages, 2 sweepers, a Confirm loop: %d credited, %d twice, %d missed, %d wrong",
		orders, orders-unpaid, pages, credited, twice, missed, wrong)
	assert.Zero(t, twice)
	assert.Zero(t, missed)
	assert.Zero(t, wrong)
	assert.Equal(t, orders-unpaid, credited)
}
