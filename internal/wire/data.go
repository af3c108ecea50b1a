package wire

import (
	"encoding/json"
	"net/url"
	"sort"
	"strings"
	"time"
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
func DecodeIntentData(data json.RawMessage) (*IntentData, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	d := &IntentData{
		OrderID:      firstString(raw, "orderId", "order_id"),
		Link:         firstString(raw, "intent"),
		DynamicQR:    firstString(raw, "dynamicQR"),
		Expiry:       firstString(raw, "expiry"),
		MerchantName: firstString(raw, "merchantName"),
	}
	if a, ok := raw["amount"]; ok && !isNull(a) {
		d.Amount = a
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if intentKnown[k] {
			continue
		}
		s, ok := ReadString(raw[k])
		if !ok || !looksLikeLink(s) {
			continue
		}
		if d.AppLinks == nil {
			d.AppLinks = make(map[string]string)
		}
		d.AppLinks[k] = s
	}
	return d, nil
}

func looksLikeLink(s string) bool {
	u, err := url.Parse(strings.TrimSpace(s))
	return err == nil && u.Scheme != "" && (u.Opaque != "" || u.Host != "" || u.Path != "" || u.RawQuery != "")
}

// PaymentRequestData is createPaymentRequest's data.
type PaymentRequestData struct {
	OrderID    string
	PaymentURL string
	Expiry     string
}

// DecodePaymentRequestData reads the payment request's data.
func DecodePaymentRequestData(data json.RawMessage) (*PaymentRequestData, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	return &PaymentRequestData{
		OrderID:    firstString(raw, "orderId", "order_id"),
		PaymentURL: firstString(raw, "payment_url", "paymentUrl"),
		Expiry:     firstString(raw, "expiry"),
	}, nil
}

// LinkData is createPaymentLink's data.
type LinkData struct {
	PaymentLink string
	OrderID     string // not in the interface; kept if the service sends one
}

// DecodeLinkData reads the payment link's data.
func DecodeLinkData(data json.RawMessage) (*LinkData, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	return &LinkData{
		PaymentLink: firstString(raw, "payment_link", "paymentLink"),
		OrderID:     firstString(raw, "orderId", "order_id"),
	}, nil
}

// StatusData is checkPaymentStatus's data in any of its known shapes.
type StatusData struct {
	OrderID       string
	Amount        json.RawMessage // number or string; nil when absent
	UTR           string
	Status        string // data.status, where the state sits in one live shape
	VPA           string
	TransactionID string
}

// DecodeStatusData reads the status check's data.
func DecodeStatusData(data json.RawMessage) (*StatusData, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	d := &StatusData{
		OrderID:       firstText(raw, "order_id", "orderId"),
		UTR:           firstText(raw, "UTR", "utr"),
		Status:        firstString(raw, "status", "txnStatus"),
		VPA:           firstString(raw, "vpa"),
		TransactionID: firstText(raw, "transaction_id", "transactionId"),
	}
	if a, ok := raw["amount"]; ok && !isNull(a) {
		d.Amount = a
	}
	return d, nil
}

// HasPayment reports whether the data describes a payment (an amount or a
// UTR): with status true and no state anywhere, that means it succeeded.
func (d *StatusData) HasPayment() bool { return d.Amount != nil || d.UTR != "" }

func firstString(raw map[string]json.RawMessage, keys ...string) string {
	for _, k := range keys {
		if v, ok := raw[k]; ok {
			if s, ok := ReadString(v); ok && s != "" {
				return s
			}
		}
	}
	return ""
}

func firstText(raw map[string]json.RawMessage, keys ...string) string {
	for _, k := range keys {
		if v, ok := raw[k]; ok {
			if s := Text(v); s != "" {
				return s
			}
		}
	}
	return ""
}

// IST is India Standard Time, a fixed zone so that no tzdata is needed.
var IST = time.FixedZone("IST", 5*3600+30*60)

// ParseExpiry reads "YYYY-MM-DD HH:mm:ss" (India time) or ISO-8601; it
// returns the zero time when s is empty or in neither form.
func ParseExpiry(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	if t, err := time.ParseInLocation(time.DateTime, s, IST); err == nil {
		return t
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05"} {
		loc := time.UTC
		if layout == "2006-01-02T15:04:05" {
			loc = IST // no offset given: the service is in India
		}
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t
		}
	}
	return time.Time{}
}
