package main

import (
	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
)

func (a *app) requestCmd() *cobra.Command {
	var (
		conn    connFlags
		create  createFlags
		orderID string
		vpa     string
	)
	cmd := &cobra.Command{
		Use:   "request --amount RUPEES --vpa VPA --note TEXT --name NAME --email EMAIL --mobile MOBILE",
		Short: "Send a payment request to a customer's UPI ID",
		Long: `Send a collect request to the customer's UPI ID (VPA). The customer approves
it in their UPI app, or pays on the hosted page at payment_url.`,
		Example: `  upicollect request --amount 499 --vpa ravi@okaxis --note "Order 42" \
    --name "Ravi Kumar" --email ravi@example.com --mobile 9876543210`,
		Args: cobra.NoArgs,
		RunE: a.runE(func(*cobra.Command, []string) error {
			return runCall(a, &conn, func(c *upicollect.Client) (*upicollect.PaymentRequest, error) {
				return c.CreatePaymentRequest(a.ctx, &upicollect.RequestParams{
					Amount: create.amount, OrderID: orderID, VPA: vpa, Note: create.note, Customer: create.customer,
				})
			}, func(pr *upicollect.PaymentRequest) error {
				return a.printPayPage(payPageJSON{OrderID: pr.OrderID, PaymentURL: pr.PaymentURL, Message: pr.Message})
			})
		}),
	}
	addCreateFlags(cmd, &create)
	addOrderIDFlag(cmd, &orderID)
	cmd.Flags().StringVar(&vpa, "vpa", "", "customer's UPI ID, like name@bank")
	a.addConnFlags(cmd, &conn, true)
	return cmd
}
