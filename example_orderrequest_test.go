package upicollect_test

import (
	"context"
	"fmt"
	"log"

	"github.com/upicollect/upicollect-go"
)

// The hosted checkout: create an order request, send the payer to its
// PaymentURL, and when they come back confirm with the status check,
// comparing the amount before crediting.
func ExampleClient_CreateOrderRequest() {
	sb := exampleSandbox()
	defer sb.Close()
	client := sb.Client()
	ctx := context.Background()

	// Store the order, with its id, before calling: whatever happens to the
	// call, the order can then be checked.
	orderID, amount := "ORD-2001", upicollect.Rupees(499) // upicollect.NewOrderID() makes a unique id
	or, err := client.CreateOrderRequest(ctx, &upicollect.OrderRequestParams{
		Amount:      amount,
		OrderID:     orderID,
		RedirectURL: "https://shop.example.com/return?order=" + orderID, // comes back exactly as given
		Note:        "Order 2001",
		Customer:    exampleCustomer,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("send the payer to:", or.PaymentURL) // e.g. http.Redirect(w, r, or.PaymentURL, http.StatusSeeOther)

	// The payer comes back to the redirect URL. That proves nothing by
	// itself: the status check decides.
	confirm := func() {
		st, err := client.CheckPaymentStatus(ctx, orderID)
		switch {
		case err != nil:
			fmt.Println("could not check yet:", err) // the order is stored: check again later
		case st.NotFound:
			fmt.Println("no payment has reached the service yet") // not "in progress"
		case st.Paid() && st.Amount == amount:
			fmt.Println("paid", st.Amount, "- credit the order once")
		case st.Paid():
			fmt.Println("paid", st.Amount, "instead of", amount, "- do not credit")
		case st.TxnStatus.Terminal():
			fmt.Println("payment ended", st.TxnStatus)
		default:
			fmt.Println("pending")
		}
	}
	confirm()
	if _, err := sb.Pay(orderID); err != nil { // the sandbox plays the payer
		log.Fatal(err)
	}
	confirm()
	// Output:
	// send the payer to: https://sandbox.example.com/sandbox/pay/ORD-2001
	// no payment has reached the service yet
	// paid 499.00 - credit the order once
}
