package sandbox

import (
	"fmt"
	"strings"
)

// Variant names: the answer shapes the live service has been seen to
// produce beyond its interface document. Each is off by default.
const (
	// VariantStatusInData answers status checks with the state in
	// data.status (with order_id, amount, vpa and transaction_id), no
	// top-level txnStatus.
	VariantStatusInData = "status-in-data"
	// VariantStatusBare answers a paid order with status true and data,
	// no state anywhere; FAIL and REJECT answer status false and a msg.
	VariantStatusBare = "status-bare"
	// VariantNotFound404 answers unknown and unpaid orders
	// {"status":false,"statusCode":404,"msg":"Transaction not found"} with
	// HTTP 404.
	VariantNotFound404 = "not-found-404"
	// VariantStringStatusCode sends statusCode as a string ("200").
	VariantStringStatusCode = "string-status-code"
	// VariantStringAmounts sends amounts as strings with two decimals
	// ("123.00") in intent and status answers.
	VariantStringAmounts = "string-amounts"
	// VariantQRBase64 sends dynamicQR as data:image/png;base64,… of a PNG
	// QR code of the intent link.
	VariantQRBase64 = "qr-base64"
	// VariantFailedStatusTrue answers FAIL and REJECT status checks with
	// status true.
	VariantFailedStatusTrue = "failed-status-true"
	// VariantFailuresHTTP200 answers every API failure with HTTP 200; the
	// body's statusCode is unchanged.
	VariantFailuresHTTP200 = "failures-http-200"
	// VariantRequestISOExpiry adds order_id and an ISO-8601 expiry
	// (creation plus the intent lifetime, India time) to payment-request
	// answers.
	VariantRequestISOExpiry = "request-iso-expiry"
	// VariantFractionalAmounts accepts amounts to the paisa on creates
	// ("99.50"); by default a fraction of a rupee is refused.
	VariantFractionalAmounts = "fractional-amounts"
)

// variantInfo lists every variant in documentation order; a variantSet bit
// is an index into it.
var variantInfo = []struct{ name, doc string }{
	{VariantStatusInData, "status checks carry the state in data.status, no txnStatus"},
	{VariantStatusBare, "a paid order answers status:true with data, no state anywhere"},
	{VariantNotFound404, "unknown orders answer {status:false,statusCode:404,msg} with HTTP 404"},
	{VariantStringStatusCode, "statusCode is a string"},
	{VariantStringAmounts, `amounts are strings ("123.00")`},
	{VariantQRBase64, "dynamicQR is data:image/png;base64,…"},
	{VariantFailedStatusTrue, "FAIL and REJECT answer status:true"},
	{VariantFailuresHTTP200, "every failure is answered with HTTP 200 (statusCode unchanged)"},
	{VariantRequestISOExpiry, "payment-request answers add order_id and an ISO-8601 expiry"},
	{VariantFractionalAmounts, `creates accept amounts to the paisa ("99.50")`},
}

// variantSet is a set of variants, one bit per entry of variantInfo.
type variantSet uint32

func variantBit(name string) (variantSet, error) {
	for i, v := range variantInfo {
		if v.name == name {
			return 1 << i, nil
		}
	}
	return 0, fmt.Errorf("sandbox: unknown variant %q (known: %s)", name, strings.Join(VariantNames(), ", "))
}

func (s variantSet) has(name string) bool {
	b, err := variantBit(name)
	return err == nil && s&b != 0
}

// with returns s with enable switched on and disable off; it refuses
// unknown names and the two status shapes at once.
func (s variantSet) with(enable, disable []string) (variantSet, error) {
	for i, list := range [][]string{enable, disable} {
		for _, n := range list {
			b, err := variantBit(n)
			if err != nil {
				return s, err
			}
			if i == 0 {
				s |= b
			} else {
				s &^= b
			}
		}
	}
	if s.has(VariantStatusInData) && s.has(VariantStatusBare) {
		return s, fmt.Errorf("sandbox: variants %s and %s exclude each other", VariantStatusInData, VariantStatusBare)
	}
	return s, nil
}

// VariantNames returns the name of every variant, in documentation order.
func VariantNames() []string {
	out := make([]string, len(variantInfo))
	for i, v := range variantInfo {
		out[i] = v.name
	}
	return out
}

// Variant is one answer variant and whether it is switched on.
type Variant struct {
	// Name is the variant's name, as --variant and the HTTP control take it.
	Name string `json:"name"`
	// Enabled reports that the variant is switched on.
	Enabled bool `json:"enabled"`
	// Description says what the sandbox then does.
	Description string `json:"description"`
}

func (s variantSet) list() []Variant {
	out := make([]Variant, len(variantInfo))
	for i, v := range variantInfo {
		out[i] = Variant{Name: v.name, Enabled: s&(1<<i) != 0, Description: v.doc}
	}
	return out
}

// setVariants switches the enable variants on and the disable ones off for
// all later requests (POST /sandbox/variants). On an error (an unknown
// name, or both status shapes on) nothing changes.
func (s *Service) setVariants(enable, disable []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.variants.with(enable, disable)
	if err != nil {
		return err
	}
	s.variants = v
	return nil
}

func (s *Service) variantSet() variantSet {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.variants
}
