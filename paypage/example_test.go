package paypage_test

import (
	"context"
	"fmt"
	"html/template"
	"io"
	"log"
	"time"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/paypage"
	"github.com/upicollect/upicollect-go/sandbox"
)

// The examples run against the sandbox, the service's fake on loopback,
// with a fixed clock and public URL so that their output is stable. Real
// code makes its client with upicollect.NewClient.

var exampleCustomer = upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "+91 98765-43210"}

func exampleSandbox(opts ...sandbox.Option) *sandbox.Server {
	return sandbox.New(append([]sandbox.Option{
		sandbox.WithClock(func() time.Time { return time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC) }),
		sandbox.WithPublicURL("https://sandbox.example.com"),
	}, opts...)...)
}

// payPageTmpl is a shop's pay page: the QR code for a payer on a laptop,
// who scans it with a phone, and a button per UPI app for a payer on a
// phone, who cannot scan their own screen. A media query shows each to its
// screen; no link ever sends a laptop's browser to upi://.
var payPageTmpl = template.Must(template.New("pay").Parse(`<style>
.apps { display: none } @media (max-width: 40rem), (hover: none) and (pointer: coarse) { .apps { display: block } }
</style>
<img class="qr" alt="UPI QR code" width="320" height="320" src="{{.QR.DataURL}}">
<nav class="apps">{{range .Apps}}
  <a class="app" href="{{.URL}}">{{.Name}}</a>{{end}}
</nav>
`))

// An intent's links and QR code on a shop's page, with html/template:
// Links gives the app buttons in a stable order with their names, QR the
// image, and both are typed so that the template keeps the upi:,
// app-scheme and data: URLs it would otherwise blank.
func ExampleLinks() {
	sb := exampleSandbox()
	defer sb.Close()
	intent, err := sb.Client().CreatePaymentIntent(context.Background(), &upicollect.IntentParams{
		Amount:      upicollect.Rupees(499),
		OrderID:     "ORD-1001",
		RedirectURL: "https://shop.example.com/return?ref=ORD-1001",
		Note:        "Order 1001",
		Customer:    exampleCustomer,
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, l := range paypage.Links(intent) {
		fmt.Printf("%-12s %s\n", l.Name, l.URL)
	}
	qr, err := paypage.QR(intent, 0)
	if err != nil {
		log.Fatal(err)
	}
	// A handler renders to its http.ResponseWriter.
	if err := payPageTmpl.Execute(io.Discard, map[string]any{"QR": qr, "Apps": paypage.Links(intent)}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// PhonePe      phonepe://pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=ORD-1001&tn=Order%201001&cu=INR
	// Google Pay   tez://upi/pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=ORD-1001&tn=Order%201001&cu=INR
	// Paytm        paytmmp://pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=ORD-1001&tn=Order%201001&cu=INR
	// CRED         credpay://upi/pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=ORD-1001&tn=Order%201001&cu=INR
	// Any UPI app  upi://pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=ORD-1001&tn=Order%201001&cu=INR
}

// The QR code of an intent as a PNG: the service's own image when
// DynamicQR carries one, else drawn by the SDK. The sandbox here sends a
// web address, which the SDK never fetches: it draws the generic link.
func ExampleQR() {
	sb := exampleSandbox()
	defer sb.Close()
	intent, err := sb.Client().CreatePaymentIntent(context.Background(), &upicollect.IntentParams{
		Amount:      upicollect.Rupees(499),
		OrderID:     "ORD-1002",
		RedirectURL: "https://shop.example.com/return?ref=ORD-1002",
		Note:        "Order 1002",
		Customer:    exampleCustomer,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("dynamicQR:", intent.DynamicQR)
	qr, err := paypage.QR(intent, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("source:", qr.Source, "-", qr.Reason)
	fmt.Println("reads as the generic link:", qr.Text == intent.Link)
	fmt.Printf("%dx%d PNG, %s…\n", qr.Size, qr.Size, qr.DataURL()[:30])

	// A sandbox that sends the image itself, as data:image/png;base64.
	sb64 := exampleSandbox(sandbox.WithVariant(sandbox.VariantQRBase64))
	defer sb64.Close()
	intent, err = sb64.Client().CreatePaymentIntent(context.Background(), &upicollect.IntentParams{
		Amount:      upicollect.Rupees(499),
		RedirectURL: "https://shop.example.com/return",
		Note:        "Order 1003",
		Customer:    exampleCustomer,
	})
	if err != nil {
		log.Fatal(err)
	}
	qr, err = paypage.QR(intent, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("source:", qr.Source, "- the service's PNG, as sent")
	// Output:
	// dynamicQR: https://sandbox.example.com/sandbox/qr/ORD-1002.png
	// source: link - dynamicQR is a web address, which the SDK does not fetch
	// reads as the generic link: true
	// 320x320 PNG, data:image/png;base64,iVBORw0K…
	// source: image - the service's PNG, as sent
}
