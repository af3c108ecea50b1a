// Package link is `upicollect link`: create a hosted payment link.
package link

import (
	"context"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
)

// LinkOptions are what `upicollect link` runs with.
type LinkOptions struct {
	IO     *iostreams.IOStreams
	Ctx    context.Context
	Client cmdutil.ClientFunc

	Conn   cmdutil.ConnFlags
	Create cmdutil.CreateFlags
	JSON   bool
}

// linkJSON is the --json form of a payment link.
type linkJSON struct {
	PaymentLink string `json:"payment_link"`
	Message     string `json:"message"`
}

// NewCmdLink is `upicollect link`; runF, when not nil, runs instead of
// linkRun (tests).
func NewCmdLink(f *cmdutil.Factory, runF func(*LinkOptions) error) *cobra.Command {
	opts := &LinkOptions{IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "link --amount RUPEES --note TEXT --name NAME --email EMAIL --mobile MOBILE",
		Short: "Create a hosted payment link to share",
		Long: `Create a link to a hosted payment page, to send by SMS, e-mail or chat.
The service makes the order; a payment link takes no order ID.`,
		Example: `  upicollect link --amount 499 --note "Invoice 7" --name "Ravi Kumar" \
    --email ravi@example.com --mobile 9876543210 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx = cmd.Context()
			opts.Client = func() (*upicollect.Client, *cmdutil.DryRun, error) { return f.Client(&opts.Conn) }
			if runF != nil {
				return runF(opts)
			}
			return linkRun(opts)
		},
	}
	cmdutil.AddCreateFlags(cmd, &opts.Create)
	cmdutil.AddConnFlags(cmd, &opts.Conn, true)
	cmdutil.AddJSONFlag(cmd, &opts.JSON, cmdutil.JSONUsage)
	return cmd
}

func linkRun(opts *LinkOptions) error {
	return cmdutil.CallOnce(opts.IO, opts.JSON, opts.Client, func(c *upicollect.Client) (*upicollect.PaymentLink, error) {
		return c.CreatePaymentLink(opts.Ctx, &upicollect.LinkParams{
			Amount: opts.Create.Amount, Note: opts.Create.Note, Customer: opts.Create.Customer,
		})
	}, func(pl *upicollect.PaymentLink) error {
		if opts.JSON {
			return opts.IO.PrintJSON(linkJSON{PaymentLink: pl.URL, Message: pl.Message})
		}
		return opts.IO.PrintFields(iostreams.Field{Name: "Link", Value: pl.URL}, iostreams.Field{Name: "Message", Value: pl.Message})
	})
}
