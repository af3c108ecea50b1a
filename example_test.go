package upicollect_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"path"
	"sync/atomic"
	"time"

	"github.com/upicollect/upicollect-go"
)

// exampleService is a tiny stand-in for the Payment Collection Service that
// answers the interface's envelopes deterministically, so that the examples
// run without a network. Real code passes the service's base URL instead.
func exampleService() *httptest.Server {
	var waitPolls atomic.Int32
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if user, pass, ok := r.BasicAuth(); !ok || user != "pub" || pass != "secret" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"status":false,"message":"Authorization header is required"}`)
			return
		}
		_ = r.ParseForm()
		id, amount := r.PostForm.Get("order_id"), r.PostForm.Get("amount")
		if id == "ORD-DUP" {
			w.WriteHeader(http.StatusConflict)
			fmt.Fprint(w, `{"status":false,"statusCode":409,"msg":"Order ID already exists"}`)
			return
		}
		if id == "" {
			id = "PCS1736930000123"
		}
		switch path.Base(r.URL.Path) {
		case "createPaymentIntent":
			fmt.Fprintf(w, `{"status":true,"statusCode":200,"msg":"Intent created","data":{"intent":"upi://pay?pa=acme@okaxis&am=%[2]s.00&tr=%[1]s","phonepe":"phonepe://pay?pa=acme@okaxis&am=%[2]s.00&tr=%[1]s","dynamicQR":"https://pay.example.com/qr/%[1]s","expiry":"2025-01-15 12:30:00","amount":"%[2]s","orderId":"%[1]s"}}`, id, amount)
		case "createPaymentRequest":
			fmt.Fprintf(w, `{"status":true,"statusCode":200,"msg":"Payment request sent","data":{"orderId":"%[1]s","payment_url":"https://pay.example.com/request/%[1]s"}}`, id)
		case "createPaymentLink":
			fmt.Fprint(w, `{"status":true,"statusCode":200,"msg":"Payment link created","data":{"payment_link":"https://pay.example.com/l/AbC123"}}`)
		case "checkPaymentStatus":
			if id == "ORD-PAID" || (id == "ORD-WAIT" && waitPolls.Add(1) > 2) {
				fmt.Fprintf(w, `{"status":true,"statusCode":200,"txnStatus":"SUCCESS","msg":"Payment was successful","data":{"amount":1.08,"UTR":"412345678901","order_id":"%s"}}`, id)
				return
			}
			fmt.Fprint(w, `{"status":false,"statusCode":200,"txnStatus":"PENDING","msg":"Transaction not found"}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"status":false,"statusCode":404,"msg":"Not found"}`)
		}
	}))
}

// exampleClient returns a client of the example service.
func exampleClient(baseURL string) *upicollect.Client {
	client, err := upicollect.NewClient(
		upicollect.Credentials{MID: "MID123", PublicKey: "pub", SecretKey: "secret"},
		upicollect.WithBaseURL(baseURL))
	if err != nil {
		log.Fatal(err)
	}
	return client
}

var exampleCustomer = upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "+91 98765-43210"}

func ExampleNewClient() {
	srv := exampleService()
	defer srv.Close()

	// In production: creds, err := upicollect.CredentialsFromEnv() and the
	// service's https base URL.
	creds := upicollect.Credentials{MID: "MID123", PublicKey: "pub", SecretKey: "secret"}
	client, err := upicollect.NewClient(creds,
		upicollect.WithBaseURL(srv.URL),
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
	srv := exampleService()
	defer srv.Close()
	client := exampleClient(srv.URL)

	intent, err := client.CreatePaymentIntent(context.Background(), &upicollect.IntentParams{
		Amount:      upicollect.Rupees(499),
		OrderID:     "ORD-1001", // use upicollect.NewOrderID() to make retries safe
		RedirectURL: "https://shop.example.com/return",
		Note:        "Order #1001",
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
	// link: upi://pay?pa=acme@okaxis&am=499.00&tr=ORD-1001
	// phonepe: phonepe://pay?pa=acme@okaxis&am=499.00&tr=ORD-1001
	// qr: https://pay.example.com/qr/ORD-1001
	// expires: 2025-01-15T07:00:00Z
}

func ExampleClient_CreatePaymentRequest() {
	srv := exampleService()
	defer srv.Close()
	client := exampleClient(srv.URL)

	req, err := client.CreatePaymentRequest(context.Background(), &upicollect.RequestParams{
		Amount:   upicollect.Rupees(250),
		OrderID:  "ORD-2001",
		VPA:      "ravi.kumar@oksbi",
		Note:     "Order #2001",
		Customer: exampleCustomer,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(req.OrderID, req.PaymentURL)
	// Output:
	// ORD-2001 https://pay.example.com/request/ORD-2001
}

func ExampleClient_CreatePaymentLink() {
	srv := exampleService()
	defer srv.Close()
	client := exampleClient(srv.URL)

	link, err := client.CreatePaymentLink(context.Background(), &upicollect.LinkParams{
		Amount:   upicollect.Rupees(99),
		Note:     "Workshop ticket",
		Customer: exampleCustomer,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(link.URL)
	// Output:
	// https://pay.example.com/l/AbC123
}

func ExampleClient_CheckPaymentStatus() {
	srv := exampleService()
	defer srv.Close()
	client := exampleClient(srv.URL)
	ctx := context.Background()

	st, err := client.CheckPaymentStatus(ctx, "ORD-PAID")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(st.TxnStatus, st.Amount, st.UTR, st.Paid())

	// An order the service does not know yet is PENDING, not an error.
	st, err = client.CheckPaymentStatus(ctx, "ORD-NEW")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(st.TxnStatus, st.Message, st.Paid())
	// Output:
	// SUCCESS 1.08 412345678901 true
	// PENDING Transaction not found false
}

func ExampleClient_WaitForPayment() {
	srv := exampleService()
	defer srv.Close()
	client := exampleClient(srv.URL)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	st, err := client.WaitForPayment(ctx, "ORD-WAIT",
		upicollect.WithPollInterval(time.Millisecond, 2*time.Millisecond), // production: seconds
		upicollect.WithOnPoll(func(s *upicollect.PaymentStatus) { fmt.Println("poll:", s.TxnStatus) }),
	)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		fmt.Println("still unpaid; last status:", st.TxnStatus)
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
	// paid 1.08
}

// Example_errors shows how to tell failures apart with errors.Is and
// errors.As.
func Example_errors() {
	srv := exampleService()
	defer srv.Close()
	client := exampleClient(srv.URL)
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

	// Failures the service answered.
	_, err = client.CreatePaymentIntent(ctx, &upicollect.IntentParams{
		Amount: upicollect.Rupees(499), OrderID: "ORD-DUP", RedirectURL: "https://shop.example.com/return",
		Note: "Order", Customer: exampleCustomer,
	})
	switch {
	case errors.Is(err, upicollect.ErrDuplicateOrderID):
		fmt.Println("that order id is taken")
	case errors.Is(err, upicollect.ErrOutcomeUnknown):
		fmt.Println("check the order's status before creating it again")
	case errors.Is(err, upicollect.ErrUnauthorized):
		fmt.Println("check the credentials")
	}
	var apiErr *upicollect.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.Op, apiErr.HTTPStatus, apiErr.Message)
	}

	// Wrong credentials.
	bad, _ := upicollect.NewClient(upicollect.Credentials{MID: "MID123", PublicKey: "pub", SecretKey: "wrong"},
		upicollect.WithBaseURL(srv.URL))
	_, err = bad.CheckPaymentStatus(ctx, "ORD-1")
	fmt.Println(errors.Is(err, upicollect.ErrUnauthorized), err)
	// Output:
	// amount: must be a whole number of rupees, got 1.50
	// redirect_url: must be an absolute http or https URL
	// customer_mobile: must be a 10-digit mobile number
	// that order id is taken
	// createPaymentIntent 409 Order ID already exists
	// true upicollect: checkPaymentStatus: HTTP 401: Authorization header is required
}

func ExampleMoney() {
	fmt.Println(upicollect.Rupees(499), upicollect.Money(108), upicollect.Money(108).Paise())
	// Output: 499.00 1.08 108
}
