package upicollect_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
)

var ist = time.FixedZone("IST", 5*3600+30*60)

// decodeCase serves one answer (a file of testdata/responses, or body) with
// an HTTP status to one operation, in a single attempt.
type decodeCase struct {
	name    string // also the golden file testdata/decoded/<name>.json
	op      string
	file    string
	body    []byte // used when file is ""
	status  int
	orderID string // sent by the creates that accept one; the status check's order
	amount  int64  // rupees asked for; 0: validInput's
	// On success: check inspects the result. On failure: is lists every
	// sentinel the error must match (all others must not), api the
	// *APIError's fields.
	check func(t *testing.T, res any)
	is    []error
	api   *apiWant
}

type apiWant struct {
	HTTPStatus int
	StatusCode int
	Message    string
	OrderID    string
}

func intentCheck(f func(t *testing.T, in *upicollect.Intent)) func(*testing.T, any) {
	return func(t *testing.T, res any) { f(t, res.(*upicollect.Intent)) }
}

func requestCheck(f func(t *testing.T, pr *upicollect.PaymentRequest)) func(*testing.T, any) {
	return func(t *testing.T, res any) { f(t, res.(*upicollect.PaymentRequest)) }
}

func linkCheck(f func(t *testing.T, pl *upicollect.PaymentLink)) func(*testing.T, any) {
	return func(t *testing.T, res any) { f(t, res.(*upicollect.PaymentLink)) }
}

func statusCheck(f func(t *testing.T, st *upicollect.PaymentStatus)) func(*testing.T, any) {
	return func(t *testing.T, res any) { f(t, res.(*upicollect.PaymentStatus)) }
}

// wantStatus checks a status result's state, amount in paise, UTR and order.
func wantStatus(txn upicollect.TxnStatus, paise int64, utr, orderID string) func(*testing.T, any) {
	return statusCheck(func(t *testing.T, st *upicollect.PaymentStatus) {
		assert.Equal(t, txn, st.TxnStatus)
		assert.Equal(t, paise, st.Amount.Paise())
		assert.Equal(t, utr, st.UTR)
		assert.Equal(t, orderID, st.OrderID)
		assert.Equal(t, txn == upicollect.TxnSuccess, st.Paid())
	})
}

// statusBody is a SUCCESS status answer of 499.00 whose data begins with
// order, the data's order keys (each followed by a comma).
func statusBody(order string) []byte {
	return []byte(`{"status":true,"statusCode":200,"msg":"ok","data":{` + order + `"amount":"499.00","status":"SUCCESS","UTR":"1"}}`)
}

// wantNamed checks a SUCCESS of paise and whether it named its order.
func wantNamed(named bool, paise int64) func(*testing.T, any) {
	return statusCheck(func(t *testing.T, st *upicollect.PaymentStatus) {
		assert.Equal(t, upicollect.TxnSuccess, st.TxnStatus)
		assert.Equal(t, paise, st.Amount.Paise())
		assert.Equal(t, named, st.OrderNamed)
	})
}

var (
	errUnauthorized = upicollect.ErrUnauthorized
	errDuplicate    = upicollect.ErrDuplicateOrderID
	errInvalid      = upicollect.ErrInvalidRequest
	errNotFound     = upicollect.ErrNotFound
	errRateLimited  = upicollect.ErrRateLimited
	errServer       = upicollect.ErrServer
	errUnexpected   = upicollect.ErrUnexpectedResponse
	errUnknown      = upicollect.ErrOutcomeUnknown
)

