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

// CheckStatusOrder checks that a status answer is about the order asked
// about, and nothing in it names another: an answer about another order
// must never be read as this one's. It refuses the answer when the order
// named by its data (d, nil when the answer has none) is another, when an
// order key of the data in another spelling, or repeated, names another
// (d.OtherOrderIDs), and when a twin of the data (env.DataTwins) names
// another order under any spelling of an order key.
func CheckStatusOrder(asked string, env *Envelope, d *StatusData) error {
	if d != nil {
		if d.OrderID != "" && d.OrderID != asked {
			return otherOrder(asked, d.OrderID)
		}
		if err := checkNames(asked, d.OtherOrderIDs); err != nil {
			return err
		}
	}
	for _, twin := range env.DataTwins {
		var o object
		_ = readObject(twin, &o) // an object: DecodeEnvelope keeps no other twin
		if err := checkNames(asked, otherOrderNames(twin, &o, "")); err != nil {
			return err
		}
	}
	return nil
}

// checkNames refuses names when one is not asked.
func checkNames(asked string, names []string) error {
	for _, n := range names {
		if n != asked {
			return otherOrder(asked, n)
		}
	}
	return nil
}

func otherOrder(asked, named string) error {
	return fmt.Errorf("%w: asked %s, answer names %s", ErrOtherOrder, strconv.Quote(asked), strconv.Quote(named))
}
