package upicollect

import (
	"context"
	"errors"

	"github.com/upicollect/upicollect-go/internal/upi"
	"github.com/upicollect/upicollect-go/internal/vocab"
	"github.com/upicollect/upicollect-go/internal/wire"
)

// OrderRequestParams are the inputs of CreateOrderRequest: the same fields
// as an intent's.
type OrderRequestParams struct {
	Amount      Money  // whole rupees, 1..100000
	OrderID     string // optional, unique; when empty the client sets one (NewOrderID) before the first attempt
	RedirectURL string // where the payer comes back to, exactly as given, after the hosted page
	Note        string
	Customer    Customer
}

// OrderRequest is a hosted checkout: the payer is sent to PaymentURL, the
// service's own page, where they choose a UPI app or scan a QR code, and
// come back to the RedirectURL given.
type OrderRequest struct {
	OrderID    string // the order to confirm with CheckPaymentStatus
	PaymentURL string // the hosted checkout page: an absolute http(s) URL
	Message    string
	Response   *Response
}

// CreateOrderRequest creates a hosted checkout: send the payer to the
// result's PaymentURL, and when they come back to p.RedirectURL confirm the
// payment with CheckPaymentStatus (or WaitForPayment) on the result's
// OrderID, comparing the amount before crediting it. The return to
// p.RedirectURL proves nothing by itself. This is the endpoint the vendor's
// PHP SDK, WooCommerce plugin and WHMCS module use.
//
// API: POST /v1/payments/createOrderRequest
//
// The parameters are validated as CreatePaymentIntent's; a problem returns
// a *ValidationError and sends nothing. Without p.OrderID the client sets
// one from NewOrderID before the first attempt (p itself is not changed),
// so the call is retried safely and every result and *APIError names the
// order. Retries: on connection errors, timeouts, 429, 500, 502, 503 and
// 504; a 409 on any attempt after the first is ErrOutcomeUnknown, never
// ErrDuplicateOrderID. An answer without a payment_url, with one that is
// not an absolute http(s) URL, or naming another order than the one sent
// (one naming none is the sent order's), is ErrUnexpectedResponse and
// ErrOutcomeUnknown. The context bounds the whole call, backoff included;
// cancelling it after the request went out gives no guarantee either way
// (ErrOutcomeUnknown): check the order's status before creating it again.
//
// Faults, with the default RetryPolicy:
//   - 400: 1 attempt, then ErrInvalidRequest
//   - 401 and 403: 1 attempt, then ErrUnauthorized
//   - 409: 1 attempt, then ErrDuplicateOrderID
//   - 429: 3 attempts, then ErrRateLimited and ErrOutcomeUnknown
//   - 500, 502, 503 and 504: 3 attempts, then ErrServer and ErrOutcomeUnknown
//   - 501, 505 and the other 5xx: 1 attempt, then ErrServer
//   - a connection reset: 3 attempts, then ErrOutcomeUnknown
func (c *Client) CreateOrderRequest(ctx context.Context, p *OrderRequestParams) (*OrderRequest, error) {
	c.mustInit()
	const op = vocab.OpCreateOrderRequest
	if p == nil {
		return nil, &ValidationError{Op: op, Fields: []FieldError{{"params", "is nil"}}}
	}
	// The vendor documents the same fields as an intent's.
	cl, orderID, err := c.redirectCreate(op, (*IntentParams)(p))
	if err != nil {
		return nil, err
	}
	return invoke(ctx, c, cl, func(env *wire.Envelope, resp *Response) (*OrderRequest, error) {
		return readOrderRequest(orderID, env, resp)
	})
}

var errNoPaymentURL = errors.New("no payment_url in data")

// readOrderRequest decodes createOrderRequest's data: orderId and
// payment_url, the keys of a payment request's answer. orderID is the one
// sent.
func readOrderRequest(orderID string, env *wire.Envelope, resp *Response) (*OrderRequest, error) {
	data, err := needData(env)
	if err != nil {
		return nil, err
	}
	d, err := wire.DecodePaymentRequestData(data)
	if err != nil {
		return nil, err
	}
	if d.PaymentURL == "" {
		return nil, errNoPaymentURL
	}
	if err := upi.CheckWebURL("payment_url", d.PaymentURL); err != nil {
		return nil, err
	}
	answered, err := answerOrder(d.OrderID, orderID)
	if err != nil {
		return nil, err
	}
	return &OrderRequest{
		OrderID:    answered,
		PaymentURL: d.PaymentURL,
		Message:    env.Msg,
		Response:   resp,
	}, nil
}
