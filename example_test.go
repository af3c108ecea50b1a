package upicollect_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

// The examples run against the sandbox, the service's fake on loopback, with
// a fixed clock, seed and public URL so that their output is stable. Real
// code makes its client with NewClient, the service's https base URL and
// credentials from CredentialsFromEnv.

var exampleNow = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

func exampleSandbox() *sandbox.Server {
	return sandbox.New(
		sandbox.Strict(),
		sandbox.WithClock(func() time.Time { return exampleNow }),
		sandbox.WithSeed(42),
		sandbox.WithPublicURL("https://sandbox.example.com"),
		sandbox.WithCredentials(upicollect.Credentials{MID: "MID123", PublicKey: "pub", SecretKey: "secret"}),
	)
}

var exampleCustomer = upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "+91 98765-43210"}

func ExampleNewClient() {
	sb := exampleSandbox()
	defer sb.Close()

	creds := upicollect.Credentials{MID: "MID123", PublicKey: "pub", SecretKey: "secret"}
	client, err := upicollect.NewClient(creds,
		upicollect.WithBaseURL(sb.URL()), // production: the service's https URL
		upicollect.WithTimeout(10*time.Second),
		upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 4}),
		upicollect.WithRateLimit(20, 5),
		upicollect.WithUserAgent("acme-checkout/2.1"),
	)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("merchant:", client.MID())
	fmt.Println(creds) // the secret key never prints

	// Plain http is refused for anything but loopback.
	_, err = upicollect.NewClient(creds, upicollect.WithBaseURL("http://api.example.com"))
	fmt.Println(err)
	// Output:
	// merchant: MID123
	// {MID:MID123 PublicKey:pub SecretKey:[REDACTED]}
	// upicollect: base URL "http://api.example.com": https is required for a non-loopback host (WithInsecureHTTP allows http)
}