func decodeCases() []decodeCase {
	return []decodeCase{
		// createPaymentIntent
		{name: "intent_success", op: opIntent, file: "intent_success.json", status: 200, orderID: "ORD-1001",
			check: intentCheck(func(t *testing.T, in *upicollect.Intent) {
				assert.Equal(t, "ORD-1001", in.OrderID)
				assert.Equal(t, int64(49900), in.Amount.Paise())
				assert.Equal(t, "upi://pay?pa=acme@okaxis&pn=Acme%20Store&am=499.00&tr=ORD-1001&cu=INR", in.Link)
				assert.Equal(t, map[string]string{
					"app_a": "appa://upi/pay?pa=acme@okaxis&am=499.00&tr=ORD-1001&cu=INR",
					"app_b": "appb://upi/pay?pa=acme@okaxis&am=499.00&tr=ORD-1001&cu=INR",
					"app_c": "appc://upi/pay?pa=acme@okaxis&am=499.00&tr=ORD-1001&cu=INR",
				}, in.AppLinks)
				assert.Equal(t, "https://pay.example.com/qr/ORD-1001", in.DynamicQR)
				assert.True(t, time.Date(2025, 1, 15, 12, 30, 0, 0, ist).Equal(in.ExpiresAt), in.ExpiresAt)
				assert.True(t, time.Date(2025, 1, 15, 7, 0, 0, 0, time.UTC).Equal(in.ExpiresAt), in.ExpiresAt)
				assert.Equal(t, "Payment intent created successfully", in.Message)
			})},
		{name: "intent_success_live_apps", op: opIntent, file: "intent_success_live_apps.json", status: 200, amount: 100, orderID: "PCS1736930000123",
			check: intentCheck(func(t *testing.T, in *upicollect.Intent) {
				assert.Equal(t, "PCS1736930000123", in.OrderID, "the service-generated id")
				assert.Equal(t, int64(10000), in.Amount.Paise(), "the amount the service echoes")
				assert.Equal(t, []string{"cred", "gpay", "paytm", "phonepe"}, sortedKeys(in.AppLinks))
				assert.Equal(t, "tez://upi/pay?pa=acme@ybl&pn=Acme&am=100.00&tr=PCS1736930000123&cu=INR", in.AppLinks["gpay"])
				assert.Equal(t, "Acme Store", in.MerchantName)
				assert.True(t, strings.HasPrefix(in.DynamicQR, "data:image/png;base64,iVBORw0KGgo"), in.DynamicQR)
				assert.True(t, time.Date(2025, 1, 15, 16, 5, 0, 0, ist).Equal(in.ExpiresAt), in.ExpiresAt)
			})},
		{name: "intent_amount_decimal_string", op: opIntent, file: "intent_amount_decimal_string.json", status: 200, orderID: "ORD-1002",
			check: intentCheck(func(t *testing.T, in *upicollect.Intent) {
				assert.Equal(t, "ORD-1002", in.OrderID)
				assert.Equal(t, int64(49900), in.Amount.Paise())
				assert.Nil(t, in.AppLinks)
				assert.True(t, in.ExpiresAt.IsZero(), "an unparseable expiry is the zero time")
				assert.Equal(t, "upi://pay?pa=acme@okaxis&am=499.00&tr=ORD-1002", in.DynamicQR, "a QR payload is kept as sent")
			})},
		{name: "intent_amount_null", op: opIntent, file: "intent_amount_null.json", status: 200, orderID: "ORD-1003",
			check: intentCheck(func(t *testing.T, in *upicollect.Intent) {
				assert.Equal(t, "ORD-1003", in.OrderID)
				assert.Equal(t, int64(49900), in.Amount.Paise(), "a null amount is absent: the requested one stands")
			})},
		{name: "intent_amount_bad", op: opIntent, file: "intent_amount_bad.json", status: 200, orderID: "ORD-1004",
			is: []error{errUnexpected, errUnknown}, api: &apiWant{200, 200, "Intent generated", "ORD-1004"}},
		// Links that pay another amount, order or payee, or that are not
		// UPI links, never reach the caller: the create's outcome is unknown.
		{name: "intent_links_other_amount", op: opIntent, status: 200, orderID: "ORD-1001",
			body: []byte(`{"status":true,"statusCode":200,"msg":"ok","data":{"intent":"upi://pay?pa=acme@okaxis&am=4999.00&tr=ORD-1001","amount":"499","orderId":"ORD-1001"}}`),
			is:   []error{errUnexpected, errUnknown}, api: &apiWant{200, 200, "ok", "ORD-1001"}},
		{name: "intent_links_other_payee", op: opIntent, status: 200, orderID: "ORD-1001",
			body: []byte(`{"status":true,"statusCode":200,"msg":"ok","data":{"intent":"upi://pay?pa=acme@okaxis&am=499&tr=ORD-1001",` +
				`"phonepe":"phonepe://pay?pa=thief@ybl&am=499&tr=ORD-1001","amount":"499","orderId":"ORD-1001"}}`),
			is: []error{errUnexpected, errUnknown}, api: &apiWant{200, 200, "ok", "ORD-1001"}},
		{name: "intent_links_web_app_link", op: opIntent, status: 200, orderID: "ORD-1001",
			body: []byte(`{"status":true,"statusCode":200,"msg":"ok","data":{"intent":"upi://pay?pa=acme@okaxis&am=499&tr=ORD-1001",` +
				`"phonepe":"https://evil.example/pay?pa=acme@okaxis&am=499&tr=ORD-1001","amount":"499","orderId":"ORD-1001"}}`),
			is: []error{errUnexpected, errUnknown}, api: &apiWant{200, 200, "ok", "ORD-1001"}},
		{name: "intent_other_order", op: opIntent, status: 200, orderID: "ORD-1001",
			body: []byte(`{"status":true,"statusCode":200,"msg":"ok","data":{"intent":"upi://pay?pa=acme@okaxis&am=499&tr=ORD-1001","amount":"499","orderId":"ORD-9"}}`),
			is:   []error{errUnexpected, errUnknown}, api: &apiWant{200, 200, "ok", "ORD-1001"}},
		{name: "intent_other_amount", op: opIntent, status: 200,
			body: []byte(`{"status":true,"statusCode":200,"msg":"ok","data":{"intent":"upi://pay?pa=acme@okaxis&am=1","amount":"1"}}`),
			is:   []error{errUnexpected, errUnknown}, api: &apiWant{200, 200, "ok", ""}},
		{name: "intent_no_data", op: opIntent, file: "success_no_data.json", status: 200,
			is: []error{errUnexpected, errUnknown}, api: &apiWant{200, 200, "Created", ""}},
		{name: "intent_duplicate_409", op: opIntent, file: "duplicate_409.json", status: 409, orderID: "ORD-1001",
			is: []error{errDuplicate}, api: &apiWant{409, 409, "Order ID already exists", "ORD-1001"}},
		{name: "intent_duplicate_http200", op: opIntent, file: "duplicate_409.json", status: 200, orderID: "ORD-1001",
			is: []error{errDuplicate}, api: &apiWant{200, 409, "Order ID already exists", "ORD-1001"}},
		{name: "intent_missing_auth_401", op: opIntent, file: "missing_auth.json", status: 401,
			is: []error{errUnauthorized}, api: &apiWant{401, 0, "Authorization header is required", ""}},
		{name: "intent_missing_auth_http200", op: opIntent, file: "missing_auth.json", status: 200,
			is: []error{errUnauthorized}, api: &apiWant{200, 0, "Authorization header is required", ""}},
		{name: "intent_invalid_400", op: opIntent, file: "invalid_400.json", status: 400,
			is: []error{errInvalid}, api: &apiWant{400, 400, "customer_mobile must be a valid 10-digit number", ""}},
		{name: "intent_server_error_500", op: opIntent, file: "server_error_500.json", status: 500,
			is: []error{errServer, errUnknown}, api: &apiWant{500, 500, "Internal server error", ""}},
		{name: "intent_server_error_500_keyed", op: opIntent, file: "server_error_500.json", status: 500, orderID: "ORD-1001",
			is: []error{errServer, errUnknown}, api: &apiWant{500, 500, "Internal server error", "ORD-1001"}},
		{name: "intent_rate_limited_429", op: opIntent, file: "rate_limited_429.json", status: 429,
			is: []error{errRateLimited, errUnknown}, api: &apiWant{429, 429, "Too many requests", ""}},
		{name: "intent_bad_gateway_502", op: opIntent, file: "bad_gateway_502.html", status: 502,
			is: []error{errServer, errUnexpected, errUnknown}, api: &apiWant{502, 0, "", ""}},
		{name: "intent_truncated_200", op: opIntent, file: "truncated.json", status: 200,
			is: []error{errUnexpected, errUnknown}, api: &apiWant{200, 0, "", ""}},
		{name: "intent_not_envelope_400", op: opIntent, file: "not_envelope.json", status: 400,
			is: []error{errUnexpected, errInvalid, errUnknown}, api: &apiWant{400, 0, "", ""}},
		{name: "intent_empty_200", op: opIntent, body: []byte{}, status: 200,
			is: []error{errUnexpected, errUnknown}, api: &apiWant{200, 0, "", ""}},
		{name: "intent_refused_200", op: opIntent, file: "refused_200.json", status: 200,
			is: []error{errInvalid}, api: &apiWant{200, 200, "Merchant account is inactive", ""}},

		// createPaymentRequest
		{name: "request_success", op: opRequest, file: "request_success.json", status: 200, orderID: "ORD-2001",
			check: requestCheck(func(t *testing.T, pr *upicollect.PaymentRequest) {
				assert.Equal(t, "ORD-2001", pr.OrderID)
				assert.Equal(t, "https://pay.example.com/request/ORD-2001", pr.PaymentURL)
				assert.True(t, pr.ExpiresAt.IsZero())
				assert.Equal(t, "Payment request sent successfully", pr.Message)
			})},
		{name: "request_success_iso_expiry", op: opRequest, file: "request_success_iso_expiry.json", status: 200, orderID: "PCS1736930000456",
			check: requestCheck(func(t *testing.T, pr *upicollect.PaymentRequest) {
				assert.Equal(t, "PCS1736930000456", pr.OrderID)
				assert.Equal(t, "https://pay.example.com/request/PCS1736930000456", pr.PaymentURL)
				assert.True(t, time.Date(2025, 1, 15, 7, 0, 0, 0, time.UTC).Equal(pr.ExpiresAt), pr.ExpiresAt)
			})},
		{name: "request_success_order_id_from_params", op: opRequest, status: 200, orderID: "ORD-2002",
			body: []byte(`{"status":true,"statusCode":200,"msg":"sent","data":{"payment_url":"https://pay.example.com/r/2"}}`),
			check: requestCheck(func(t *testing.T, pr *upicollect.PaymentRequest) {
				assert.Equal(t, "ORD-2002", pr.OrderID, "the caller's id when the answer has none")
			})},
		{name: "request_duplicate_409", op: opRequest, file: "duplicate_409.json", status: 409, orderID: "ORD-2001",
			is: []error{errDuplicate}, api: &apiWant{409, 409, "Order ID already exists", "ORD-2001"}},
		{name: "request_unauthorized_401", op: opRequest, file: "unauthorized_401.json", status: 401,
			is: []error{errUnauthorized}, api: &apiWant{401, 401, "Invalid API credentials", ""}},
		{name: "request_no_data", op: opRequest, file: "success_no_data.json", status: 200, orderID: "ORD-2001",
			is: []error{errUnexpected, errUnknown}, api: &apiWant{200, 200, "Created", "ORD-2001"}},
		{name: "request_data_not_object", op: opRequest, file: "data_not_object.json", status: 200,
			is: []error{errUnexpected, errUnknown}, api: &apiWant{200, 0, "", ""}},
		{name: "request_not_found_404", op: opRequest, file: "not_found_404.json", status: 404,
			is: []error{errNotFound}, api: &apiWant{404, 404, "Route not found", ""}},

		// createPaymentLink
		{name: "link_success", op: opLink, file: "link_success.json", status: 200,
			check: linkCheck(func(t *testing.T, pl *upicollect.PaymentLink) {
				assert.Equal(t, "https://pay.example.com/l/AbC123xyz", pl.URL)
				assert.Equal(t, "", pl.OrderID)
				assert.Equal(t, "Payment link generated successfully", pl.Message)
			})},
		{name: "link_missing_auth_401", op: opLink, file: "missing_auth.json", status: 401,
			is: []error{errUnauthorized}, api: &apiWant{401, 0, "Authorization header is required", ""}},
		{name: "link_no_payment_link", op: opLink, file: "link_no_payment_link.json", status: 200,
			is: []error{errUnexpected, errUnknown}, api: &apiWant{200, 200, "Payment link generated successfully", ""}},
		{name: "link_no_data", op: opLink, file: "success_no_data.json", status: 200,
			is: []error{errUnexpected, errUnknown}, api: &apiWant{200, 200, "Created", ""}},
		{name: "link_server_error_500", op: opLink, file: "server_error_500.json", status: 500,
			is: []error{errServer, errUnknown}, api: &apiWant{500, 500, "Internal server error", ""}},
		{name: "link_empty_204", op: opLink, body: []byte{}, status: 204,
			is: []error{errUnexpected, errUnknown}, api: &apiWant{204, 0, "", ""}},
		{name: "link_not_found_404", op: opLink, file: "not_found_404.json", status: 404,
			is: []error{errNotFound}, api: &apiWant{404, 404, "Route not found", ""}},
		{name: "link_invalid_http200", op: opLink, file: "invalid_400.json", status: 200,
			is: []error{errInvalid}, api: &apiWant{200, 400, "customer_mobile must be a valid 10-digit number", ""}},

		// checkPaymentStatus
		{name: "status_success_spec", op: opStatus, file: "status_success_spec.json", status: 200,
			check: wantStatus(upicollect.TxnSuccess, 49900, "412345678901", "ORD-3001")},
		{name: "status_success_data_status", op: opStatus, file: "status_success_data_status.json", status: 200,
			check: statusCheck(func(t *testing.T, st *upicollect.PaymentStatus) {
				assert.Equal(t, upicollect.TxnSuccess, st.TxnStatus)
				assert.Equal(t, int64(20000), st.Amount.Paise())
				assert.Equal(t, "ravi.kumar@oksbi", st.VPA)
				assert.Equal(t, "TXN9876543210", st.TransactionID)
				assert.Equal(t, "", st.UTR)
				assert.True(t, st.Paid())
			})},
		{name: "status_success_bare", op: opStatus, file: "status_success_bare.json", status: 200,
			check: wantStatus(upicollect.TxnSuccess, 100, "412345678902", "ORD-3001")},
		{name: "status_pending_spec", op: opStatus, file: "status_pending_spec.json", status: 200, orderID: "ORD-9999",
			check: statusCheck(func(t *testing.T, st *upicollect.PaymentStatus) {
				assert.Equal(t, upicollect.TxnPending, st.TxnStatus)
				assert.Equal(t, "ORD-9999", st.OrderID)
				assert.Equal(t, int64(0), st.Amount.Paise())
				assert.Equal(t, "Transaction not found", st.Message)
				assert.False(t, st.Paid())
				assert.False(t, st.TxnStatus.Terminal())
			})},
		{name: "status_not_found_404", op: opStatus, file: "status_not_found_404.json", status: 404, orderID: "ORD-9999",
			check: wantStatus(upicollect.TxnPending, 0, "", "ORD-9999")},
		{name: "status_not_found_404_http200", op: opStatus, file: "status_not_found_404.json", status: 200, orderID: "ORD-9999",
			check: wantStatus(upicollect.TxnPending, 0, "", "ORD-9999")},
		{name: "status_string_status_code", op: opStatus, file: "status_string_status_code.json", status: 200,
			check: wantStatus(upicollect.TxnSuccess, 1000, "412345678903", "ORD-3001")},
		{name: "status_amount_decimal", op: opStatus, file: "status_amount_decimal.json", status: 200,
			check: wantStatus(upicollect.TxnSuccess, 108, "412345678904", "ORD-3001")},
		{name: "status_amount_string", op: opStatus, file: "status_amount_string.json", status: 200,
			check: wantStatus(upicollect.TxnSuccess, 12300, "412345678905", "ORD-3001")},
		{name: "status_txn_lowercase", op: opStatus, file: "status_txn_lowercase.json", status: 200,
			check: wantStatus(upicollect.TxnSuccess, 49900, "412345678906", "ORD-3001")},
		{name: "status_fail", op: opStatus, file: "status_fail.json", status: 200,
			check: statusCheck(func(t *testing.T, st *upicollect.PaymentStatus) {
				assert.Equal(t, upicollect.TxnFail, st.TxnStatus)
				assert.True(t, st.TxnStatus.Terminal())
				assert.False(t, st.Paid())
				assert.Equal(t, "Transaction failed", st.Message)
			})},
		{name: "status_reject", op: opStatus, file: "status_reject.json", status: 200,
			check: wantStatus(upicollect.TxnReject, 49900, "", "ORD-3001")},
		{name: "status_unknown_txn", op: opStatus, file: "status_unknown_txn.json", status: 200,
			check: statusCheck(func(t *testing.T, st *upicollect.PaymentStatus) {
				assert.Equal(t, upicollect.TxnStatus("REVERSED"), st.TxnStatus, "kept verbatim")
				assert.True(t, st.TxnStatus.Terminal())
				assert.False(t, st.Paid())
				assert.Equal(t, int64(49900), st.Amount.Paise())
			})},
		{name: "status_missing_auth_401", op: opStatus, file: "missing_auth.json", status: 401,
			is: []error{errUnauthorized}, api: &apiWant{401, 0, "Authorization header is required", "ORD-3001"}},
		{name: "status_missing_auth_http200", op: opStatus, file: "missing_auth.json", status: 200,
			is: []error{errUnauthorized}, api: &apiWant{200, 0, "Authorization header is required", "ORD-3001"}},
		{name: "status_unauthorized_401", op: opStatus, file: "unauthorized_401.json", status: 401,
			is: []error{errUnauthorized}, api: &apiWant{401, 401, "Invalid API credentials", "ORD-3001"}},
		{name: "status_invalid_400", op: opStatus, file: "invalid_400.json", status: 400,
			is: []error{errInvalid}, api: &apiWant{400, 400, "customer_mobile must be a valid 10-digit number", "ORD-3001"}},
		{name: "status_server_error_500", op: opStatus, file: "server_error_500.json", status: 500,
			is: []error{errServer}, api: &apiWant{500, 500, "Internal server error", "ORD-3001"}},
		{name: "status_rate_limited_429", op: opStatus, file: "rate_limited_429.json", status: 429,
			is: []error{errRateLimited}, api: &apiWant{429, 429, "Too many requests", "ORD-3001"}},
		{name: "status_bad_gateway_502", op: opStatus, file: "bad_gateway_502.html", status: 502,
			is: []error{errServer, errUnexpected}, api: &apiWant{502, 0, "", "ORD-3001"}},
		{name: "status_truncated_200", op: opStatus, file: "truncated.json", status: 200,
			is: []error{errUnexpected}, api: &apiWant{200, 0, "", "ORD-3001"}},
		{name: "status_not_envelope_200", op: opStatus, file: "not_envelope.json", status: 200,
			is: []error{errUnexpected}, api: &apiWant{200, 0, "", "ORD-3001"}},
		{name: "status_empty_200", op: opStatus, body: []byte{}, status: 200,
			is: []error{errUnexpected}, api: &apiWant{200, 0, "", "ORD-3001"}},
		{name: "status_no_state", op: opStatus, file: "status_no_state.json", status: 200,
			is: []error{errUnexpected}, api: &apiWant{200, 200, "OK", "ORD-3001"}},
		{name: "status_amount_bad", op: opStatus, file: "status_amount_bad.json", status: 200,
			is: []error{errUnexpected}, api: &apiWant{200, 200, "Payment was successful", "ORD-3001"}},
		{name: "status_html_404", op: opStatus, body: []byte("404 page not found\n"), status: 404,
			is: []error{errUnexpected, errNotFound}, api: &apiWant{404, 0, "", "ORD-3001"}},
		{name: "status_data_not_object", op: opStatus, file: "data_not_object.json", status: 200,
			is: []error{errUnexpected}, api: &apiWant{200, 0, "", "ORD-3001"}},

		// Whether the answer names its order: data.order_id or data.orderId,
		// exactly (OrderNamed). Another spelling of an order key, a
		// repeated one or a twin of data ("Data") never names it, and one
		// that names another order makes the answer refused.
		{name: "status_named_order_id", op: opStatus, status: 200, orderID: "ORD-A",
			body:  statusBody(`"order_id":"ORD-A",`),
			check: wantNamed(true, 49900)},
		{name: "status_named_orderId_number", op: opStatus, status: 200, orderID: "12345",
			body:  statusBody(`"orderId":12345,`),
			check: wantNamed(true, 49900)},
		{name: "status_named_empty_order_id_then_orderId", op: opStatus, status: 200, orderID: "ORD-A",
			body:  statusBody(`"order_id":"","orderId":"ORD-A",`),
			check: wantNamed(true, 49900)},
		{name: "status_unnamed", op: opStatus, status: 200, orderID: "ORD-A",
			body:  statusBody(``),
			check: wantNamed(false, 49900)},
		{name: "status_unnamed_order_id_null", op: opStatus, status: 200, orderID: "ORD-A",
			body:  statusBody(`"order_id":null,`),
			check: wantNamed(false, 49900)},
		{name: "status_unnamed_variant_of_the_order", op: opStatus, status: 200, orderID: "ORD-A",
			body:  statusBody(`"ORDER_ID":"ORD-A",`),
			check: wantNamed(false, 49900)},
		{name: "status_unnamed_twin_of_the_order", op: opStatus, status: 200, orderID: "ORD-A",
			body:  []byte(`{"status":true,"statusCode":200,"msg":"ok","data":{"amount":"499.00","status":"SUCCESS","UTR":"1"},"Data":{"order_id":"ORD-A"}}`),
			check: wantNamed(false, 49900)},
		{name: "status_other_order_id", op: opStatus, status: 200, orderID: "ORD-A", body: statusBody(`"order_id":"ORD-B",`),
			is: []error{errUnexpected}, api: &apiWant{200, 200, "ok", "ORD-A"}},
		{name: "status_other_upper_snake", op: opStatus, status: 200, orderID: "ORD-A", body: statusBody(`"ORDER_ID":"ORD-B",`),
			is: []error{errUnexpected}, api: &apiWant{200, 200, "ok", "ORD-A"}},
		{name: "status_other_title_snake", op: opStatus, status: 200, orderID: "ORD-A", body: statusBody(`"Order_Id":"ORD-B",`),
			is: []error{errUnexpected}, api: &apiWant{200, 200, "ok", "ORD-A"}},
		{name: "status_other_orderID", op: opStatus, status: 200, orderID: "ORD-A", body: statusBody(`"orderID":"ORD-B",`),
			is: []error{errUnexpected}, api: &apiWant{200, 200, "ok", "ORD-A"}},
		{name: "status_other_ORDERID_number", op: opStatus, status: 200, orderID: "ORD-A", body: statusBody(`"ORDERID":77,`),
			is: []error{errUnexpected}, api: &apiWant{200, 200, "ok", "ORD-A"}},
		{name: "status_other_order-id", op: opStatus, status: 200, orderID: "ORD-A", body: statusBody(`"order-id":"ORD-B",`),
			is: []error{errUnexpected}, api: &apiWant{200, 200, "ok", "ORD-A"}},
		{name: "status_other_variant_beside_order_id", op: opStatus, status: 200, orderID: "ORD-A", body: statusBody(`"order_id":"ORD-A","ORDER_ID":"ORD-B",`),
			is: []error{errUnexpected}, api: &apiWant{200, 200, "ok", "ORD-A"}},
		{name: "status_other_orderId_beside_order_id", op: opStatus, status: 200, orderID: "ORD-A", body: statusBody(`"order_id":"ORD-A","orderId":"ORD-B",`),
			is: []error{errUnexpected}, api: &apiWant{200, 200, "ok", "ORD-A"}},
		{name: "status_other_repeated_order_id", op: opStatus, status: 200, orderID: "ORD-A", body: statusBody(`"order_id":"ORD-B","order_id":"ORD-A",`),
			is: []error{errUnexpected}, api: &apiWant{200, 200, "ok", "ORD-A"}},
		{name: "status_other_Data_twin", op: opStatus, status: 200, orderID: "ORD-A",
			body: []byte(`{"status":true,"statusCode":200,"msg":"ok","data":{"amount":"499.00","status":"SUCCESS","UTR":"1"},"Data":{"ORDER_ID":"ORD-B"}}`),
			is:   []error{errUnexpected}, api: &apiWant{200, 200, "ok", "ORD-A"}},
		{name: "status_other_repeated_data", op: opStatus, status: 200, orderID: "ORD-A",
			body: []byte(`{"status":true,"statusCode":200,"msg":"ok","data":{"order_id":"ORD-B"},"data":{"order_id":"ORD-A","amount":"499.00","status":"SUCCESS","UTR":"1"}}`),
			is:   []error{errUnexpected}, api: &apiWant{200, 200, "ok", "ORD-A"}},
	}
}

