package upicollect

import (
	"context"
	"errors"

	"github.com/upicollect/upicollect-go/internal/upi"
	"github.com/upicollect/upicollect-go/internal/vocab"
	"github.com/upicollect/upicollect-go/internal/wire"
)

// LinkParams are the inputs of CreatePaymentLink. The operation takes no
// order id, so the type has none.
type LinkParams struct {
	Amount   Money // whole rupees, 1..100000
	Note     string
	Customer Customer
}

// PaymentLink is a shareable link where the customer pays.
type PaymentLink struct {
	URL      string
	OrderID  string // empty: the interface returns none; kept if the service sends one
	Message  string
	Response *Response
}

// CreatePaymentLink generates a shareable payment link.
//
// API: POST /v1/payments/createPaymentLink
//
// Validation happens first, before any I/O. Retries: only when the request
// provably never reached the service (DNS or connect failure). The
// operation has no order id, so a request is never re-sent once bytes went
// out: a timeout, a reset, a 429, 500, 502, 503 or 504 returns
// ErrOutcomeUnknown, and so does a context cancelled mid-request (no
// guarantee either way). A refusal (a 4xx, or a 5xx such as 501 that no
// retry could change) is not ErrOutcomeUnknown. A payment_link that is not
// an absolute http(s) URL is ErrUnexpectedResponse and ErrOutcomeUnknown.
//
// Faults, with the default RetryPolicy:
//   - 400: 1 attempt, then ErrInvalidRequest
//   - 401 and 403: 1 attempt, then ErrUnauthorized
//   - 409: 1 attempt, then ErrDuplicateOrderID
//   - 429: 1 attempt, then ErrRateLimited and ErrOutcomeUnknown
//   - 500, 502, 503 and 504: 1 attempt, then ErrServer and ErrOutcomeUnknown
//   - 501, 505 and the other 5xx: 1 attempt, then ErrServer
//   - a connection reset: 1 attempt, then ErrOutcomeUnknown
func (c *Client) CreatePaymentLink(ctx context.Context, p *LinkParams) (*PaymentLink, error) {
	c.mustInit()
	const op = vocab.OpCreatePaymentLink
	if p == nil {
		return nil, &ValidationError{Op: op, Fields: []FieldError{{"params", "is nil"}}}
	}
	var chk checker
	rupees := chk.amount(p.Amount)
	chk.note(p.Note)
	mobile := chk.customer(p.Customer)
	if err := chk.err(op); err != nil {
		return nil, err
	}
	cl := c.createCall(op, "", &wire.LinkRequest{
		MID:            c.creds.MID,
		Amount:         rupees,
		Note:           p.Note,
		CustomerName:   p.Customer.Name,
		CustomerEmail:  p.Customer.Email,
		CustomerMobile: mobile,
	})
	return invoke(ctx, c, cl, readLink)
}

var errNoPaymentLink = errors.New("no payment_link in data")

// readLink decodes createPaymentLink's data.
func readLink(env *wire.Envelope, resp *Response) (*PaymentLink, error) {
	data, err := needData(env)
	if err != nil {
		return nil, err
	}
	d, err := wire.DecodeLinkData(data)
	if err != nil {
		return nil, err
	}
	if d.PaymentLink == "" {
		return nil, errNoPaymentLink
	}
	if err := upi.CheckWebURL("payment_link", d.PaymentLink); err != nil {
		return nil, err
	}
	return &PaymentLink{URL: d.PaymentLink, OrderID: d.OrderID, Message: env.Msg, Response: resp}, nil
}
