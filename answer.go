package upicollect

import (
	"fmt"
	"net/http"

	"github.com/upicollect/upicollect-go/internal/retry"
	"github.com/upicollect/upicollect-go/internal/wire"
)

// shapes says which answers an operation reads besides the envelope with
// status true in a 2xx.
type shapes int

const (
	// successOnly: status true in a 2xx, and nothing else, is an answer.
	successOnly shapes = iota
	// statusShapes: the status check's answers with status false too, an
	// order's state (PENDING, FAIL, ...) and its not-found shapes.
	statusShapes
)

// answer is what one attempt means, read once by judge: everything the
// retry decision (retryVerdict) and the error constructors (attemptError,
// dataError) use, so that neither reads the response again.
type answer struct {
	// accepted: env is the operation's answer, to decode. matches and
	// outcomeUnknown then say what an error about its data is.
	accepted bool
	env      *wire.Envelope // nil when no answer arrived or its body is not the envelope
	resp     *Response      // nil when no answer arrived

	// matches are the sentinels the attempt's error matches, outcome
	// unknown included.
	matches sentinels
	// outcomeUnknown: this or an earlier attempt of a create may have
	// taken effect (never so for the status check).
	outcomeUnknown bool
	// retryable: the failure may pass and the call's safety allows a
	// repeat; retryVerdict still applies the policy and its limits.
	retryable bool
	cost      int    // budget tokens a repeat spends
	reason    string // why the call would be repeated, or why it is not
	// retryAfter is the answer's Retry-After header when its code honours
	// one (429, 503); "" otherwise.
	retryAfter string

	// code is the status code that says what a failed answer means: the
	// body's error code when it names one, the HTTP status otherwise; 0
	// when no answer arrived.
	code int

	// The error's parts: statuses, the service's message (unfiltered),
	// the detail, the start of an unreadable body to quote, and the
	// transport error.
	httpStatus, statusCode int
	message                string
	detail                 string
	body                   []byte
	cause                  error
}

// judge is the one reader of what an attempt means, as go-github's
// CheckResponse is: the transport failure, or the answer's envelope, the
// operation's accepted shapes, the status code table (codeTable) and the
// call's safety, read together. n is the attempt's number and
// wasAmbiguous says whether an earlier attempt may have taken effect.
//
//   - A request that provably never reached the service may be repeated
//     by every call; any other transport failure by every call but an
//     unkeyed create, and it may have taken effect.
//   - An envelope with status true in a 2xx is an answer, and so is one of
//     the operation's own shapes; never the missing-Authorization answer.
//   - Any other answer is a failure: what its code means (the body's code
//     when it names one, the HTTP status otherwise), unexpected as well
//     when its body is not the envelope, unauthorized when it is the
//     missing-Authorization answer, invalid when its code means nothing.
//     A transient code (429, 500, 502, 503, 504) may be repeated as the
//     table says; an unreadable body, and a 409 after the first attempt,
//     may have taken effect.
func judge(s safety, sh shapes, a *attempt, n int, wasAmbiguous bool) answer {
	ans := answer{env: a.env, resp: a.resp, cause: a.err}
	var ambiguous bool
	switch {
	case a.resp == nil && a.neverSent:
		ans.retryable, ans.cost, ans.reason = true, retry.RetryCost, "not sent: "+shortErr(a.err)
	case a.resp == nil || a.err != nil: // no answer, or one whose body could not be read
		ambiguous = true
		ans.retryable, ans.cost, ans.reason = s != unkeyedCreate, retry.RetryCost, "transport: "+shortErr(a.err)
		if a.timedOut {
			ans.cost, ans.reason = retry.TimeoutCost, "attempt timed out"
		}
		if a.resp != nil {
			ans.httpStatus, ans.detail = a.resp.HTTPStatus, "reading the body"
		}
	case a.env != nil && accepts(sh, a.env, a.resp.HTTPStatus):
		ans.accepted = true
		ans.httpStatus, ans.statusCode, ans.message = a.resp.HTTPStatus, a.env.StatusCode, a.env.Msg
		// Data that cannot be read in a create's answer: the service said
		// yes, but what it made is not known.
		ans.matches = isUnexpected
		ans.outcomeUnknown = s != readOnly
		if ans.outcomeUnknown {
			ans.matches |= isOutcomeUnknown
		}
		return ans
	default:
		ambiguous = ans.refusal(s, a, n)
	}
	ans.outcomeUnknown = s != readOnly && (ambiguous || wasAmbiguous)
	if ans.outcomeUnknown {
		if ans.matches&isDuplicate != 0 {
			ans.detail = "the order id exists, perhaps from an earlier attempt of this call; check its status"
		}
		ans.matches = ans.matches&^isDuplicate | isOutcomeUnknown
	}
	return ans
}

// refusal reads an answer that is not the operation's (a refusal, or a
// body that is not the envelope) into ans, and reports whether a create
// may have taken effect all the same.
func (ans *answer) refusal(s safety, a *attempt, n int) (ambiguous bool) {
	code := a.resp.HTTPStatus
	ans.httpStatus = code
	if a.env != nil {
		code = wire.EffectiveCode(a.env, code)
		ans.statusCode, ans.message = a.env.StatusCode, a.env.Msg
	}
	ans.code = code
	m := meaningOf(code)
	ans.matches = m.matches
	switch {
	case a.env == nil:
		ans.matches |= isUnexpected
		ans.detail = a.unreadable
		if len(a.resp.Body) > 0 && (code < 300 || code >= 400) { // an empty body, or a redirect's, is said once
			ans.body = a.resp.Body
		}
	case a.env.MissingAuth():
		ans.matches = isUnauthorized
	case ans.matches == 0: // status false with no error code anywhere: a refusal all the same
		ans.matches, ans.detail = isInvalid, "the service refused the call"
	}
	ans.reason = "not retryable"
	switch {
	case m.transient != "":
		ans.retryable, ans.cost, ans.reason = m.retry[s], retry.RetryCost, fmt.Sprintf("%s (%d)", m.transient, code)
		if m.retryAfter {
			ans.retryAfter = a.resp.Header.Get("Retry-After")
		}
		return m.ambiguous
	case a.env == nil:
		// The service may have acted on a request whose answer we cannot read.
		return true
	}
	// The order id exists, perhaps from an earlier attempt of this call.
	return code == http.StatusConflict && n > 1
}

// accepts reports whether env, in an answer with httpStatus, is one the
// operation reads. The status check's shapes: an envelope with status
// false that carries a txnStatus (PENDING, FAIL, ...) or is the 404
// not-found shape, in a 2xx or a 404, unless the body's code says
// something else went wrong (a 5xx with statusCode 200 is a server error,
// not PENDING).
func accepts(sh shapes, env *wire.Envelope, httpStatus int) bool {
	switch {
	case env.MissingAuth():
		return false
	case env.Status:
		return httpStatus/100 == 2
	case sh != statusShapes, httpStatus/100 != 2 && httpStatus != http.StatusNotFound:
		return false
	case env.TxnStatus != "":
		code := wire.EffectiveCode(env, httpStatus)
		return code == http.StatusOK || code == http.StatusNotFound
	}
	return env.HasStatusCode && env.StatusCode == http.StatusNotFound
}
