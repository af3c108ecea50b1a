package main

import (
	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
)

func (a *app) orderCmd() *cobra.Command {
	var (
		conn        connFlags
		create      createFlags
		orderID     string
		redirectURL string
	)
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
		RunE: a.runE(func(*cobra.Command, []string) error {
			return runCall(a, &conn, func(c *upicollect.Client) (*upicollect.OrderRequest, error) {
				return c.CreateOrderRequest(a.ctx, &upicollect.OrderRequestParams{
					Amount: create.amount, OrderID: orderID, RedirectURL: redirectURL,
					Note: create.note, Customer: create.customer,
				})
			}, func(or *upicollect.OrderRequest) error {
				return a.printPayPage(payPageJSON{OrderID: or.OrderID, PaymentURL: or.PaymentURL, Message: or.Message})
			})
		}),
	}
	addCreateFlags(cmd, &create)
	addOrderIDFlag(cmd, &orderID)
	cmd.Flags().StringVar(&redirectURL, "redirect-url", "", "`URL` the payer returns to after the checkout")
	a.addConnFlags(cmd, &conn, true)
	return cmd
}
