package upicollect

import (
	"context"
	"errors"
	"strings"

	"github.com/upicollect/upicollect-go/internal/vocab"
	"github.com/upicollect/upicollect-go/internal/wire"
)

// PaymentStatus is the state of an order as the status check reports it.
type PaymentStatus struct {
	OrderID   string
	TxnStatus TxnStatus // PENDING for an order the service does not know (yet)
	Amount    Money     // the paid amount; 0 when the answer has none
	UTR       string    // the bank's transaction reference, once paid
	// NotFound says the service answered that it does not know the order
	// (yet): one of its not-found shapes, with TxnStatus PENDING. The live
	// service answers so both for an order id it never saw (a typo, a
	// create that never arrived) and for an order nobody has started to pay
	// yet, so one such answer proves neither; WithUnknownOrderTimeout bounds
	// how long a wait accepts it.
	NotFound bool
	// VPA and TransactionID are sent by one live shape of the answer only.
	VPA           string
	TransactionID string
	Message       string
	// OrderNamed says the answer itself named the order it is about:
	// data.order_id or data.orderId, read exactly, is a non-empty string or
	// a number (and is OrderID: an answer naming another order is an
	// error). Every live SUCCESS shape names it; the reconcile package
	// settles nothing on a SUCCESS that does not. An order key in another
	// spelling (ORDER_ID, orderID, Order-Id: any key that is "orderid" once
	// lower-cased without '_' and '-'), or in a twin of data in another case
	// (Data), never sets it; one that names another order makes the answer
	// ErrUnexpectedResponse, as an exact one does. The SDK is the one reader
	// that decides it: read the field, not Response.Body.
	OrderNamed bool
	Response   *Response
}

// Paid reports whether the payment succeeded. Credit an order once only:
// every later check of a paid order says SUCCESS again.
func (s *PaymentStatus) Paid() bool { return s != nil && s.TxnStatus == TxnSuccess }

// CheckPaymentStatus returns the status of the order orderID.
//
// API: POST /v1/payments/checkPaymentStatus
//
// An order the service does not know, in either of its not-found shapes, is
// not an error: the result says TxnPending and NotFound, with the service's
// message. FAIL, REJECT and unknown states are results too (unknown values
// kept verbatim).
//
// The answer names its order with data.order_id or data.orderId, read
// exactly (PaymentStatus.OrderNamed). An answer that names another order,
// there, under any other spelling of an order key in data (ORDER_ID,
// Order_Id, orderID, order-id: a key that is "orderid" once lower-cased
// without '_' and '-'), under a repeated key, or in a twin of data in
// another case ("Data" beside "data"), is ErrUnexpectedResponse, as is a
// SUCCESS without a positive amount. A refusal without a state is an
// *APIError, never PENDING.
//
// The call is read-only, so it is retried on connection errors, timeouts,
// 429, 500, 502, 503 and 504 (honouring the Retry-After of a 429 or 503),
// within the retry policy and budget. The context bounds the whole call,
// backoff included.
//
// Faults, with the default RetryPolicy:
//   - 400: 1 attempt, then ErrInvalidRequest
//   - 401 and 403: 1 attempt, then ErrUnauthorized
//   - 409: 1 attempt, then ErrDuplicateOrderID
//   - 429: 3 attempts, then ErrRateLimited
//   - 500, 502, 503 and 504: 3 attempts, then ErrServer
//   - 501, 505 and the other 5xx: 1 attempt, then ErrServer
//   - a connection reset: 3 attempts, then no sentinel (the transport's error is the cause)
func (c *Client) CheckPaymentStatus(ctx context.Context, orderID string) (*PaymentStatus, error) {
	c.mustInit()
	const op = vocab.OpCheckPaymentStatus
	var chk checker
	chk.orderID(orderID, true)
	if err := chk.err(op); err != nil {
		return nil, err
	}
	cl := c.newCall(op, vocab.PathPrefix+op, orderID, readOnly,
		(&wire.StatusRequest{MID: c.creds.MID, OrderID: orderID}).Encode())
	cl.shapes = statusShapes
	return invoke(ctx, c, cl, func(env *wire.Envelope, resp *Response) (*PaymentStatus, error) {
		return readStatus(orderID, env, resp)
	})
}

// readStatus decodes a status answer that judge accepted. PENDING
// comes only from an explicit state or a not-found shape; an answer that
// names another order anywhere CheckStatusOrder looks, or a SUCCESS
// without a positive amount, is refused. It is the one reader of whether
// an answer names its order (OrderNamed).
func readStatus(orderID string, env *wire.Envelope, resp *Response) (*PaymentStatus, error) {
	st := &PaymentStatus{OrderID: orderID, Message: env.Msg, Response: resp}
	var d *wire.StatusData
	if env.Data != nil {
		var err error
		if d, err = wire.DecodeStatusData(env.Data); err != nil {
			return nil, err
		}
	}
	if err := wire.CheckStatusOrder(orderID, env, d); err != nil {
		return nil, err
	}
	if d != nil {
		st.OrderNamed = d.OrderID != "" // orderID: CheckStatusOrder said so
		st.UTR, st.VPA, st.TransactionID = d.UTR, d.VPA, d.TransactionID
		if d.Amount != nil {
			paise, err := wire.ParseAmount(d.Amount)
			if err != nil {
				return nil, err
			}
			st.Amount = Money(paise)
		}
	}
	txn := env.TxnStatus
	if txn == "" && d != nil {
		txn = d.Status
	}
	switch {
	case txn != "":
		st.TxnStatus = canonical(txn)
	case env.NotFound():
		st.TxnStatus = TxnPending // not found: no payment yet
	case d != nil && d.HasPayment():
		st.TxnStatus = TxnSuccess // status true with payment data means paid
	default:
		return nil, errNoState
	}
	st.NotFound = notFoundAnswer(env, st.TxnStatus)
	if st.TxnStatus == TxnSuccess && st.Amount <= 0 {
		return nil, errNoAmount
	}
	return st, nil
}

// notFoundAnswer reports whether a status answer read as txn is one of the
// service's not-found shapes: status false and no data, with PENDING
// (the document's) or no state at all (the 404 shape, read as PENDING).
func notFoundAnswer(env *wire.Envelope, txn TxnStatus) bool {
	return !env.Status && env.Data == nil && txn == TxnPending
}

var (
	errNoState  = errors.New("success answer without a state or payment data")
	errNoAmount = errors.New("SUCCESS without a positive amount")
)

// canonical maps the known states case-insensitively and keeps any other
// value verbatim.
func canonical(s string) TxnStatus {
	t := strings.TrimSpace(s)
	for _, k := range []TxnStatus{TxnSuccess, TxnPending, TxnFail, TxnReject} {
		if strings.EqualFold(t, string(k)) {
			return k
		}
	}
	return TxnStatus(s)
}
