// Package intent is `upicollect intent`: create a payment intent, with UPI
// app links and a QR code.
package intent

import (
	"context"
	"strconv"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/qr"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
)

// IntentOptions are what `upicollect intent` runs with.
type IntentOptions struct {
	IO     *iostreams.IOStreams
	Ctx    context.Context
	Client cmdutil.ClientFunc

	Conn        cmdutil.ConnFlags
	Create      cmdutil.CreateFlags
	OrderID     string
	RedirectURL string
	ShowQR      bool
	JSON        bool
}

// intentJSON is the --json form of an intent.
type intentJSON struct {
	OrderID   string            `json:"order_id"`
	Amount    *string           `json:"amount"`
	Link      string            `json:"link"`
	AppLinks  map[string]string `json:"app_links"`
	DynamicQR string            `json:"dynamic_qr"`
	ExpiresAt *string           `json:"expires_at"`
	Message   string            `json:"message"`
}

// NewCmdIntent is `upicollect intent`; runF, when not nil, runs instead of
// intentRun (tests).
func NewCmdIntent(f *cmdutil.Factory, runF func(*IntentOptions) error) *cobra.Command {
	opts := &IntentOptions{IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "intent --amount RUPEES --note TEXT --name NAME --email EMAIL --mobile MOBILE --redirect-url URL",
		Short: "Create a payment intent: UPI app links and a QR code",
		Long: `Create a payment that the customer completes in a UPI app, through the
intent link, a per-app link or the dynamic QR code. The order's status is then
checked with 'upicollect status' or 'upicollect wait'.`,
		Example: `  upicollect intent --amount 499 --note "Order 42" --name "Ravi Kumar" \
    --email ravi@example.com --mobile 9876543210 \
    --redirect-url https://shop.example/thanks --qr`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx = cmd.Context()
			opts.Client = func() (*upicollect.Client, *cmdutil.DryRun, error) { return f.Client(&opts.Conn) }
			if runF != nil {
				return runF(opts)
			}
			return intentRun(opts)
		},
	}
	cmdutil.AddCreateFlags(cmd, &opts.Create)
	cmdutil.AddOrderIDFlag(cmd, &opts.OrderID)
	cmd.Flags().StringVar(&opts.RedirectURL, "redirect-url", "", "`URL` the customer returns to after paying")
	cmd.Flags().BoolVar(&opts.ShowQR, "qr", false, "print the intent link as a QR code a phone can scan")
	cmdutil.AddConnFlags(cmd, &opts.Conn, true)
	cmdutil.AddJSONFlag(cmd, &opts.JSON, cmdutil.JSONUsage)
	cmd.MarkFlagsMutuallyExclusive("qr", "json")
	return cmd
}

func intentRun(opts *IntentOptions) error {
	return cmdutil.CallOnce(opts.IO, opts.JSON, opts.Client, func(c *upicollect.Client) (*upicollect.Intent, error) {
		return c.CreatePaymentIntent(opts.Ctx, &upicollect.IntentParams{
			Amount: opts.Create.Amount, OrderID: opts.OrderID, RedirectURL: opts.RedirectURL,
			Note: opts.Create.Note, Customer: opts.Create.Customer,
		})
	}, func(in *upicollect.Intent) error {
		// CreatePaymentIntent has run every link check on the answer:
		// no link or QR below reaches a payer without them.
		return printIntent(opts.IO, opts.JSON, in, opts.ShowQR)
	})
}

func printIntent(ios *iostreams.IOStreams, jsonOut bool, in *upicollect.Intent, showQR bool) error {
	if jsonOut {
		links := in.AppLinks
		if links == nil {
			links = map[string]string{}
		}
		return ios.PrintJSON(intentJSON{
			OrderID: in.OrderID, Amount: cmdutil.OptAmount(in.Amount), Link: in.Link, AppLinks: links,
			DynamicQR: in.DynamicQR, ExpiresAt: cmdutil.OptTime(in.ExpiresAt), Message: in.Message,
		})
	}
	fields := []iostreams.Field{
		{Name: "Order", Value: in.OrderID},
		{Name: "Amount", Value: cmdutil.Rupees(in.Amount)},
		{Name: "Expires", Value: cmdutil.Deref(cmdutil.OptTime(in.ExpiresAt))},
		{Name: "Link", Value: in.Link},
	}
	for _, k := range cmdutil.SortedKeys(in.AppLinks) {
		fields = append(fields, iostreams.Field{Name: "  " + k, Value: in.AppLinks[k]})
	}
	fields = append(fields, iostreams.Field{Name: "QR", Value: qrSummary(in.DynamicQR)})
	if err := ios.PrintFields(fields...); err != nil {
		return err
	}
	if showQR && in.Link != "" {
		code, err := qr.Terminal(in.Link)
		if err != nil {
			return err
		}
		return iostreams.WriteLine(ios.Out, "\n"+code)
	}
	return nil
}

// qrSummary shortens a QR sent as image data, which is no use on a terminal.
func qrSummary(s string) string {
	if len(s) > 120 {
		return s[:60] + "… (" + strconv.Itoa(len(s)) + " bytes)"
	}
	return s
}
