package upicollect

import (
	"context"
	"time"

	"github.com/upicollect/upicollect-go/internal/upi"
	"github.com/upicollect/upicollect-go/internal/vocab"
	"github.com/upicollect/upicollect-go/internal/wire"
)

// RequestParams are the inputs of CreatePaymentRequest.
type RequestParams struct {
	Amount   Money  // whole rupees, 1..100000
	OrderID  string // optional, unique; when empty the client sets one (NewOrderID) before the first attempt
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
// Validation, order ids, retries and context behave as for
// CreatePaymentIntent: without p.OrderID the client sets one (NewOrderID)
// before the first attempt; the call is retried on connection errors,
// timeouts, 429, 500, 502, 503 and 504 (a later 409 is then
// ErrOutcomeUnknown), never on another 5xx such as 501. A payment_url that
// is not an absolute http(s) URL, and an answer naming another order than
// the one sent (one naming none is the sent order's), is
// ErrUnexpectedResponse and ErrOutcomeUnknown. A cancelled context after the request went out gives
// no guarantee either way.
//
// Faults, with the default RetryPolicy:
//   - 400: 1 attempt, then ErrInvalidRequest
//   - 401 and 403: 1 attempt, then ErrUnauthorized
//   - 409: 1 attempt, then ErrDuplicateOrderID
//   - 429: 3 attempts, then ErrRateLimited and ErrOutcomeUnknown
//   - 500, 502, 503 and 504: 3 attempts, then ErrServer and ErrOutcomeUnknown
//   - 501, 505 and the other 5xx: 1 attempt, then ErrServer
//   - a connection reset: 3 attempts, then ErrOutcomeUnknown
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
	orderID := orderIDOrNew(p.OrderID)
	cl := c.createCall(op, orderID, &wire.PaymentRequestRequest{
		MID:            c.creds.MID,
		Amount:         rupees,
		OrderID:        orderID,
		VPA:            p.VPA,
		Note:           p.Note,
		CustomerName:   p.Customer.Name,
		CustomerEmail:  p.Customer.Email,
		CustomerMobile: mobile,
	})
	return invoke(ctx, c, cl, func(env *wire.Envelope, resp *Response) (*PaymentRequest, error) {
		return readPaymentRequest(orderID, env, resp)
	})
}

// readPaymentRequest decodes createPaymentRequest's data; orderID is the
// one sent.
func readPaymentRequest(orderID string, env *wire.Envelope, resp *Response) (*PaymentRequest, error) {
	data, err := needData(env)
	if err != nil {
		return nil, err
	}
	d, err := wire.DecodePaymentRequestData(data)
	if err != nil {
		return nil, err
	}
	if d.PaymentURL != "" {
		if err := upi.CheckWebURL("payment_url", d.PaymentURL); err != nil {
			return nil, err
		}
	}
	answered, err := answerOrder(d.OrderID, orderID)
	if err != nil {
		return nil, err
	}
	return &PaymentRequest{
		OrderID:    answered,
		PaymentURL: d.PaymentURL,
		ExpiresAt:  wire.ParseExpiry(d.Expiry),
		Message:    env.Msg,
		Response:   resp,
	}, nil
}
