// Package request is `upicollect request`: send a payment request to a
// customer's UPI ID.
package request

import (
	"context"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
)

// RequestOptions are what `upicollect request` runs with.
type RequestOptions struct {
	IO     *iostreams.IOStreams
	Ctx    context.Context
	Client cmdutil.ClientFunc

	Conn    cmdutil.ConnFlags
	Create  cmdutil.CreateFlags
	OrderID string
	VPA     string
	JSON    bool
}

// NewCmdRequest is `upicollect request`; runF, when not nil, runs instead
// of requestRun (tests).
func NewCmdRequest(f *cmdutil.Factory, runF func(*RequestOptions) error) *cobra.Command {
	opts := &RequestOptions{IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "request --amount RUPEES --vpa VPA --note TEXT --name NAME --email EMAIL --mobile MOBILE",
		Short: "Send a payment request to a customer's UPI ID",
		Long: `Send a collect request to the customer's UPI ID (VPA). The customer approves
it in their UPI app, or pays on the hosted page at payment_url.`,
		Example: `  upicollect request --amount 499 --vpa ravi@okaxis --note "Order 42" \
    --name "Ravi Kumar" --email ravi@example.com --mobile 9876543210`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx = cmd.Context()
			opts.Client = func() (*upicollect.Client, *cmdutil.DryRun, error) { return f.Client(&opts.Conn) }
			if runF != nil {
				return runF(opts)
			}
			return requestRun(opts)
		},
	}
	cmdutil.AddCreateFlags(cmd, &opts.Create)
	cmdutil.AddOrderIDFlag(cmd, &opts.OrderID)
	cmd.Flags().StringVar(&opts.VPA, "vpa", "", "customer's UPI ID, like name@bank")
	cmdutil.AddConnFlags(cmd, &opts.Conn, true)
	cmdutil.AddJSONFlag(cmd, &opts.JSON, cmdutil.JSONUsage)
	return cmd
}

func requestRun(opts *RequestOptions) error {
	return cmdutil.CallOnce(opts.IO, opts.JSON, opts.Client, func(c *upicollect.Client) (*upicollect.PaymentRequest, error) {
		return c.CreatePaymentRequest(opts.Ctx, &upicollect.RequestParams{
			Amount: opts.Create.Amount, OrderID: opts.OrderID, VPA: opts.VPA, Note: opts.Create.Note, Customer: opts.Create.Customer,
		})
	}, func(pr *upicollect.PaymentRequest) error {
		return cmdutil.PrintPayPage(opts.IO, opts.JSON, cmdutil.PayPageJSON{OrderID: pr.OrderID, PaymentURL: pr.PaymentURL, Message: pr.Message})
	})
}
