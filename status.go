package upicollect

import (
	"context"
	"strings"

	"github.com/upicollect/upicollect-go/internal/wire"
)

// PaymentStatus is the state of an order as the status check reports it.
type PaymentStatus struct {
	OrderID   string
	TxnStatus TxnStatus // PENDING for an order the service does not know (yet)
	Amount    Money     // the paid amount; 0 when the answer has none
	UTR       string    // the bank's transaction reference, once paid
	// VPA and TransactionID are sent by one live shape of the answer only.
	VPA           string
	TransactionID string
	Message       string
	Response      *Response
}

// Paid reports whether the payment succeeded. Credit an order once only:
// every later check of a paid order says SUCCESS again.
func (s *PaymentStatus) Paid() bool { return s != nil && s.TxnStatus == TxnSuccess }

// CheckPaymentStatus returns the status of the order orderID.
//
// API: POST /v1/payments/checkPaymentStatus
//
// An order the service does not know, in either of its not-found shapes, is
// not an error: the result says TxnPending with the service's message. FAIL,
// REJECT and unknown states are results too (unknown values kept verbatim).
// The call is read-only, so it is retried on connection errors, timeouts,
// 429 (honouring Retry-After), 500, 502, 503 and 504, within the retry
// policy and budget. The context bounds the whole call, backoff included.
func (c *Client) CheckPaymentStatus(ctx context.Context, orderID string) (*PaymentStatus, error) {
	c.mustInit()
	const op = wire.OpCheckPaymentStatus
	var chk checker
	chk.orderID(orderID, true)
	if err := chk.err(op); err != nil {
		return nil, err
	}
	ans, err := c.send(ctx, &call{
		op: op, path: wire.PathPrefix + op, safety: readOnly, orderID: orderID, accept: acceptStatus,
		form: form(&wire.StatusRequest{MID: c.creds.MID, OrderID: orderID}),
	})
	if err != nil {
		return nil, err
	}
	return readStatus(orderID, ans)
}

// acceptStatus takes the status check's "failure" envelopes that are answers:
// a txnStatus (PENDING, FAIL, ...) and both not-found shapes.
func acceptStatus(env *wire.Envelope, httpStatus int) bool {
	if env.MessageKey && !env.HasStatusCode {
		return false // missing Authorization
	}
	if env.TxnStatus != "" {
		return true
	}
	code := effectiveCode(env, httpStatus)
	return code == 200 || code == 404
}

func readStatus(orderID string, ans *answer) (*PaymentStatus, error) {
	env := ans.env
	st := &PaymentStatus{OrderID: orderID, Message: env.Msg, Response: ans.resp}
	var d *wire.StatusData
	if env.Data != nil {
		var err error
		if d, err = wire.DecodeStatusData(env.Data); err != nil {
			return nil, ans.unexpected(err.Error())
		}
		if d.OrderID != "" {
			st.OrderID = d.OrderID
		}
		st.UTR, st.VPA, st.TransactionID = d.UTR, d.VPA, d.TransactionID
		if d.Amount != nil {
			paise, err := wire.ParseAmount(d.Amount)
			if err != nil {
				return nil, ans.unexpected(err.Error())
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
	case !env.Status:
		st.TxnStatus = TxnPending // not found: no payment yet
	case d != nil && d.HasPayment():
		st.TxnStatus = TxnSuccess // status true with payment data means paid
	default:
		return nil, ans.unexpected("success answer without a state or payment data")
	}
	return st, nil
}

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
