package drivertest_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
	"github.com/upicollect/upicollect-go/sandbox"
)

// A handler credits the merchant's ledger through the event's transaction:
// the credit commits with the event, once.
func Example_tx() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "shop")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "shop.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE ledger (order_id TEXT PRIMARY KEY, paise BIGINT NOT NULL)`); err != nil {
		log.Fatal(err)
	}
	store, err := sqlstore.New(ctx, db, sqlstore.SQLite)
	if err != nil {
		log.Fatal(err)
	}

	sb := sandbox.New() // the service's fake; a shop uses its client of the live service
	defer sb.Close()
	client := sb.Client()

	credit := func(ctx context.Context, e reconcile.Event) error {
		if e.Result != reconcile.Paid && e.Result != reconcile.LatePaid {
			return nil
		}
		_, err := sqlstore.Tx(ctx).ExecContext(ctx, `INSERT INTO ledger (order_id, paise) VALUES (?, ?)`,
			e.Order.ID, e.Status.Amount.Paise())
		return err // an error rolls back the credit and the event: it comes again
	}
	sweeper, err := reconcile.New(client, store, credit)
	if err != nil {
		log.Fatal(err)
	}

	created := time.Now().Add(-10 * time.Second) // due for its first check now
	if _, err := client.CreatePaymentIntent(ctx, &upicollect.IntentParams{
		Amount: upicollect.Rupees(499), OrderID: "ORD-1", RedirectURL: "https://shop.example.com/return",
		Note: "Order 1", Customer: upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"},
	}); err != nil {
		log.Fatal(err)
	}
	if err := sweeper.Track(ctx, reconcile.Order{ID: "ORD-1", Amount: upicollect.Rupees(499), Created: created}); err != nil {
		log.Fatal(err)
	}
	if _, err := sb.Pay("ORD-1"); err != nil {
		log.Fatal(err)
	}

	// A shop calls sweeper.Run(ctx); here, two steps now: the second finds
	// nothing due.
	for range 2 {
		stats, err := sweeper.Step(ctx, time.Now())
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("checked %d, paid %d\n", stats.Checked, stats.Paid)
	}
	var paise int64
	if err := db.QueryRowContext(ctx, `SELECT SUM(paise) FROM ledger`).Scan(&paise); err != nil {
		log.Fatal(err)
	}
	fmt.Println("credited:", upicollect.Money(paise), "INR")
	// Output:
	// checked 1, paid 1
	// checked 0, paid 0
	// credited: 499.00 INR
}

// The checkout writes its order row and the order's tracking in one
// transaction (Sweeper.TrackTx), and only after the commit creates the
// order at the service: the order is tracked if and only if its row
// commits, so no order the service knows escapes the sweepers.
func Example_trackTx() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "shop")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "shop.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE orders (id TEXT PRIMARY KEY, amount_paise BIGINT NOT NULL)`); err != nil {
		log.Fatal(err)
	}
	store, err := sqlstore.New(ctx, db, sqlstore.SQLite)
	if err != nil {
		log.Fatal(err)
	}
	sb := sandbox.New() // the service's fake; a shop uses its client of the live service
	defer sb.Close()
	client := sb.Client()
	sweeper, err := reconcile.New(client, store, func(context.Context, reconcile.Event) error { return nil })
	if err != nil {
		log.Fatal(err)
	}

	checkout := func(orderID string, amount upicollect.Money, fail bool) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback() // after Commit: nothing
		if _, err := tx.ExecContext(ctx, `INSERT INTO orders (id, amount_paise) VALUES (?, ?)`, orderID, amount.Paise()); err != nil {
			return err
		}
		if err := sweeper.TrackTx(ctx, tx, reconcile.Order{ID: orderID, Amount: amount, Created: time.Now()}); err != nil {
			return err
		}
		if fail {
			return errors.New("the shop failed before its commit") // the row and the tracking roll back together
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		_, err = client.CreateOrderRequest(ctx, &upicollect.OrderRequestParams{
			Amount: amount, OrderID: orderID, Note: "Masala chai",
			RedirectURL: "https://shop.example.com/return?order=" + orderID,
			Customer:    upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"},
		})
		return err
	}
	fmt.Println("ORD-1:", checkout("ORD-1", upicollect.Rupees(499), false))
	fmt.Println("ORD-2:", checkout("ORD-2", upicollect.Rupees(250), true))

	for _, id := range []string{"ORD-1", "ORD-2"} {
		st, err := sweeper.Lookup(ctx, id)
		if errors.Is(err, reconcile.ErrNotTracked) {
			fmt.Println(id, "not tracked")
			continue
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(id, "tracked:", st.State, st.Order.Amount)
	}
	// Output:
	// ORD-1: <nil>
	// ORD-2: the shop failed before its commit
	// ORD-1 tracked: pending 499.00
	// ORD-2 not tracked
}

// Migrate brings a database to the schema of this release before any
// sweeper starts (New does the same), and a daily job prunes the orders
// finished more than 90 days ago.
func Example_migrate() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "shop")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "shop.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	from, to, err := sqlstore.Migrate(ctx, db, sqlstore.SQLite)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("schema version %d -> %d\n", from, to)

	store, err := sqlstore.New(ctx, db, sqlstore.SQLite)
	if err != nil {
		log.Fatal(err)
	}
	deleted, err := store.Prune(ctx, time.Now().AddDate(0, 0, -90))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("pruned", deleted)
	// Output:
	// schema version 0 -> 4
	// pruned 0
}
