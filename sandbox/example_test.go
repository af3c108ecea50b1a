package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

// Start a sandbox, create an intent with the SDK client wired to it, pay it
// as the customer would, and see the status check report the payment.
func Example() {
	s := sandbox.New(sandbox.WithSeed(42)) // in tests: sandbox.Start(t)
	defer s.Close()
	client := s.Client()
	ctx := context.Background()

	intent, err := client.CreatePaymentIntent(ctx, &upicollect.IntentParams{
		Amount:      upicollect.Rupees(499),
		OrderID:     "order-1001",
		RedirectURL: "https://shop.example/thanks",
		Note:        "Masala chai x 12",
		Customer:    upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "98765 43210"},
	})
	if err != nil {
		fmt.Println("create:", err)
		return
	}
	before, _ := client.CheckPaymentStatus(ctx, intent.OrderID)
	fmt.Println("before:", before.TxnStatus, before.Message)

	utr, err := s.Pay(intent.OrderID) // or press Pay on the hosted page
	if err != nil {
		fmt.Println("pay:", err)
		return
	}
	after, err := client.CheckPaymentStatus(ctx, intent.OrderID)
	if err != nil {
		fmt.Println("status:", err)
		return
	}
	fmt.Println("after:", after.TxnStatus, after.Amount, after.UTR == utr, after.Paid())
	fmt.Println("orders:", len(s.Orders()))
	// Output:
	// before: PENDING Transaction not found
	// after: SUCCESS 499.00 true true
	// orders: 1
}

// Script a server error after the create took effect, and see that a retry
// with the same order_id does not make a second order.
func ExampleServer_InjectFault() {
	s := sandbox.New()
	defer s.Close()
	s.InjectFault(sandbox.Fault{
		Op:        sandbox.OpCreatePaymentLink,
		Status:    503,
		Header:    map[string][]string{"Retry-After": {"1"}},
		Latency:   10 * time.Millisecond,
		Processed: true,
	})
	_, err := s.Client().CreatePaymentLink(context.Background(), &upicollect.LinkParams{
		Amount:   upicollect.Rupees(10),
		Note:     "Tip",
		Customer: upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"},
	})
	fmt.Println(err != nil, len(s.Orders()))
	// Output: true 1
}

// A payment the bank reports failed and then, hours later, successful (a
// late authorisation), walked through on a clock the test moves.
func ExampleServer_Settle() {
	start := time.Date(2025, 1, 15, 10, 0, 0, 0, time.UTC)
	clock := sandbox.NewManualClock(start)
	s := sandbox.New(sandbox.WithClock(clock.Now))
	defer s.Close()
	client := s.Client()
	ctx := context.Background()
	req, err := client.CreatePaymentRequest(ctx, &upicollect.RequestParams{
		Amount:   upicollect.Rupees(250),
		OrderID:  "order-2002",
		VPA:      "ravi.kumar@oksbi",
		Note:     "Invoice 7",
		Customer: upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"},
	})
	if err != nil {
		fmt.Println("create:", err)
		return
	}
	_ = s.Settle(req.OrderID, upicollect.TxnFail, start.Add(2*time.Minute))
	_ = s.Settle(req.OrderID, upicollect.TxnSuccess, start.Add(26*time.Hour))

	for _, d := range []time.Duration{0, 2 * time.Minute, 26 * time.Hour} {
		clock.Set(start.Add(d))
		st, err := client.CheckPaymentStatus(ctx, req.OrderID)
		if err != nil {
			fmt.Println("status:", err)
			return
		}
		fmt.Println(d, st.TxnStatus)
	}
	// Output:
	// 0s PENDING
	// 2m0s FAIL
	// 26h0m0s SUCCESS
}

// Give the merchant a quota of 2 requests a second, as a live service
// would, and read the server's own counts.
func ExampleWithRateLimit() {
	clock := sandbox.NewManualClock(time.Date(2025, 1, 15, 10, 0, 0, 0, time.UTC))
	s := sandbox.New(sandbox.WithClock(clock.Now), sandbox.WithRateLimit(2, 2))
	defer s.Close()
	client := s.Client(upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1}))
	for range 4 {
		_, err := client.CheckPaymentStatus(context.Background(), "order-1")
		fmt.Println(err == nil, errors.Is(err, upicollect.ErrRateLimited))
	}
	st := s.Stats()
	fmt.Println(st.Requests[sandbox.OpCheckPaymentStatus], st.RateLimited)
	// Output:
	// true false
	// true false
	// true false
	// false true
	// 4 1
}
