package wire

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
)

// EnvelopeOf reads the envelope of one HTTP answer, or says why there is
// none: a redirect, or a body that is not the envelope. It knows no
// operation and judges nothing: what the envelope means (an answer, a
// refusal, its code) is the root package's judge to say, in one place.
func EnvelopeOf(httpStatus int, body []byte) (*Envelope, error) {
	if httpStatus >= 300 && httpStatus < 400 {
		return nil, errRedirect
	}
	return DecodeEnvelope(body)
}

var errRedirect = errors.New("redirect not followed")

// NotFound reports whether e, accepted as a status check's answer, is
// one of its not-found shapes: no payment yet.
func (e *Envelope) NotFound() bool { return !e.Status && e.TxnStatus == "" }

// MissingAuth reports whether e is the service's missing-Authorization
// answer: the only one whose text is under "message", with no statusCode.
func (e *Envelope) MissingAuth() bool { return e.MessageKey && !e.HasStatusCode }

// EffectiveCode is the body's statusCode when it says something other than
// 200, the HTTP status otherwise: the body decides, the status fills in.
func EffectiveCode(env *Envelope, httpStatus int) int {
	if env.HasStatusCode && env.StatusCode != 0 && env.StatusCode != http.StatusOK {
		return env.StatusCode
	}
	return httpStatus
}

// ErrOtherOrder is returned by CheckStatusOrder for an answer about
// another order than the one asked about.
var ErrOtherOrder = errors.New("the answer names another order")

// CheckStatusOrder checks that a status answer's data.order_id, when
// present, is the order asked about: an answer about another order must
// never be read as this one's.
func CheckStatusOrder(asked string, d *StatusData) error {
	if d == nil || d.OrderID == "" || d.OrderID == asked {
		return nil
	}
	return fmt.Errorf("%w: asked %s, answer names %s", ErrOtherOrder, strconv.Quote(asked), strconv.Quote(d.OrderID))
}