func ExampleClient_CreatePaymentIntent() {
	sb := exampleSandbox()
	defer sb.Close()
	client := sb.Client()

	intent, err := client.CreatePaymentIntent(context.Background(), &upicollect.IntentParams{
		Amount:      upicollect.Rupees(499),
		OrderID:     "ORD-1001", // upicollect.NewOrderID() makes a unique one
		RedirectURL: "https://shop.example.com/return",
		Note:        "Order 1001",
		Customer:    exampleCustomer,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("order:", intent.OrderID)
	fmt.Println("amount:", intent.Amount)
	fmt.Println("link:", intent.Link)
	fmt.Println("phonepe:", intent.AppLinks["phonepe"])
	fmt.Println("qr:", intent.DynamicQR)
	fmt.Println("expires:", intent.ExpiresAt.UTC().Format(time.RFC3339))
	// Output:
	// order: ORD-1001
	// amount: 499.00
	// link: upi://pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=ORD-1001&tn=Order%201001&cu=INR
	// phonepe: phonepe://pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=ORD-1001&tn=Order%201001&cu=INR
	// qr: https://sandbox.example.com/sandbox/qr/ORD-1001.png
	// expires: 2026-01-15T12:05:00Z
}

func ExampleClient_CreatePaymentRequest() {
	sb := exampleSandbox()
	defer sb.Close()
	client := sb.Client()

	req, err := client.CreatePaymentRequest(context.Background(), &upicollect.RequestParams{
		Amount:   upicollect.Rupees(250),
		OrderID:  "ORD-2001",
		VPA:      "ravi.kumar@oksbi",
		Note:     "Order 2001",
		Customer: exampleCustomer,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(req.OrderID, req.PaymentURL)
	// Output:
	// ORD-2001 https://sandbox.example.com/sandbox/pay/ORD-2001
}

func ExampleClient_CreatePaymentLink() {
	sb := exampleSandbox()
	defer sb.Close()
	client := sb.Client()

	link, err := client.CreatePaymentLink(context.Background(), &upicollect.LinkParams{
		Amount:   upicollect.Rupees(99),
		Note:     "Workshop ticket",
		Customer: exampleCustomer,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(link.URL[:len("https://sandbox.example.com/sandbox/pay/utz_")])
	// Output:
	// https://sandbox.example.com/sandbox/pay/utz_
}

func ExampleClient_CheckPaymentStatus() {
	sb := exampleSandbox()
	defer sb.Close()
	client := sb.Client()
	ctx := context.Background()

	// An order the service does not know yet is PENDING, not an error.
	st, err := client.CheckPaymentStatus(ctx, "ORD-3001")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(st.TxnStatus, st.Message, st.Paid())

	_, err = client.CreatePaymentIntent(ctx, &upicollect.IntentParams{
		Amount: upicollect.Rupees(10), OrderID: "ORD-3001", RedirectURL: "https://shop.example.com/return",
		Note: "Order 3001", Customer: exampleCustomer,
	})
	if err != nil {
		log.Fatal(err)
	}
	utr, _ := sb.Pay("ORD-3001") // the sandbox plays the payer

	st, err = client.CheckPaymentStatus(ctx, "ORD-3001")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(st.TxnStatus, st.Amount, st.UTR == utr, st.Paid())
	// Output:
	// PENDING Transaction not found false
	// SUCCESS 10.00 true true
}

func ExampleClient_WaitForPayment() {
	sb := exampleSandbox()
	defer sb.Close()
	client := sb.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // production: minutes
	defer cancel()

	_, err := client.CreatePaymentIntent(ctx, &upicollect.IntentParams{
		Amount: upicollect.Rupees(499), OrderID: "ORD-4001", RedirectURL: "https://shop.example.com/return",
		Note: "Order 4001", Customer: exampleCustomer,
	})
	if err != nil {
		log.Fatal(err)
	}
	polls := 0
	st, err := client.WaitForPayment(ctx, "ORD-4001",
		upicollect.WithExpectedAmount(upicollect.Rupees(499)),             // another amount is ErrAmountMismatch
		upicollect.WithPollInterval(time.Millisecond, 2*time.Millisecond), // production: seconds
		upicollect.WithOnPoll(func(s *upicollect.PaymentStatus) {
			fmt.Println("poll:", s.TxnStatus)
			if polls++; polls == 2 {
				_, _ = sb.Pay("ORD-4001") // the payer approves in their UPI app
			}
		}),
	)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		fmt.Println("still unpaid; last status:", st.TxnStatus)
	case errors.Is(err, upicollect.ErrAmountMismatch):
		fmt.Println("paid", st.Amount, "instead of 499.00: do not credit")
	case err != nil:
		log.Fatal(err)
	case st.Paid():
		fmt.Println("paid", st.Amount) // credit the order once, keyed by its id
	default:
		fmt.Println("payment ended:", st.TxnStatus)
	}
	// Output:
	// poll: PENDING
	// poll: PENDING
	// poll: SUCCESS
	// paid 499.00
}

// Example_errors shows how to tell failures apart with errors.Is and
// errors.As.
func Example_errors() {
	sb := exampleSandbox()
	defer sb.Close()
	client := sb.Client()
	ctx := context.Background()

	// Problems found before sending: every field at once.
	_, err := client.CreatePaymentIntent(ctx, &upicollect.IntentParams{
		Amount: upicollect.Money(150), RedirectURL: "/return", Note: "x",
		Customer: upicollect.Customer{Name: "Ravi", Email: "ravi@example.com", Mobile: "12345"},
	})
	var ve *upicollect.ValidationError
	if errors.As(err, &ve) {
		for _, f := range ve.Fields {
			fmt.Printf("%s: %s\n", f.Field, f.Problem)
		}
	}

	// Failures the service answered: the same order id twice.
	params := &upicollect.IntentParams{
		Amount: upicollect.Rupees(499), OrderID: "ORD-5001", RedirectURL: "https://shop.example.com/return",
		Note: "Order 5001", Customer: exampleCustomer,
	}
	_, _ = client.CreatePaymentIntent(ctx, params)
	_, err = client.CreatePaymentIntent(ctx, params)
	switch {
	case errors.Is(err, upicollect.ErrDuplicateOrderID):
		fmt.Println("that order id is taken")
	case errors.Is(err, upicollect.ErrOutcomeUnknown):
		fmt.Println("check the order's status before creating it again")
	}
	var apiErr *upicollect.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.Op, apiErr.HTTPStatus, apiErr.Message)
	}

	// Wrong credentials.
	bad, _ := upicollect.NewClient(upicollect.Credentials{MID: "MID123", PublicKey: "pub", SecretKey: "wrong"},
		upicollect.WithBaseURL(sb.URL()))
	_, err = bad.CheckPaymentStatus(ctx, "ORD-5001")
	fmt.Println(errors.Is(err, upicollect.ErrUnauthorized), err)
	// Output:
	// amount: must be a whole number of rupees, got 1.50
	// redirect_url: must be an absolute http or https URL
	// customer_mobile: must be a 10-digit mobile number
	// that order id is taken
	// createPaymentIntent 409 Order ID already exists
	// true upicollect: checkPaymentStatus: HTTP 401: Invalid credentials
}

func ExampleMoney() {
	fmt.Println(upicollect.Rupees(499), upicollect.Money(108), upicollect.Money(108).Paise())
	// Output: 499.00 1.08 108
}
