package webhook

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// DefaultTolerance is the age a receiver should accept: a delivery signed
// longer ago than this (or this far in the future) is refused. Five
// minutes leaves room for clocks that disagree, and keeps a recorded
// delivery from being replayed later.
const DefaultTolerance = 5 * time.Minute

// maxBody is the largest body Receive accepts. A delivery is well under
// 1 KiB.
const maxBody = 64 << 10

// The errors of Receive. Each is the sender's fault, or an attacker's:
// answer them with 400 Bad Request. errors.Is tells them apart; the error
// itself says which part was wrong.
var (
	// ErrNoSignature: the request has no Upicollect-Signature header, or
	// the header has no v1 value.
	ErrNoSignature = errors.New("webhook: delivery not signed")
	// ErrMalformedSignature: the header is there but is not
	// t=<unix>,v1=<hex>: t missing, repeated (two signatures: the header
	// sent twice, or under Upicollect_Signature too) or not digits, a v1
	// that is not 64 hex digits, an item that is not key=value, or over
	// 1 KiB.
	ErrMalformedSignature = errors.New("webhook: malformed signature header")
	// ErrBadSignature: no v1 value is the body's signature under the
	// secret: the body was changed, or it was signed with another secret.
	ErrBadSignature = errors.New("webhook: signature does not match")
	// ErrTooOld: the signature is genuine but its time is more than the
	// tolerance away from now (a replay, or a clock far off).
	ErrTooOld = errors.New("webhook: delivery outside the tolerance")
	// ErrTooLarge: the body is over 64 KiB.
	ErrTooLarge = errors.New("webhook: body over 64 KiB")
	// ErrBadDelivery: the body is signed but is not a Delivery's JSON.
	ErrBadDelivery = errors.New("webhook: body is not a delivery")
)

// Receive verifies the signature and age (at most tolerance old) of a
// delivery and decodes it; it reads at most 64 KiB of body. Any failure is
// an error and nothing is decoded.
//
// The checks, in order: the SignatureHeader is present and well formed,
// read as the package documentation's Signature section says (all its
// field lines, Upicollect_Signature included, as one list: two signatures
// are refused) (ErrNoSignature, ErrMalformedSignature); the body is at most 64 KiB
// (ErrTooLarge: Receive reads 64 KiB and one byte at most); a v1 value is
// the body's HMAC under secret, compared in constant time
// (ErrBadSignature); the signing time is within tolerance of now, either
// way (ErrTooOld); the body is a Delivery (ErrBadDelivery). Every one of
// them deserves 400 Bad Request. An empty secret, a tolerance that is not
// positive, a nil request or a failed read of the body is another error:
// the receiver's own fault, not the sender's.
//
// A delivery comes at least once: record Delivery.ID and answer 2xx to a
// repeat without acting on it again.
func Receive(r *http.Request, secret []byte, tolerance time.Duration) (*Delivery, error) {
	return receiveAt(r, secret, tolerance, time.Now())
}

// receiveAt is Receive at the time now.
func receiveAt(r *http.Request, secret []byte, tolerance time.Duration, now time.Time) (*Delivery, error) {
	switch {
	case r == nil || r.Body == nil:
		return nil, errors.New("webhook: Receive: no request body")
	case len(secret) == 0:
		return nil, errors.New("webhook: Receive: empty secret")
	case tolerance <= 0:
		return nil, fmt.Errorf("webhook: Receive: tolerance %v is not positive", tolerance)
	}
	h, ok := signatureValue(r.Header)
	if !ok {
		return nil, fmt.Errorf("%w: no %s header", ErrNoSignature, SignatureHeader)
	}
	sig, err := parseSignature(h)
	if err != nil {
		return nil, err
	}
	if r.ContentLength > maxBody {
		return nil, fmt.Errorf("%w: Content-Length %d", ErrTooLarge, r.ContentLength)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("webhook: Receive: reading the body: %w", err)
	}
	if len(body) > maxBody {
		return nil, ErrTooLarge
	}
	if !sig.verify(secret, body) {
		return nil, ErrBadSignature
	}
	if age := now.Sub(time.Unix(sig.t, 0)); age > tolerance || age < -tolerance {
		return nil, fmt.Errorf("%w: signed %v before now, tolerance %v", ErrTooOld, age.Round(time.Second), tolerance)
	}
	d := new(Delivery)
	if err := d.UnmarshalJSON(body); err != nil {
		return nil, err
	}
	return d, nil
}
