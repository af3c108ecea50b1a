package wire

import (
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-querystring/query"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/internal/vocab"
)

func TestDecodeIntentData(t *testing.T) {
	t.Parallel()
	d, err := DecodeIntentData(json.RawMessage(`{
		"intent":"upi://pay?pa=a@ybl","phonepe":"phonepe://pay?pa=a@ybl","paytm":"paytmmp://pay",
		"gpay":"tez://upi/pay","cred":"credpay://upi/pay","app_a":"appa:pay",
		"merchantName":"Acme","dynamicQR":"data:image/png;base64,AAAA","expiry":"2025-01-15 12:30:00",
		"amount":"499","order_id":"ORD-1","note":"Paid for: tea","count":3,"blank":"","nolink":"plain text",
		"scheme_only":"x:"
	}`))
	require.NoError(t, err)
	assert.Equal(t, "ORD-1", d.OrderID, "order_id when orderId is absent")
	assert.Equal(t, json.RawMessage(`"499"`), d.Amount)
	assert.Equal(t, "upi://pay?pa=a@ybl", d.Link)
	assert.Equal(t, "data:image/png;base64,AAAA", d.DynamicQR)
	assert.Equal(t, "2025-01-15 12:30:00", d.Expiry)
	assert.Equal(t, "Acme", d.MerchantName)
	assert.Equal(t, map[string]string{
		"phonepe": "phonepe://pay?pa=a@ybl", "paytm": "paytmmp://pay", "gpay": "tez://upi/pay",
		"cred": "credpay://upi/pay", "app_a": "appa:pay",
	}, d.AppLinks)

	d, err = DecodeIntentData(json.RawMessage(`{"orderId":"A","order_id":"B","amount":null}`))
	require.NoError(t, err)
	assert.Equal(t, "A", d.OrderID, "orderId first")
	assert.Nil(t, d.Amount, "a null amount is absent")
	assert.Nil(t, d.AppLinks)

	_, err = DecodeIntentData(json.RawMessage(`[]`))
	assert.Error(t, err)
}

func TestDecodePaymentRequestData(t *testing.T) {
	t.Parallel()
	d, err := DecodePaymentRequestData(json.RawMessage(`{"orderId":"O","payment_url":"https://p/1","expiry":"2025-01-15T12:30:00+05:30"}`))
	require.NoError(t, err)
	assert.Equal(t, &PaymentRequestData{OrderID: "O", PaymentURL: "https://p/1", Expiry: "2025-01-15T12:30:00+05:30"}, d)
	d, err = DecodePaymentRequestData(json.RawMessage(`{"order_id":"O2","paymentUrl":"https://p/2"}`))
	require.NoError(t, err)
	assert.Equal(t, &PaymentRequestData{OrderID: "O2", PaymentURL: "https://p/2"}, d)
	_, err = DecodePaymentRequestData(json.RawMessage(`"x"`))
	assert.Error(t, err)
}

func TestDecodeLinkData(t *testing.T) {
	t.Parallel()
	d, err := DecodeLinkData(json.RawMessage(`{"payment_link":"https://l/1"}`))
	require.NoError(t, err)
	assert.Equal(t, &LinkData{PaymentLink: "https://l/1"}, d)
	d, err = DecodeLinkData(json.RawMessage(`{"paymentLink":"https://l/2","orderId":"O"}`))
	require.NoError(t, err)
	assert.Equal(t, &LinkData{PaymentLink: "https://l/2", OrderID: "O"}, d)
	_, err = DecodeLinkData(json.RawMessage(`1`))
	assert.Error(t, err)
}

func TestDecodeStatusData(t *testing.T) {
	t.Parallel()
	d, err := DecodeStatusData(json.RawMessage(`{"amount":1.08,"UTR":"412","order_id":"O"}`))
	require.NoError(t, err)
	assert.Equal(t, &StatusData{OrderID: "O", Amount: json.RawMessage(`1.08`), UTR: "412"}, d)
	assert.True(t, d.HasPayment())

	d, err = DecodeStatusData(json.RawMessage(`{"orderId":123,"utr":412345,"status":"SUCCESS","vpa":"x@oksbi","transactionId":99}`))
	require.NoError(t, err)
	assert.Equal(t, &StatusData{OrderID: "123", UTR: "412345", Status: "SUCCESS", VPA: "x@oksbi", TransactionID: "99"}, d)
	assert.True(t, d.HasPayment())

	d, err = DecodeStatusData(json.RawMessage(`{"order_id":"O","amount":null,"txnStatus":"FAIL","transaction_id":"T"}`))
	require.NoError(t, err)
	assert.Equal(t, &StatusData{OrderID: "O", Status: "FAIL", TransactionID: "T"}, d)
	assert.False(t, d.HasPayment())

	_, err = DecodeStatusData(json.RawMessage(`[]`))
	assert.Error(t, err)
}

