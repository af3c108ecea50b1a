package upicollect

import (
	"cmp"
	"context"
	"time"

	"github.com/upicollect/upicollect-go/internal/vocab"
	"github.com/upicollect/upicollect-go/internal/wire"
)

// RequestParams are the inputs of CreatePaymentRequest.
type RequestParams struct {
	Amount   Money  // whole rupees, 1..100000
	OrderID  string // optional, unique; set it (NewOrderID) to make retries safe
	VPA      string // the customer's UPI ID, <handle>@<bank_handle>
	Note     string
	Customer Customer
}

// PaymentRequest is a collect request sent to the customer's UPI ID, with the
// hosted page where it can also be paid.
type PaymentRequest struct {
	OrderID    string
	PaymentURL string
	ExpiresAt  time.Time // zero unless the service sends an expiry
	Message    string
	Response   *Response
}

// CreatePaymentRequest sends a payment request to the customer's UPI ID; the
// customer approves it in their UPI app or on the returned hosted page.
//
// API: POST /v1/payments/createPaymentRequest
//
// Validation, retries and context behave as for CreatePaymentIntent: with
// p.OrderID set, retried on connection errors, timeouts, 429 and 5xx (a
// later 409 is then ErrOutcomeUnknown); without it, sent again only when it
// never reached the service, and ErrOutcomeUnknown otherwise. A payment_url
// that is not an absolute http(s) URL is ErrUnexpectedResponse and
// ErrOutcomeUnknown. A cancelled context after the request went out gives
// no guarantee either way.
func (c *Client) CreatePaymentRequest(ctx context.Context, p *RequestParams) (*PaymentRequest, error) {
	c.mustInit()
	const op = vocab.OpCreatePaymentRequest
	if p == nil {
		return nil, &ValidationError{Op: op, Fields: []FieldError{{"params", "is nil"}}}
	}
	var chk checker
	rupees := chk.amount(p.Amount)
	chk.orderID(p.OrderID, false)
	chk.vpa(p.VPA)
	chk.note(p.Note)
	mobile := chk.customer(p.Customer)
	if err := chk.err(op); err != nil {
		return nil, err
	}
	cl := c.createCall(op, p.OrderID, &wire.PaymentRequestRequest{
		MID:            c.creds.MID,
		Amount:         rupees,
		OrderID:        p.OrderID,
		VPA:            p.VPA,
		Note:           p.Note,
		CustomerName:   p.Customer.Name,
		CustomerEmail:  p.Customer.Email,
		CustomerMobile: mobile,
	})
	return invoke(ctx, c, cl, func(env *wire.Envelope, resp *Response) (*PaymentRequest, error) {
		return readPaymentRequest(p, env, resp)
	})
}

// readPaymentRequest decodes createPaymentRequest's data.
func readPaymentRequest(p *RequestParams, env *wire.Envelope, resp *Response) (*PaymentRequest, error) {
	data, err := needData(env)
	if err != nil {
		return nil, err
	}
	d, err := wire.DecodePaymentRequestData(data)
	if err != nil {
		return nil, err
	}
	if d.PaymentURL != "" {
		if err := wire.CheckWebURL("payment_url", d.PaymentURL); err != nil {
			return nil, err
		}
	}
	return &PaymentRequest{
		OrderID:    cmp.Or(d.OrderID, p.OrderID),
		PaymentURL: d.PaymentURL,
		ExpiresAt:  wire.ParseExpiry(d.Expiry),
		Message:    env.Msg,
		Response:   resp,
	}, nil
}
