package wire

import "net/url"

// Operation names, as they appear in the path /v1/payments/<op>.
const (
	OpCreatePaymentIntent  = "createPaymentIntent"
	OpCreatePaymentRequest = "createPaymentRequest"
	OpCreatePaymentLink    = "createPaymentLink"
	OpCheckPaymentStatus   = "checkPaymentStatus"
)

// PathPrefix is where every operation lives, below the base URL.
const PathPrefix = "/v1/payments/"

// IntentRequest is the body of createPaymentIntent: exactly the fields the
// interface accepts for it.
type IntentRequest struct {
	MID            string `url:"mid"`
	Amount         int64  `url:"amount"` // whole rupees
	OrderID        string `url:"order_id,omitempty"`
	RedirectURL    string `url:"redirect_url"`
	Note           string `url:"note"`
	CustomerName   string `url:"customer_name"`
	CustomerEmail  string `url:"customer_email"`
	CustomerMobile string `url:"customer_mobile"`
}

// PaymentRequestRequest is the body of createPaymentRequest.
type PaymentRequestRequest struct {
	MID            string `url:"mid"`
	Amount         int64  `url:"amount"` // whole rupees
	OrderID        string `url:"order_id,omitempty"`
	VPA            string `url:"vpa"`
	Note           string `url:"note"`
	CustomerName   string `url:"customer_name"`
	CustomerEmail  string `url:"customer_email"`
	CustomerMobile string `url:"customer_mobile"`
}

// LinkRequest is the body of createPaymentLink. It has no order_id: the
// operation does not accept one.
type LinkRequest struct {
	MID            string `url:"mid"`
	Amount         int64  `url:"amount"` // whole rupees
	Note           string `url:"note"`
	CustomerName   string `url:"customer_name"`
	CustomerEmail  string `url:"customer_email"`
	CustomerMobile string `url:"customer_mobile"`
}

// StatusRequest is the body of checkPaymentStatus.
type StatusRequest struct {
	MID     string `url:"mid"`
	OrderID string `url:"order_id"`
}

// Encode returns the form body of the status check, as query.Values would
// encode it (keys sorted, values query-escaped), without reflection: the
// status check is the call a merchant polls.
func (r *StatusRequest) Encode() string {
	return "mid=" + url.QueryEscape(r.MID) + "&order_id=" + url.QueryEscape(r.OrderID)
}
