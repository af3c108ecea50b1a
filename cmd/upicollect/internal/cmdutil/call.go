package cmdutil

import (
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
)

// ClientFunc builds a command's SDK client when the command asks for it;
// the recorder is non-nil under --dry-run.
type ClientFunc func() (*upicollect.Client, *DryRun, error)

// CallOnce builds the command's client and makes one call with it: under
// --dry-run it prints the request the call built instead of a result,
// else it prints the result with show.
func CallOnce[T any](ios *iostreams.IOStreams, jsonOut bool, client ClientFunc, call func(*upicollect.Client) (T, error), show func(T) error) error {
	c, dr, err := client()
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()
	res, err := call(c)
	if dr != nil {
		return dr.Report(ios, jsonOut, err)
	}
	if err != nil {
		return err
	}
	return show(res)
}

// PayPageJSON is the --json form of a create that sends the payer to a
// page: a payment request or a hosted checkout.
type PayPageJSON struct {
	OrderID    string `json:"order_id"`
	PaymentURL string `json:"payment_url"`
	Message    string `json:"message"`
}

// PrintPayPage prints the order to confirm and the page to send the payer
// to.
func PrintPayPage(ios *iostreams.IOStreams, jsonOut bool, p PayPageJSON) error {
	if jsonOut {
		return ios.PrintJSON(p)
	}
	return ios.PrintFields(iostreams.Field{Name: "Order", Value: p.OrderID},
		iostreams.Field{Name: "Pay at", Value: p.PaymentURL}, iostreams.Field{Name: "Message", Value: p.Message})
}
