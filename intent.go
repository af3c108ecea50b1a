package upicollect

import (
	"cmp"
	"context"
	"time"

	"github.com/upicollect/upicollect-go/internal/vocab"
	"github.com/upicollect/upicollect-go/internal/wire"
)

// IntentParams are the inputs of CreatePaymentIntent.
type IntentParams struct {
	Amount      Money  // whole rupees, 1..100000
	OrderID     string // optional, unique; when empty the client sets one (NewOrderID) before the first attempt
	RedirectURL string // where the customer goes after paying
	Note        string
	Customer    Customer
}

// Intent is a payment the customer completes in a UPI app, through a link or
// a QR code.
type Intent struct {
	OrderID string
	Amount  Money
	Link    string // generic upi:// intent link ("intent")
	// AppLinks holds the per-app links keyed by the service's own field name
	// ("phonepe", "paytm", "gpay", "cred", or "app_a"... in the document).
	AppLinks     map[string]string
	DynamicQR    string    // as sent, opaque (a link, QR text or image data)
	ExpiresAt    time.Time // zero when absent or unparseable
	MerchantName string    // "merchantName", when the service sends it
	Message      string
	Response     *Response
}

// CreatePaymentIntent starts a payment that the customer completes in a UPI
// app (intent links or the dynamic QR), then returns to p.RedirectURL.
//
// API: POST /v1/payments/createPaymentIntent
//
// The parameters are validated first; a problem returns a *ValidationError
// and sends nothing. Without p.OrderID the client sets one from NewOrderID
// before the first attempt (p itself is not changed), so every create
// carries an order id: the result's OrderID and every *APIError's OrderID
// name the order to check. Retries: on connection errors, timeouts, 429,
// 500, 502, 503 and 504, and a 409 on any attempt after the first is
// reported as ErrOutcomeUnknown, never ErrDuplicateOrderID. An answer that
// is not the service's envelope, or one whose links are not upi: or an
// app's own scheme, is ErrUnexpectedResponse and ErrOutcomeUnknown. The
// context bounds the whole call; cancelling it after the request went out
// gives no guarantee either way (ErrOutcomeUnknown): check the order's
// status before creating it again.
func (c *Client) CreatePaymentIntent(ctx context.Context, p *IntentParams) (*Intent, error) {
	c.mustInit()
	const op = vocab.OpCreatePaymentIntent
	if p == nil {
		return nil, &ValidationError{Op: op, Fields: []FieldError{{"params", "is nil"}}}
	}
	var chk checker
	rupees := chk.amount(p.Amount)
	chk.orderID(p.OrderID, false)
	chk.redirectURL(p.RedirectURL)
	chk.note(p.Note)
	mobile := chk.customer(p.Customer)
	if err := chk.err(op); err != nil {
		return nil, err
	}
	orderID := orderIDOrNew(p.OrderID)
	cl := c.createCall(op, orderID, &wire.IntentRequest{
		MID:            c.creds.MID,
		Amount:         rupees,
		OrderID:        orderID,
		RedirectURL:    p.RedirectURL,
		Note:           p.Note,
		CustomerName:   p.Customer.Name,
		CustomerEmail:  p.Customer.Email,
		CustomerMobile: mobile,
	})
	return invoke(ctx, c, cl, func(env *wire.Envelope, resp *Response) (*Intent, error) { return readIntent(p, orderID, env, resp) })
}

// readIntent decodes createPaymentIntent's data; orderID is the one sent.
func readIntent(p *IntentParams, orderID string, env *wire.Envelope, resp *Response) (*Intent, error) {
	data, err := needData(env)
	if err != nil {
		return nil, err
	}
	d, err := wire.DecodeIntentData(data)
	if err != nil {
		return nil, err
	}
	in := &Intent{
		OrderID:      cmp.Or(d.OrderID, orderID),
		Amount:       p.Amount,
		Link:         d.Link,
		AppLinks:     d.AppLinks,
		DynamicQR:    d.DynamicQR,
		ExpiresAt:    wire.ParseExpiry(d.Expiry),
		MerchantName: d.MerchantName,
		Message:      env.Msg,
		Response:     resp,
	}
	if d.Amount != nil {
		paise, err := wire.ParseAmount(d.Amount)
		if err != nil {
			return nil, err
		}
		in.Amount = Money(paise)
	}
	return in, nil
}
