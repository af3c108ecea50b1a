// Package order is `upicollect order`: create a hosted checkout.
package order

import (
	"context"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
)

// OrderOptions are what `upicollect order` runs with.
type OrderOptions struct {
	IO     *iostreams.IOStreams
	Ctx    context.Context
	Client cmdutil.ClientFunc

	Conn        cmdutil.ConnFlags
	Create      cmdutil.CreateFlags
	OrderID     string
	RedirectURL string
	JSON        bool
}

// NewCmdOrder is `upicollect order`; runF, when not nil, runs instead of
// orderRun (tests).
func NewCmdOrder(f *cmdutil.Factory, runF func(*OrderOptions) error) *cobra.Command {
	opts := &OrderOptions{IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "order --amount RUPEES --note TEXT --name NAME --email EMAIL --mobile MOBILE --redirect-url URL",
		Short: "Create a hosted checkout: a page where the payer picks a UPI app",
		Long: `Create an order on the service's hosted checkout (createOrderRequest, the
endpoint the vendor's own plugins use). Send the payer to payment_url; they
come back to --redirect-url, which proves nothing by itself: confirm the
payment with 'upicollect status' or 'upicollect wait' on the printed order
ID, and compare the amount before crediting it. Without --order-id the SDK
makes one (NewOrderID), so a retry is safe and the order can be checked
whatever happens; it is printed.`,
		Example: `  upicollect order --amount 499 --note "Order 42" --name "Ravi Kumar" \
    --email ravi@example.com --mobile 9876543210 \
    --redirect-url https://shop.example/thanks
  upicollect order ... --json | jq -r .payment_url`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx = cmd.Context()
			opts.Client = func() (*upicollect.Client, *cmdutil.DryRun, error) { return f.Client(&opts.Conn) }
			if runF != nil {
				return runF(opts)
			}
			return orderRun(opts)
		},
	}
	cmdutil.AddCreateFlags(cmd, &opts.Create)
	cmdutil.AddOrderIDFlag(cmd, &opts.OrderID)
	cmd.Flags().StringVar(&opts.RedirectURL, "redirect-url", "", "`URL` the payer returns to after the checkout")
	cmdutil.AddConnFlags(cmd, &opts.Conn, true)
	cmdutil.AddJSONFlag(cmd, &opts.JSON, cmdutil.JSONUsage)
	return cmd
}

func orderRun(opts *OrderOptions) error {
	return cmdutil.CallOnce(opts.IO, opts.JSON, opts.Client, func(c *upicollect.Client) (*upicollect.OrderRequest, error) {
		return c.CreateOrderRequest(opts.Ctx, &upicollect.OrderRequestParams{
			Amount: opts.Create.Amount, OrderID: opts.OrderID, RedirectURL: opts.RedirectURL,
			Note: opts.Create.Note, Customer: opts.Create.Customer,
		})
	}, func(or *upicollect.OrderRequest) error {
		return cmdutil.PrintPayPage(opts.IO, opts.JSON, cmdutil.PayPageJSON{OrderID: or.OrderID, PaymentURL: or.PaymentURL, Message: or.Message})
	})
}
