package wire

import (
	"encoding/json"
	"net/url"
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
// Every link must pass CheckAppLink: the first that does not (the generic
// one, then per-app ones in key order) is the error.
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
	var unsafe string // the first per-app link, in key order, that fails CheckAppLink
	o.each(func(k []byte, v json.RawMessage) {
		if intentKnown[string(k)] {
			return
		}
		s, ok := ReadString(v)
		if !ok {
			return
		}
		u, ok := parseLink(s)
		if !ok {
			return
		}
		if d.AppLinks == nil {
			d.AppLinks = make(map[string]string)
		}
		key := appKey(k)
		d.AppLinks[key] = s
		if !appLink(u, s) && (unsafe == "" || key < unsafe) {
			unsafe = key
		}
	})
	if d.Link != "" {
		if err := CheckAppLink("intent", d.Link); err != nil {
			return nil, err
		}
	}
	if unsafe != "" {
		return nil, appLinkError(unsafe, d.AppLinks[unsafe])
	}
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

// parseLink parses s when it holds a link (scheme://… or scheme:…, spaces
// around it allowed).
func parseLink(s string) (*url.URL, bool) {
	u, err := url.Parse(strings.TrimSpace(s))
	ok := err == nil && u.Scheme != "" && (u.Opaque != "" || u.Host != "" || u.Path != "" || u.RawQuery != "")
	return u, ok
}

// appLink is CheckAppLink(s) for an s that parseLink read as u, without
// parsing s again when it has no spaces around it.
func appLink(u *url.URL, s string) bool {
	if len(s) != len(strings.TrimSpace(s)) {
		return CheckAppLink("", s) == nil
	}
	return !unsafeSchemes[u.Scheme]
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
	OrderID       string
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
	return readStatusData(&o), nil
}

func readStatusData(o *object) *StatusData {
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
