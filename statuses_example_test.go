package upicollect_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"slices"
	"sort"

	"github.com/upicollect/upicollect-go"
)

func ExampleClient_CheckPaymentStatuses() {
	sb := exampleSandbox()
	defer sb.Close()
	client := sb.Client()
	ctx := context.Background()

	for _, id := range []string{"ORD-2001", "ORD-2002"} {
		_, err := client.CreatePaymentIntent(ctx, &upicollect.IntentParams{
			Amount: upicollect.Rupees(250), OrderID: id, RedirectURL: "https://shop.example.com/return",
			Note: "Order " + id, Customer: exampleCustomer,
		})
		if err != nil {
			log.Fatal(err)
		}
	}
	if _, err := sb.Pay("ORD-2001"); err != nil {
		log.Fatal(err)
	}

	// Any iter.Seq[string] will do: a slice, lines of a file, rows of a query.
	ids := slices.Values([]string{"ORD-2001", "ORD-2002", "ORD-2003", "bad id"})
	var lines []string
	for st, err := range client.CheckPaymentStatuses(ctx, ids, upicollect.WithConcurrency(4)) {
		if err != nil {
			var apiErr *upicollect.APIError
			if errors.As(err, &apiErr) {
				lines = append(lines, fmt.Sprintf("%s: error (validation: %t)", apiErr.OrderID, errors.Is(err, upicollect.ErrValidation)))
			}
			continue
		}
		lines = append(lines, fmt.Sprintf("%s: %s %s", st.OrderID, st.TxnStatus, st.Amount))
	}
	sort.Strings(lines) // results come in completion order
	for _, l := range lines {
		fmt.Println(l)
	}
	// Output:
	// ORD-2001: SUCCESS 250.00
	// ORD-2002: PENDING 0.00
	// ORD-2003: PENDING 0.00
	// bad id: error (validation: true)
}
