package webhook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

// Delivery is one event of an order as a webhook carries it. Its JSON is
// described field by field in the package documentation.
type Delivery struct {
	// ID is the same for every delivery of one event: "evt_" and 32 hex
	// digits derived from the order id and the result. Record it, and
	// drop a delivery whose ID you have seen.
	ID       string
	OrderID  string           // the order id given to the service
	Result   reconcile.Result // paid, failed, late_paid, expired or mismatch
	Expected upicollect.Money // the tracked amount: Event.Expected
	// Paid is what the status check reported paid, Event.Paid: its amount
	// when it said SUCCESS (Paid, LatePaid, Mismatch), 0 for the other
	// results.
	Paid   upicollect.Money
	UTR    string // the bank's reference, when the status check gave one
	Reason string // why an order Expired; "" for the other results
	// At is when the sweeper found the event, Event.At; a Sender's
	// redelivery carries its first delivery's body, this time included.
	At time.Time
}

// NewDelivery returns the Delivery of e, as Sender sends it.
func NewDelivery(e reconcile.Event) Delivery {
	d := Delivery{
		ID:       DeliveryID(e.Order.ID, e.Result),
		OrderID:  e.Order.ID,
		Result:   e.Result,
		Expected: e.Expected,
		Paid:     e.Paid,
		Reason:   e.Reason,
		At:       e.At,
	}
	if s := e.Status; s != nil {
		d.UTR = s.UTR
	}
	return d
}

// DeliveryID is the Delivery.ID of an order's event: "evt_" followed by
// the first 32 lower-case hex digits of SHA-256(orderID, a zero byte,
// result). An order has at most one event of each result, so the id names
// the event, whichever sweeper delivers it and however often.
func DeliveryID(orderID string, result reconcile.Result) string {
	h := sha256.New()
	h.Write([]byte(orderID))
	h.Write([]byte{0})
	h.Write([]byte(result))
	return "evt_" + hex.EncodeToString(h.Sum(nil)[:16])
}

// wireDelivery is a Delivery's JSON. Pointers tell a missing field from a
// zero one.
type wireDelivery struct {
	ID            *string           `json:"id"`
	OrderID       *string           `json:"order_id"`
	Result        *reconcile.Result `json:"result"`
	ExpectedPaise *int64            `json:"expected_paise"`
	Expected      *string           `json:"expected,omitempty"`
	PaidPaise     *int64            `json:"paid_paise"`
	Paid          *string           `json:"paid,omitempty"`
	UTR           *string           `json:"utr"`
	Reason        *string           `json:"reason"`
	At            *string           `json:"at"`
}

// MarshalJSON writes d as the package documentation describes: snake_case
// names, each amount in paise and as a rupee string, At in RFC 3339 (UTC).
func (d Delivery) MarshalJSON() ([]byte, error) {
	expected, paid := d.Expected.String(), d.Paid.String()
	ep, pp := d.Expected.Paise(), d.Paid.Paise()
	at := d.At.UTC().Format(time.RFC3339Nano)
	return json.Marshal(wireDelivery{
		ID: &d.ID, OrderID: &d.OrderID, Result: &d.Result,
		ExpectedPaise: &ep, Expected: &expected, PaidPaise: &pp, Paid: &paid,
		UTR: &d.UTR, Reason: &d.Reason, At: &at,
	})
}

// UnmarshalJSON reads what MarshalJSON writes. id, order_id, result,
// expected_paise, paid_paise and at are required; utr and reason may be
// missing (""). The paise are the amounts: the rupee strings may be
// missing, and when present must say the same amount, or the delivery is
// refused. Fields it does not know are ignored, so that later versions can
// add some. Every error wraps ErrBadDelivery, and d is left unchanged.
func (d *Delivery) UnmarshalJSON(b []byte) error {
	var w wireDelivery
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("%w: %v", ErrBadDelivery, err)
	}
	required := []struct {
		name    string
		missing bool
	}{
		{"id", w.ID == nil || *w.ID == ""},
		{"order_id", w.OrderID == nil || *w.OrderID == ""},
		{"result", w.Result == nil || *w.Result == ""},
		{"expected_paise", w.ExpectedPaise == nil},
		{"paid_paise", w.PaidPaise == nil},
		{"at", w.At == nil},
	}
	for _, f := range required {
		if f.missing {
			return fmt.Errorf("%w: %s is missing", ErrBadDelivery, f.name)
		}
	}
	expected, paid := upicollect.Money(*w.ExpectedPaise), upicollect.Money(*w.PaidPaise)
	if w.Expected != nil && *w.Expected != expected.String() {
		return fmt.Errorf("%w: expected %q is not expected_paise %d", ErrBadDelivery, *w.Expected, *w.ExpectedPaise)
	}
	if w.Paid != nil && *w.Paid != paid.String() {
		return fmt.Errorf("%w: paid %q is not paid_paise %d", ErrBadDelivery, *w.Paid, *w.PaidPaise)
	}
	at, err := time.Parse(time.RFC3339Nano, *w.At)
	if err != nil {
		return fmt.Errorf("%w: at is not an RFC 3339 time", ErrBadDelivery)
	}
	*d = Delivery{
		ID: *w.ID, OrderID: *w.OrderID, Result: *w.Result,
		Expected: expected, Paid: paid, At: at,
	}
	if w.UTR != nil {
		d.UTR = *w.UTR
	}
	if w.Reason != nil {
		d.Reason = *w.Reason
	}
	return nil
}
