package main

import (
	"strconv"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
)

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

func (a *app) intentCmd() *cobra.Command {
	var (
		conn        connFlags
		create      createFlags
		orderID     string
		redirectURL string
		showQR      bool
	)
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
		RunE: a.runE(func(*cobra.Command, []string) error {
			return runCall(a, &conn, func(c *upicollect.Client) (*upicollect.Intent, error) {
				return c.CreatePaymentIntent(a.ctx, &upicollect.IntentParams{
					Amount: create.amount, OrderID: orderID, RedirectURL: redirectURL,
					Note: create.note, Customer: create.customer,
				})
			}, func(in *upicollect.Intent) error {
				// CreatePaymentIntent has run every link check on the answer:
				// no link or QR below reaches a payer without them.
				return a.printIntent(in, showQR)
			})
		}),
	}
	addCreateFlags(cmd, &create)
	addOrderIDFlag(cmd, &orderID)
	cmd.Flags().StringVar(&redirectURL, "redirect-url", "", "`URL` the customer returns to after paying")
	cmd.Flags().BoolVar(&showQR, "qr", false, "print the intent link as a QR code a phone can scan")
	a.addConnFlags(cmd, &conn, true)
	cmd.MarkFlagsMutuallyExclusive("qr", "json")
	return cmd
}

func (a *app) printIntent(in *upicollect.Intent, showQR bool) error {
	if a.json {
		links := in.AppLinks
		if links == nil {
			links = map[string]string{}
		}
		return a.printJSON(intentJSON{
			OrderID: in.OrderID, Amount: optAmount(in.Amount), Link: in.Link, AppLinks: links,
			DynamicQR: in.DynamicQR, ExpiresAt: optTime(in.ExpiresAt), Message: in.Message,
		})
	}
	fields := []field{
		{"Order", in.OrderID},
		{"Amount", rupees(in.Amount)},
		{"Expires", deref(optTime(in.ExpiresAt))},
		{"Link", in.Link},
	}
	for _, k := range sortedKeys(in.AppLinks) {
		fields = append(fields, field{"  " + k, in.AppLinks[k]})
	}
	fields = append(fields, field{"QR", qrSummary(in.DynamicQR)})
	if err := a.printFields(fields...); err != nil {
		return err
	}
	if showQR && in.Link != "" {
		qr, err := qrTerminal(in.Link)
		if err != nil {
			return err
		}
		return writeLine(a.stdout, "\n"+qr)
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

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
