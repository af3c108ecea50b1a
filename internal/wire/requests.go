package wire

import (
	"strconv"
	"strings"
)

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

// Encode returns the form body of the status check.
func (r *StatusRequest) Encode() string {
	var f form
	f.grow(len(r.MID) + len(r.OrderID))
	f.add("mid", r.MID)
	f.add("order_id", r.OrderID)
	return f.String()
}

// Encode returns the form body of createPaymentIntent.
func (r *IntentRequest) Encode() string {
	var f form
	f.createFields(r.Amount, r.CustomerEmail, r.CustomerMobile, r.CustomerName, r.MID, r.Note,
		len(r.OrderID)+len(r.RedirectURL))
	f.addUnlessEmpty("order_id", r.OrderID)
	f.add("redirect_url", r.RedirectURL)
	return f.String()
}

// Encode returns the form body of createPaymentRequest.
func (r *PaymentRequestRequest) Encode() string {
	var f form
	f.createFields(r.Amount, r.CustomerEmail, r.CustomerMobile, r.CustomerName, r.MID, r.Note,
		len(r.OrderID)+len(r.VPA))
	f.addUnlessEmpty("order_id", r.OrderID)
	f.add("vpa", r.VPA)
	return f.String()
}

// Encode returns the form body of createPaymentLink.
func (r *LinkRequest) Encode() string {
	var f form
	f.createFields(r.Amount, r.CustomerEmail, r.CustomerMobile, r.CustomerName, r.MID, r.Note, 0)
	return f.String()
}

// createFields starts a create's body with the fields every create has, in
// key order (amount to note); rest is the length of the values to follow.
func (f *form) createFields(amount int64, email, mobile, name, mid, note string, rest int) {
	f.grow(len(email) + len(mobile) + len(name) + len(mid) + len(note) + rest)
	f.addInt("amount", amount)
	f.add("customer_email", email)
	f.add("customer_mobile", mobile)
	f.add("customer_name", name)
	f.add("mid", mid)
	f.add("note", note)
}

// form writes an application/x-www-form-urlencoded body exactly as
// go-querystring's query.Values(r).Encode() would (the tests hold them
// equal): the fields in key order, each value query-escaped. It is written
// by hand because the reflection costs about 30 allocations a call, more than
// the whole hand-written net/http call it must not be slower than; the
// Encode methods add the fields in sorted key order.
type form struct{ b strings.Builder }

// grow makes room for the values' bytes, escaped, and the keys: one
// allocation for a body without unusual characters.
func (f *form) grow(values int) { f.b.Grow(2*values + 128) }

func (f *form) key(k string) {
	if f.b.Len() > 0 {
		f.b.WriteByte('&')
	}
	f.b.WriteString(k)
	f.b.WriteByte('=')
}

func (f *form) add(k, v string) {
	f.key(k)
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case unreserved(c):
			f.b.WriteByte(c)
		case c == ' ':
			f.b.WriteByte('+')
		default:
			f.b.WriteByte('%')
			f.b.WriteByte(hexUpper[c>>4])
			f.b.WriteByte(hexUpper[c&15])
		}
	}
}

func (f *form) addUnlessEmpty(k, v string) {
	if v != "" {
		f.add(k, v)
	}
}

func (f *form) addInt(k string, n int64) {
	f.key(k)
	var buf [20]byte
	f.b.Write(strconv.AppendInt(buf[:0], n, 10))
}

func (f *form) String() string { return f.b.String() }

const hexUpper = "0123456789ABCDEF"

// unreserved reports whether url.QueryEscape leaves c as it is.
func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '_' || c == '.' || c == '~'
}