// TestDecodeResponses serves every golden answer to its operation and checks
// the decoded result or the error, the *Response, and the golden decoded
// form in testdata/decoded.
func TestDecodeResponses(t *testing.T) {
	t.Parallel()
	for _, tc := range decodeCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body := tc.body
			contentType := "application/json"
			if tc.file != "" {
				body = loadResponse(t, tc.file)
				if strings.HasSuffix(tc.file, ".html") {
					contentType = "text/html"
				}
			}
			srv := newTestServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
				w.Header().Set("Content-Type", contentType)
				w.Header().Set("X-Case", tc.name)
				w.WriteHeader(tc.status)
				_, _ = w.Write(body)
			})
			c, _ := newClient(t, srv.BaseURL(), noRetry())
			in := validInput()
			in.OrderID = tc.orderID
			if tc.amount != 0 {
				in.Amount = upicollect.Rupees(tc.amount)
			}
			res, resp, err := in.call(context.Background(), c, tc.op)
			require.Equal(t, 1, srv.Count())
			// Without an order id, an intent or request carries one the
			// client made with NewOrderID: the golden files name it
			// anyNewOrderID.
			var sent string
			var newID []string
			if tc.orderID == "" && (tc.op == opIntent || tc.op == opRequest) {
				sent = srv.Last(t).Form.Get("order_id")
				assert.Regexp(t, newOrderIDPattern, sent)
				newID = []string{sent, anyNewOrderID}
			}

			checkResponse := func(r *upicollect.Response) {
				t.Helper()
				require.NotNil(t, r)
				assert.Equal(t, tc.status, r.HTTPStatus)
				assert.Equal(t, tc.name, r.Header.Get("X-Case"))
				assert.Equal(t, string(body), string(r.Body), "the raw body as received")
				assert.Equal(t, 1, r.Attempts)
				assert.GreaterOrEqual(t, r.Duration, time.Duration(0))
			}

			if tc.check != nil {
				require.NoError(t, err)
				require.NotNil(t, res)
				checkResponse(resp)
				tc.check(t, res)
				goldenJSON(t, tc.name, decodedView{Result: resultView(res)}, newID...)
				return
			}
			require.Error(t, err)
			assert.Nil(t, res)
			assertSentinels(t, err, tc.is...)
			assert.False(t, errors.Is(err, upicollect.ErrValidation))
			var ae *upicollect.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.op, ae.Op)
			if tc.api != nil {
				assert.Equal(t, tc.api.HTTPStatus, ae.HTTPStatus)
				assert.Equal(t, tc.api.StatusCode, ae.StatusCode)
				assert.Equal(t, tc.api.Message, ae.Message)
				assert.Equal(t, cmp.Or(tc.api.OrderID, sent), ae.OrderID)
			}
			checkResponse(ae.Response)
			assert.True(t, strings.HasPrefix(err.Error(), "upicollect: "+tc.op+": "), err.Error())
			goldenJSON(t, tc.name, decodedView{Error: newErrorView(err)}, newID...)
		})
	}
}

