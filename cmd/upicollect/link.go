package main

import (
	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
)

// linkJSON is the --json form of a payment link.
type linkJSON struct {
	PaymentLink string `json:"payment_link"`
	Message     string `json:"message"`
}

func (a *app) linkCmd() *cobra.Command {
	var (
		conn   connFlags
		create createFlags
	)
	cmd := &cobra.Command{
		Use:   "link --amount RUPEES --note TEXT --name NAME --email EMAIL --mobile MOBILE",
		Short: "Create a hosted payment link to share",
		Long: `Create a link to a hosted payment page, to send by SMS, e-mail or chat.
The service makes the order; a payment link takes no order ID.`,
		Example: `  upicollect link --amount 499 --note "Invoice 7" --name "Ravi Kumar" \
    --email ravi@example.com --mobile 9876543210 --json`,
		Args: cobra.NoArgs,
		RunE: a.runE(func(*cobra.Command, []string) error {
			return runCall(a, &conn, func(c *upicollect.Client) (*upicollect.PaymentLink, error) {
				return c.CreatePaymentLink(a.ctx, &upicollect.LinkParams{
					Amount: create.amount, Note: create.note, Customer: create.customer,
				})
			}, func(pl *upicollect.PaymentLink) error {
				if a.json {
					return a.printJSON(linkJSON{PaymentLink: pl.URL, Message: pl.Message})
				}
				return a.printFields(field{"Link", pl.URL}, field{"Message", pl.Message})
			})
		}),
	}
	addCreateFlags(cmd, &create)
	a.addConnFlags(cmd, &conn, true)
	return cmd
}
