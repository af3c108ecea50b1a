package upicollect

import (
	"context"

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
// Validation happens first, before any I/O. Retries: only on 429 and when
// the request provably never reached the service (DNS or connect failure).
// The operation has no order id, so a request is never re-sent once bytes
// went out: a timeout, a reset or a 5xx returns ErrOutcomeUnknown, and so
// does a context cancelled mid-request (no guarantee either way).
func (c *Client) CreatePaymentLink(ctx context.Context, p *LinkParams) (*PaymentLink, error) {
	c.mustInit()
	const op = wire.OpCreatePaymentLink
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
	ans, err := c.send(ctx, c.createCall(op, "", form(&wire.LinkRequest{
		MID:            c.creds.MID,
		Amount:         rupees,
		Note:           p.Note,
		CustomerName:   p.Customer.Name,
		CustomerEmail:  p.Customer.Email,
		CustomerMobile: mobile,
	})))
	if err != nil {
		return nil, err
	}
	if ans.env.Data == nil {
		return nil, ans.unexpected("no data in a success answer")
	}
	d, err := wire.DecodeLinkData(ans.env.Data)
	if err != nil {
		return nil, ans.unexpected(err.Error())
	}
	if d.PaymentLink == "" {
		return nil, ans.unexpected("no payment_link in data")
	}
	return &PaymentLink{URL: d.PaymentLink, OrderID: d.OrderID, Message: ans.env.Msg, Response: ans.resp}, nil
}

// createCall describes a create for the transport: keyed when it carries an
// order id, which makes repeating it safe.
func (c *Client) createCall(op, orderID string, f map[string][]string) *call {
	s := unkeyedCreate
	if orderID != "" {
		s = keyedCreate
	}
	return &call{op: op, path: wire.PathPrefix + op, form: f, safety: s, orderID: orderID}
}

// unexpected reports an accepted envelope whose data this SDK cannot read,
// and logs the failure like any other. For a create it is also
// ErrOutcomeUnknown: the service said yes, but what it made cannot be read.
func (a *answer) unexpected(detail string) error {
	k := kindUnexpected
	if a.cl.safety != readOnly {
		k |= kindOutcomeUnknown
	}
	err := &APIError{
		Op: a.cl.op, HTTPStatus: a.resp.HTTPStatus, StatusCode: a.env.StatusCode, Message: a.env.Msg,
		OrderID: a.cl.orderID, Response: a.resp, kinds: k, detail: detail + ": " + snippet(a.resp.Body),
	}
	a.c.logGiveUp(a.cl, a.resp.Attempts, err, "unreadable data in a success answer")
	return err
}
