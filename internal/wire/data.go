package wire

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/upicollect/upicollect-go/internal/vocab"
)

// IntentData is createPaymentIntent's data, with per-app links gathered
// from whatever names the service uses for them.
type IntentData struct {
	OrderID      string
	Amount       json.RawMessage // string on the wire, read with ParseAmount
	Link         string
	AppLinks     map[string]string
	DynamicQR    string
	Expiry       string
	MerchantName string
}

// intentKnown are the keys of the intent's data that are not per-app links.
var intentKnown = map[string]bool{
	"intent": true, "dynamicQR": true, "expiry": true, "amount": true,
	"orderId": true, "order_id": true, "merchantName": true,
}

// DecodeIntentData reads the intent's data. Any other string field that holds
// a link (scheme://… or scheme:…) is a per-app link: the interface names them
// app_a…app_c, the live service phonepe, paytm, gpay and sometimes cred.
// Whether the links are safe to show is not decided here: the caller checks
// them all together (their amount, order and payee agree).
func DecodeIntentData(data json.RawMessage) (*IntentData, error) {
	var o object
	if err := readObject(data, &o); err != nil {
		return nil, err
	}
	return readIntentData(&o)
}

func readIntentData(o *object) (*IntentData, error) {
	d := &IntentData{
		OrderID:      o.firstString("orderId", "order_id"),
		Link:         o.firstString("intent"),
		DynamicQR:    o.firstString("dynamicQR"),
		Expiry:       o.firstString("expiry"),
		MerchantName: o.firstString("merchantName"),
	}
	if a, ok := o.get("amount"); ok && !isNull(a) {
		d.Amount = a
	}
	o.each(func(k []byte, v json.RawMessage) {
		if intentKnown[string(k)] {
			return
		}
		s, ok := ReadString(v)
		if !ok || !isLink(s) {
			return
		}
		if d.AppLinks == nil {
			d.AppLinks = make(map[string]string)
		}
		d.AppLinks[appKey(k)] = s
	})
	return d, nil
}

// appKey returns k as a string, without a copy for the apps the interface
// and the live service name.
func appKey(k []byte) string {
	for _, name := range knownApps {
		if string(k) == name {
			return name
		}
	}
	return string(k)
}

var knownApps = [...]string{"phonepe", "paytm", "gpay", "cred", "app_a", "app_b", "app_c"}

// isLink reports whether s holds a link: a scheme (a letter, then letters,
// digits, '+', '-' or '.'), a colon and something after it, spaces around
// it allowed.
func isLink(s string) bool {
	s = strings.TrimSpace(s)
	colon := strings.IndexByte(s, ':')
	if colon <= 0 || colon == len(s)-1 {
		return false
	}
	for i := 0; i < colon; i++ {
		c := s[i] | 0x20 // lower-case a letter
		switch {
		case c >= 'a' && c <= 'z':
		case i > 0 && (s[i] >= '0' && s[i] <= '9' || s[i] == '+' || s[i] == '-' || s[i] == '.'):
		default:
			return false
		}
	}
	return true
}

// PaymentRequestData is createPaymentRequest's data.
type PaymentRequestData struct {
	OrderID    string
	PaymentURL string
	Expiry     string
}

// DecodePaymentRequestData reads the payment request's data.
func DecodePaymentRequestData(data json.RawMessage) (*PaymentRequestData, error) {
	var o object
	if err := readObject(data, &o); err != nil {
		return nil, err
	}
	return readPaymentRequestData(&o), nil
}

func readPaymentRequestData(o *object) *PaymentRequestData {
	return &PaymentRequestData{
		OrderID:    o.firstString("orderId", "order_id"),
		PaymentURL: o.firstString("payment_url", "paymentUrl"),
		Expiry:     o.firstString("expiry"),
	}
}

// LinkData is createPaymentLink's data.
type LinkData struct {
	PaymentLink string
	OrderID     string // not in the interface; kept if the service sends one
}

// DecodeLinkData reads the payment link's data.
func DecodeLinkData(data json.RawMessage) (*LinkData, error) {
	var o object
	if err := readObject(data, &o); err != nil {
		return nil, err
	}
	return readLinkData(&o), nil
}

func readLinkData(o *object) *LinkData {
	return &LinkData{
		PaymentLink: o.firstString("payment_link", "paymentLink"),
		OrderID:     o.firstString("orderId", "order_id"),
	}
}

// StatusData is checkPaymentStatus's data in any of its known shapes.
type StatusData struct {
	// OrderID is the order the data names: data.order_id or data.orderId,
	// read exactly, a non-empty string or a number's text; "" when the
	// data names none.
	OrderID string
	// OtherOrderIDs are the texts under the data's order keys in any
	// spelling, repeats included (order_id, orderId, ORDER_ID, orderID,
	// Order-Id: "orderid" once lower-cased without '_' and '-'), that are
	// not OrderID, in the order they come; nil when there are none. They
	// never name the order: CheckStatusOrder refuses the answer when one is
	// not the order asked about.
	OtherOrderIDs []string
	Amount        json.RawMessage // number or string; nil when absent
	UTR           string
	Status        string // data.status, where the state sits in one live shape
	VPA           string
	TransactionID string
}

// DecodeStatusData reads the status check's data.
func DecodeStatusData(data json.RawMessage) (*StatusData, error) {
	var o object
	if err := readObject(data, &o); err != nil {
		return nil, err
	}
	return readStatusData(data, &o), nil
}

// readStatusData reads data, read into o.
func readStatusData(data []byte, o *object) *StatusData {
	d := &StatusData{
		OrderID:       o.firstText("order_id", "orderId"),
		UTR:           o.firstText("UTR", "utr"),
		Status:        o.firstString("status", "txnStatus"),
		VPA:           o.firstString("vpa"),
		TransactionID: o.firstText("transaction_id", "transactionId"),
	}
	if a, ok := o.get("amount"); ok && !isNull(a) {
		d.Amount = a
	}
	d.OtherOrderIDs = otherOrderNames(data, o, d.OrderID)
	return d
}

// HasPayment reports whether the data describes a payment (an amount or a
// UTR): with status true and no state anywhere, that means it succeeded.
func (d *StatusData) HasPayment() bool { return d.Amount != nil || d.UTR != "" }

// ParseExpiry reads "YYYY-MM-DD HH:mm:ss" (India time) or ISO-8601; it
// returns the zero time when s is empty or in neither form.
func ParseExpiry(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	if t, err := time.ParseInLocation(vocab.ExpiryLayout, s, vocab.IndiaTime); err == nil {
		return t
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05"} {
		loc := time.UTC
		if layout == "2006-01-02T15:04:05" {
			loc = vocab.IndiaTime // no offset given: the service is in India
		}
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t
		}
	}
	return time.Time{}
}
