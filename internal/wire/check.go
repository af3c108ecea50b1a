package wire

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/upicollect/upicollect-go/internal/vocab"
)

// Kind is what a failed answer says, as the service means it.
type Kind uint8

// The kinds of failure. KindNone is an answer to decode.
const (
	KindNone         Kind = iota
	KindUnauthorized      // missing or rejected credentials (401, 403, no Authorization)
	KindDuplicate         // 409: the order id exists
	KindInvalid           // other 4xx, or a refusal with no error code
	KindNotFound          // 404 that is not the status check's not-found answer
	KindRateLimited       // 429
	KindServer            // 5xx
)

// Failure is an HTTP answer that is not an answer to the call: a refusal
// by the service, or a body that is not its envelope.
type Failure struct {
	// Code is the status that decides retries: the body's statusCode when it
	// names an error, the HTTP status otherwise.
	Code int
	// Kind is what Code means (KindNone for a code that means nothing, such
	// as a 2xx or 3xx that is unreadable).
	Kind Kind
	// StatusCode is the body's statusCode, 0 when absent; Msg its text.
	StatusCode int
	Msg        string
	// Env is the envelope of a refusal; nil when the body is not one.
	Env *Envelope
	// Unreadable says why the body is not the service's envelope; "" when
	// it is.
	Unreadable string
}

// Check turns one HTTP answer to op into its envelope, when it is an
// answer to decode, or a Failure (as go-github's CheckResponse). It decides,
// for every operation:
//
//   - an envelope with status true in a 2xx is an answer;
//   - a redirect, or a body that is not the envelope, is unreadable;
//   - the envelope with "message" and no statusCode is the missing-
//     Authorization answer, whatever the HTTP status;
//   - for the status check only, status false with an explicit txnStatus,
//     or with statusCode 404 (the two documented not-found shapes), is an
//     answer too, unless HTTP or the body's code says something else went
//     wrong (a 5xx with statusCode 200 is a server error, not PENDING);
//   - anything else is a refusal, classified by its effective code.
func Check(op string, httpStatus int, body []byte) (*Envelope, *Failure) {
	if httpStatus >= 300 && httpStatus < 400 {
		return nil, &Failure{Code: httpStatus, Kind: KindOf(httpStatus), Unreadable: "redirect not followed"}
	}
	env, err := DecodeEnvelope(body)
	if err != nil {
		return nil, &Failure{Code: httpStatus, Kind: KindOf(httpStatus), Unreadable: err.Error()}
	}
	if env.MissingAuth() {
		return nil, refusal(env, EffectiveCode(env, httpStatus), KindUnauthorized)
	}
	code := EffectiveCode(env, httpStatus)
	switch {
	case env.Status && is2xx(httpStatus):
		return env, nil
	case op == vocab.OpCheckPaymentStatus && !env.Status && isStatusAnswer(env, httpStatus, code):
		return env, nil
	}
	k := KindOf(code)
	if k == KindNone {
		// status false with no error code anywhere: a refusal all the same.
		k = KindInvalid
	}
	return nil, refusal(env, code, k)
}

func refusal(env *Envelope, code int, k Kind) *Failure {
	return &Failure{Code: code, Kind: k, StatusCode: env.StatusCode, Msg: env.Msg, Env: env}
}

// isStatusAnswer reports whether a status-false envelope is the status
// check's answer: a txnStatus (PENDING, FAIL, ...) or the 404 not-found
// shape, in a 2xx or a 404.
func isStatusAnswer(env *Envelope, httpStatus, code int) bool {
	if !is2xx(httpStatus) && httpStatus != http.StatusNotFound {
		return false
	}
	if env.TxnStatus != "" {
		return code == http.StatusOK || code == http.StatusNotFound
	}
	return env.HasStatusCode && env.StatusCode == http.StatusNotFound
}

func is2xx(code int) bool { return code/100 == 2 }

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

// KindOf classifies a status code.
func KindOf(code int) Kind {
	switch {
	case code == 401 || code == 403:
		return KindUnauthorized
	case code == 404:
		return KindNotFound
	case code == 409:
		return KindDuplicate
	case code == 429:
		return KindRateLimited
	case code >= 500 && code <= 599:
		return KindServer
	case code >= 400 && code <= 499:
		return KindInvalid
	}
	return KindNone
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
