package wire

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
)

// Accept reports whether an envelope with status false is, all the same,
// an answer the operation reads (the status check's not-found shapes).
type Accept func(env *Envelope, httpStatus int) bool

// Check reads one HTTP answer, as go-github's CheckResponse does: it
// returns the body's envelope and whether it is an answer to decode, or,
// for a body that is not the envelope (or a redirect), an error saying why.
// It knows no operation; what it decides is the same for all:
//
//   - a redirect, or a body that is not the envelope, is unreadable;
//   - the envelope with "message" and no statusCode is the missing-
//     Authorization answer, whatever the HTTP status: a refusal;
//   - an envelope with status true in a 2xx is an answer;
//   - one with status false is an answer when accept (may be nil) says so;
//   - anything else is a refusal, which EffectiveCode classifies.
func Check(httpStatus int, body []byte, accept Accept) (env *Envelope, ok bool, err error) {
	if httpStatus >= 300 && httpStatus < 400 {
		return nil, false, errRedirect
	}
	env, err = DecodeEnvelope(body)
	switch {
	case err != nil:
		return nil, false, err
	case env.MissingAuth():
		return env, false, nil
	case env.Status:
		return env, httpStatus/100 == 2, nil
	}
	return env, accept != nil && accept(env, httpStatus), nil
}

var errRedirect = errors.New("redirect not followed")

// NotFound reports whether env, accepted as a status check's answer, is
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