// decodedView is what testdata/decoded holds: a result without its raw
// Response, or an error's matches and fields.
type decodedView struct {
	Result map[string]any `json:"result,omitempty"`
	Error  *errorView     `json:"error,omitempty"`
}

type errorView struct {
	Matches    []string `json:"matches"`
	Op         string   `json:"op"`
	HTTPStatus int      `json:"http_status"`
	StatusCode int      `json:"status_code"`
	Message    string   `json:"message"`
	OrderID    string   `json:"order_id"`
	Reason     string   `json:"reason,omitempty"`
	Text       string   `json:"text"`
}

func newErrorView(err error) *errorView {
	v := &errorView{Matches: matchedSentinels(err), Text: err.Error()}
	var ae *upicollect.APIError
	if errors.As(err, &ae) {
		v.Op, v.HTTPStatus, v.StatusCode, v.Message, v.OrderID = ae.Op, ae.HTTPStatus, ae.StatusCode, ae.Message, ae.OrderID
		v.Reason = ae.Reason
	}
	return v
}

// resultView marshals a result without its Response (amounts stay in paise).
func resultView(res any) map[string]any {
	var b []byte
	var err error
	switch r := res.(type) {
	case *upicollect.Intent:
		cp := *r
		cp.Response = nil
		b, err = json.Marshal(cp)
	case *upicollect.PaymentRequest:
		cp := *r
		cp.Response = nil
		b, err = json.Marshal(cp)
	case *upicollect.PaymentLink:
		cp := *r
		cp.Response = nil
		b, err = json.Marshal(cp)
	case *upicollect.PaymentStatus:
		cp := *r
		cp.Response = nil
		b, err = json.Marshal(cp)
	default:
		panic("unknown result type")
	}
	if err != nil {
		panic(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	delete(m, "Response")
	return m
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
