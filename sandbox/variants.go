package sandbox

import "fmt"

// StatusShape selects how checkPaymentStatus reports a settled order.
type StatusShape int

// The status answer shapes real-world.md lists.
const (
	// StatusShapeSpec is the interface document's shape: top-level
	// txnStatus, data {amount, UTR, order_id}.
	StatusShapeSpec StatusShape = iota
	// StatusShapeDataStatus has no top-level txnStatus; the state is in
	// data.status, and data carries order_id, amount, vpa, status and
	// transaction_id (the UTR).
	StatusShapeDataStatus
	// StatusShapeBare has neither: status true with data means paid. FAIL
	// and REJECT answer status false with only a msg, as the not-found
	// answer does, so a client can tell paid from not paid and no more.
	StatusShapeBare
)

// String returns "spec", "data-status" or "bare".
func (s StatusShape) String() string {
	switch s {
	case StatusShapeSpec:
		return "spec"
	case StatusShapeDataStatus:
		return "data-status"
	case StatusShapeBare:
		return "bare"
	}
	return fmt.Sprintf("StatusShape(%d)", int(s))
}

// ParseStatusShape is the inverse of StatusShape.String.
func ParseStatusShape(s string) (StatusShape, error) {
	for _, v := range []StatusShape{StatusShapeSpec, StatusShapeDataStatus, StatusShapeBare} {
		if v.String() == s {
			return v, nil
		}
	}
	return 0, fmt.Errorf("sandbox: unknown status shape %q (want spec, data-status or bare)", s)
}

// Variants switches the server between the answer shapes the live service
// has been seen to produce (real-world.md). The zero value is the interface
// document's behaviour. The missing-Authorization answer is always the
// document's shape.
type Variants struct {
	// StatusShape is the shape of status answers for settled orders.
	StatusShape StatusShape
	// NotFound404 answers an unknown or unpaid order with HTTP 404 and
	// {"status":false,"statusCode":404,"msg":"Transaction not found"}
	// instead of the PENDING answer.
	NotFound404 bool
	// StringStatusCode writes statusCode as a string ("200") in every
	// envelope that has one.
	StringStatusCode bool
	// StringAmounts writes amounts in status answers as strings with two
	// decimals ("499.00") instead of JSON numbers.
	StringAmounts bool
	// IntentExtras adds the fields some intent answers carry: a "cred" app
	// link and "merchantName".
	IntentExtras bool
}

// SetVariants switches the answer shapes for all later requests.
func (s *Server) SetVariants(v Variants) {
	s.mu.Lock()
	s.variants = v
	s.mu.Unlock()
}

// Variants returns the answer shapes in force.
func (s *Server) Variants() Variants {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.variants
}