func TestParseExpiry(t *testing.T) {
	t.Parallel()
	want := time.Date(2025, 1, 15, 7, 0, 0, 0, time.UTC)
	for _, s := range []string{
		"2025-01-15 12:30:00",
		" 2025-01-15 12:30:00 ",
		"2025-01-15T12:30:00+05:30",
		"2025-01-15T07:00:00Z",
		"2025-01-15T07:00:00.000Z",
		"2025-01-15T12:30:00+0530",
		"2025-01-15T12:30:00",
	} {
		got := ParseExpiry(s)
		assert.True(t, want.Equal(got), "%q: got %v", s, got)
	}
	assert.Equal(t, vocab.IndiaTime, ParseExpiry("2025-01-15 12:30:00").Location())
	for _, s := range []string{"", "  ", "tomorrow", "15/01/2025 12:30", "2025-13-01 00:00:00"} {
		assert.True(t, ParseExpiry(s).IsZero(), s)
	}
}

// TestRequestsEncodeExactly checks the form each request struct encodes to:
// only the fields its operation accepts, order_id omitted when empty.
func TestRequestsEncodeExactly(t *testing.T) {
	t.Parallel()
	enc := func(v any) url.Values {
		f, err := query.Values(v)
		require.NoError(t, err)
		return f
	}
	assert.Equal(t, url.Values{
		"mid": {"M"}, "amount": {"499"}, "redirect_url": {"https://r"}, "note": {"n"},
		"customer_name": {"c"}, "customer_email": {"e@x.in"}, "customer_mobile": {"9876543210"},
	}, enc(&IntentRequest{MID: "M", Amount: 499, RedirectURL: "https://r", Note: "n", CustomerName: "c", CustomerEmail: "e@x.in", CustomerMobile: "9876543210"}))
	assert.Equal(t, url.Values{
		"mid": {"M"}, "amount": {"1"}, "order_id": {"O"}, "vpa": {"a@b"}, "note": {"n"},
		"customer_name": {"c"}, "customer_email": {"e"}, "customer_mobile": {"m"},
	}, enc(&PaymentRequestRequest{MID: "M", Amount: 1, OrderID: "O", VPA: "a@b", Note: "n", CustomerName: "c", CustomerEmail: "e", CustomerMobile: "m"}))
	assert.Equal(t, url.Values{
		"mid": {"M"}, "amount": {"100000"}, "note": {"n"},
		"customer_name": {"c"}, "customer_email": {"e"}, "customer_mobile": {"m"},
	}, enc(&LinkRequest{MID: "M", Amount: 100000, Note: "n", CustomerName: "c", CustomerEmail: "e", CustomerMobile: "m"}))
	assert.Equal(t, url.Values{"mid": {"M"}, "order_id": {"O"}}, enc(&StatusRequest{MID: "M", OrderID: "O"}))
	assert.Equal(t, "/v1/payments/", vocab.PathPrefix)
}

// TestIsLink: a scheme is a letter, then letters, digits, '+', '-' or '.',
// before a colon with something after it; each boundary of those classes.
func TestIsLink(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"upi://pay?pa=a@b", true},
		{"  phonepe://pay  ", true},
		{"a0:x", true},
		{"a5:x", true},
		{"a9:x", true},
		{"a+.-:x", true},
		{"Z:x", true},
		{":x", false},    // no scheme
		{"upi:", false},  // nothing after the colon
		{"0a:x", false},  // a digit first
		{"9a:x", false},  // a digit first
		{"+a:x", false},  // a sign first
		{"a/:x", false},  // '/' sorts just below '0'
		{"a;:x", false},  // ';' sorts just above '9'
		{"a b:x", false}, // a space inside
		{"plain text", false},
	} {
		assert.Equal(t, tc.want, isLink(tc.s), "%q", tc.s)
	}
}
