// Command checkout is a small merchant backend on net/http: a product page;
// a checkout that creates an order request and sends the payer to the
// service's hosted checkout page (CreateOrderRequest, the flow the vendor's
// own shop plugins use), or, as the second choice, creates a payment intent
// and shows it on the shop's own pay page; and a return page that
// confirms the payment through the ledger (reconcile.Sweeper.Confirm). A
// sweeper runs beside the shop for the payers who never come back, and one
// handler credits each order once only, whichever of the return page and
// the sweeper learns the payment first, however often the customer's
// browser comes back. An order the service does not know (yet) is shown as
// "no payment has reached us", never as a payment in progress.
//
// The pay page is the pattern for showing an intent. A laptop cannot open
// a upi: link, so it shows the QR code (paypage.QR, as a data: URL) for the
// payer to scan with a phone; a phone cannot scan its own screen, so it
// shows a button per UPI app (paypage.Links) first. A CSS media query
// picks, by the screen's width and pointer, never the user agent. No page
// sends a laptop's browser to a upi: link; "I have paid" leads to the
// return page, which checks the order.
//
//	go run ./examples/checkout            # against an embedded sandbox
//	open http://127.0.0.1:8080/
//
// With UPICOLLECT_BASE_URL and the credentials set it uses that service.
// -addr 127.0.0.1:0 picks a free port; the log's "shop on" line names it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to serve the shop on")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := serve(ctx, *addr); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

func serve(ctx context.Context, addr string) error {
	client, sandboxURL, closeFn, err := newClient()
	if err != nil {
		return err
	}
	defer closeFn()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s, err := newShop(client, "http://"+ln.Addr().String(), sandboxURL)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second}
	// The sweeper beside the shop: it checks every tracked order on its
	// schedule until it is final, and delivers through the same handler.
	go func() { _ = s.sweeper.Run(ctx) }()
	go func() {
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
	}()
	log.Printf("shop on http://%s/", ln.Addr())
	return srv.Serve(ln)
}

// newClient uses the real service when UPICOLLECT_BASE_URL is set, an
// embedded sandbox otherwise (its URL is returned for the demo's pay link).
func newClient() (*upicollect.Client, string, func(), error) {
	if base := os.Getenv(upicollect.EnvBaseURL); base != "" {
		creds, err := upicollect.CredentialsFromEnv()
		if err != nil {
			return nil, "", nil, err
		}
		c, err := upicollect.NewClient(creds, upicollect.WithBaseURL(base), upicollect.WithUserAgent("checkout-example"))
		return c, "", func() {}, err
	}
	sb := sandbox.New()
	fmt.Printf("sandbox at %s\n", sb.URL())
	return sb.Client(upicollect.WithUserAgent("checkout-example")), sb.URL(), sb.Close, nil
}
