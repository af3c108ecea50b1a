package upicollect

import (
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/upicollect/upicollect-go/internal/redact"
	"github.com/upicollect/upicollect-go/internal/text"
	"github.com/upicollect/upicollect-go/internal/upi"
	"github.com/upicollect/upicollect-go/internal/vocab"
	"github.com/upicollect/upicollect-go/internal/wire"
)

// Sentinel errors. Match them with errors.Is; every error the client returns
// matches at most a few of them, and errors.As gives the *APIError or
// *ValidationError behind it.
var (
	// ErrValidation: a client-side check failed and no request was sent
	// (the error is a *ValidationError).
	ErrValidation = errors.New("upicollect: invalid parameters")
	// ErrUnauthorized: the credentials were missing or rejected.
	ErrUnauthorized = errors.New("upicollect: unauthorized")
	// ErrDuplicateOrderID: the service says the order_id already exists.
	ErrDuplicateOrderID = errors.New("upicollect: order id already exists")
	// ErrInvalidRequest: the service rejected the parameters (400).
	ErrInvalidRequest = errors.New("upicollect: invalid request")
	// ErrNotFound: a 404 on an operation other than the status check.
	ErrNotFound = errors.New("upicollect: not found")
	// ErrRateLimited: the service answered 429.
	ErrRateLimited = errors.New("upicollect: rate limited")
	// ErrServer: the service answered 5xx.
	ErrServer = errors.New("upicollect: server error")
	// ErrUnexpectedResponse: a body this SDK cannot read as the service's
	// envelope (empty, not JSON, truncated, too large, or a redirect).
	ErrUnexpectedResponse = errors.New("upicollect: unexpected response")
	// ErrOutcomeUnknown: a create may or may not have taken effect. Check the
	// order's status (when it has an order id) before creating it again.
	ErrOutcomeUnknown = errors.New("upicollect: outcome unknown")
	// ErrAmountMismatch: a SUCCESS for another amount than the caller
	// expects (WithExpectedAmount); the status comes with it. Do not credit
	// the order as paid.
	ErrAmountMismatch = errors.New("upicollect: paid amount differs from the expected one")
)

// sentinelErrs names the sentinel error of each bit of sentinels (codes.go).
var sentinelErrs = []struct {
	bit sentinels
	err error
}{
	{isUnauthorized, ErrUnauthorized},
	{isDuplicate, ErrDuplicateOrderID},
	{isInvalid, ErrInvalidRequest},
	{isNotFound, ErrNotFound},
	{isRateLimited, ErrRateLimited},
	{isServer, ErrServer},
	{isUnexpected, ErrUnexpectedResponse},
	{isOutcomeUnknown, ErrOutcomeUnknown},
	{isAmountMismatch, ErrAmountMismatch},
}

// APIError is every failure of a call after its parameters were
// validated: an answer of the service refusing it, an answer this SDK cannot
// read, a create whose outcome is unknown, and a call ended by a transport
// error or by its context (then Unwrap returns that error, so that
// errors.Is(err, context.DeadlineExceeded) works). It carries the raw
// *Response when there was one, and matches the sentinels that describe it:
// a 502 HTML page is both ErrServer and ErrUnexpectedResponse, for example.
type APIError struct {
	Op         string // "createPaymentIntent", ...
	HTTPStatus int    // 0 when no answer arrived
	StatusCode int    // the body's statusCode; 0 when absent
	// Message is msg or message from the body, with any echo of the
	// credentials removed and cut at 512 bytes; Error escapes its control
	// characters. Response.Body keeps the body as received.
	Message string
	// OrderID is the order the call was about, when known. With
	// ErrOutcomeUnknown it is the order to check before creating again.
	OrderID string
	// Reason says why the client stopped retrying a call that could have
	// been retried: ReasonAttemptsExhausted, ReasonBudgetExhausted or a
	// Retry-After beyond RetryPolicy.MaxRetryAfter. It is "" otherwise.
	Reason string
	// RetryAfter is the wait the answer asked for in its Retry-After
	// header (a 429 or a 503, as the retry rules honour it), as a
	// duration from the answer; 0 when it asked for none. A program that
	// paces many calls (the reconcile sweeper) holds them all that long.
	RetryAfter time.Duration
	Response   *Response

	matches sentinels
	detail  string // why the body could not be read, with a snippet
	cause   error  // transport or context error, when there was one
}

// Reasons an *APIError gives for retries that stopped.
const (
	ReasonAttemptsExhausted = "attempts exhausted"
	ReasonBudgetExhausted   = "retry budget exhausted"
)

// Error describes the failure: operation, statuses, message, for an
// unreadable body a short snippet of it, the transport or context error,
// and why retries stopped. It never holds credentials, and what the
// service's message holds that is not safe to show (controls, bidi
// overrides and other format characters, see SafeToShow) is escaped.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("upicollect: ")
	b.WriteString(upi.PlainOrQuote(e.Op)) // Do's: the caller's path
	b.WriteString(": ")
	sep := false
	part := func(s string) {
		if sep {
			b.WriteString(": ")
		}
		b.WriteString(s)
		sep = true
	}
	if e.matches&isOutcomeUnknown != 0 {
		s := "outcome unknown"
		if e.OrderID != "" {
			s += " for order " + strconv.Quote(e.OrderID)
		}
		part(s)
	}
	if e.HTTPStatus != 0 {
		s := "HTTP " + strconv.Itoa(e.HTTPStatus)
		if e.StatusCode != 0 && e.StatusCode != e.HTTPStatus {
			s += " (statusCode " + strconv.Itoa(e.StatusCode) + ")"
		}
		part(s)
	}
	if e.Message != "" {
		part(text.Escape(e.Message))
	}
	if e.detail != "" {
		part(e.detail)
	}
	if e.cause != nil {
		part(e.cause.Error())
	}
	if e.Reason != "" {
		b.WriteString(" (")
		b.WriteString(e.Reason)
		b.WriteString(")")
	}
	return b.String()
}

// Is reports whether e matches target, one of this package's sentinels.
func (e *APIError) Is(target error) bool {
	for _, s := range sentinelErrs {
		if e.matches&s.bit != 0 && target == s.err {
			return true
		}
	}
	return false
}

// Unwrap returns the transport or context error behind e, if any, so that
// errors.Is(err, context.DeadlineExceeded) works.
func (e *APIError) Unwrap() error { return e.cause }

// The constructors of *APIError, one per way a call fails after its
// parameters were checked.

// attemptError is the error of a failed attempt, as judge read it: a
// transport error, an answer whose body is not the envelope, or a refusal;
// ErrOutcomeUnknown for a create that may have taken effect.
func attemptError(op, orderID string, ans *answer, f *redact.Filter) *APIError {
	e := &APIError{Op: op, OrderID: orderID, Response: ans.resp, cause: ans.cause,
		HTTPStatus: ans.httpStatus, StatusCode: ans.statusCode, Message: message(f, ans.message),
		matches: ans.matches, detail: ans.detail}
	if ans.body != nil {
		e.detail += ": " + bodySnippet(f, ans.body)
	}
	return e
}

// dataError is the error for an accepted answer whose data cannot be
// read: ErrUnexpectedResponse, and for a create also ErrOutcomeUnknown (the
// service said yes, but what it made cannot be read), as judge read it.
func dataError(op, orderID string, ans *answer, err error, f *redact.Filter) *APIError {
	detail := f.Text(err.Error())
	if _, links := err.(unsafeLinksError); !links {
		detail += ": " + bodySnippet(f, ans.resp.Body)
	}
	return &APIError{
		Op: op, HTTPStatus: ans.httpStatus, StatusCode: ans.statusCode, Message: message(f, ans.message),
		OrderID: orderID, Response: ans.resp, matches: ans.matches, detail: detail,
	}
}

// unsafeLinksError is an intent answer whose links fail Verify's checks.
// Its text names each mismatch; dataError quotes no snippet of the body
// beside it, which would show the very links refused.
type unsafeLinksError struct{ text string }

func (e unsafeLinksError) Error() string { return e.text }

// contextError is the error of a call that ended because its context did
// (during an attempt, a backoff or a rate-limit wait): the last attempt's
// error, or a bare one when none was made, with the context's error as its
// cause. It matches ErrOutcomeUnknown when the last attempt's error does:
// judge said so for a create that may have gone out.
func contextError(op, orderID string, last *APIError, ctxErr error) *APIError {
	e := &APIError{Op: op, OrderID: orderID}
	if last != nil {
		cp := *last
		e = &cp
	}
	e.cause = contextCause(ctxErr, e.cause)
	return e
}

// waitError is the error of a wait that its context (or its maximum wait)
// ended: the context's error, the last status seen, and, when the last
// poll failed, that poll's HTTP status, message, Response and cause, so
// that a wait against a dead port says "connection refused".
func waitError(orderID string, last *PaymentStatus, failed, ctxErr error) *APIError {
	state := "no status seen"
	if last != nil {
		state = "last status " + string(last.TxnStatus)
	}
	e := &APIError{Op: vocab.OpCheckPaymentStatus, OrderID: orderID, cause: ctxErr,
		detail: "waiting for payment of order " + strconv.Quote(orderID) + ": " + state}
	var poll *APIError
	if errors.As(failed, &poll) {
		e.HTTPStatus, e.StatusCode, e.Message, e.Response = poll.HTTPStatus, poll.StatusCode, poll.Message, poll.Response
		if poll.detail != "" {
			e.detail += "; last poll: " + poll.detail
		}
		e.cause = contextCause(ctxErr, poll.cause)
	}
	return e
}

// contextCause is the cause of what a context ended after a failure: the
// context's error and, when there was one, the failure's own cause
// (connection refused, ...), both matchable with errors.Is.
func contextCause(ctxErr, last error) error {
	var both ctxAfterFailure
	if errors.As(last, &both) { // a poll the context ended mid-call already says both
		return both
	}
	if last == nil || errors.Is(last, ctxErr) {
		return ctxErr
	}
	return ctxAfterFailure{ctxErr, last}
}

// ctxAfterFailure is a context's error after a failure's own cause.
type ctxAfterFailure struct{ ctx, last error }

func (e ctxAfterFailure) Error() string {
	return e.ctx.Error() + " (last error: " + e.last.Error() + ")"
}
func (e ctxAfterFailure) Unwrap() []error { return []error{e.ctx, e.last} }

// amountMismatchError is the error of a wait that saw a SUCCESS for another
// amount than expected: ErrAmountMismatch, with that status's answer.
func amountMismatchError(st *PaymentStatus, expected Money) *APIError {
	return statusError(st, isAmountMismatch, "order "+strconv.Quote(st.OrderID)+" paid "+st.Amount.String()+", expected "+expected.String())
}

// statusError is an error about a status the service did report: st's
// order, message and Response, matching matches, with detail.
func statusError(st *PaymentStatus, matches sentinels, detail string) *APIError {
	e := &APIError{Op: vocab.OpCheckPaymentStatus, OrderID: st.OrderID, Message: st.Message,
		Response: st.Response, matches: matches, detail: detail}
	if st.Response != nil {
		e.HTTPStatus = st.Response.HTTPStatus
		if env, err := wire.DecodeEnvelope(st.Response.Body); err == nil {
			e.StatusCode = env.StatusCode
		}
	}
	return e
}

// namedOrderError makes err an *APIError naming orderID, whatever its kind:
// the batch's caller must be able to tell which order failed.
func namedOrderError(orderID string, err error) error {
	if err == nil {
		return nil
	}
	var ae *APIError
	if errors.As(err, &ae) {
		if ae.OrderID == orderID {
			return err
		}
		cp := *ae
		cp.OrderID = orderID
		return &cp
	}
	return &APIError{Op: vocab.OpCheckPaymentStatus, OrderID: orderID, detail: "order " + strconv.Quote(orderID), cause: err}
}

// unknownOrderError is the error of a wait that gave up on an unknown
// order: ErrNotFound, with the last status check's answer.
func unknownOrderError(st *PaymentStatus, timeout time.Duration) *APIError {
	return statusError(st, isNotFound, "order "+strconv.Quote(st.OrderID)+" still unknown to the service after "+
		timeout.String()+" (WithUnknownOrderTimeout)")
}

// ValidationError lists every problem the client found in a call's
// parameters before sending anything.
type ValidationError struct {
	Op     string
	Fields []FieldError
}

// FieldError is one problem with one parameter. Field is the wire name
// ("amount", "vpa", "customer_mobile", ...).
type FieldError struct{ Field, Problem string }

// Error formats the problem as "field: problem".
func (f FieldError) Error() string { return f.Field + ": " + f.Problem }

// Error lists every problem, field by field.
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("upicollect: ")
	if e.Op != "" {
		// Do's operation is the end of the caller's path, which may hold
		// anything: a CR LF must not start a line of its own in a log.
		b.WriteString(upi.PlainOrQuote(e.Op))
		b.WriteString(": ")
	}
	b.WriteString("invalid parameters: ")
	for i, f := range e.Fields {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(f.Error())
	}
	return b.String()
}

// Is makes errors.Is(err, ErrValidation) true.
func (e *ValidationError) Is(target error) bool { return target == ErrValidation }

// Field returns the problem reported for the wire field name, if any.
func (e *ValidationError) Field(name string) (FieldError, bool) {
	for _, f := range e.Fields {
		if f.Field == name {
			return f, true
		}
	}
	return FieldError{}, false
}

// snippetLen bounds how much of an unreadable body an error quotes;
// maxMessageLen how much of the service's message an error keeps.
const (
	snippetLen    = 120
	maxMessageLen = 512
)

// snippet quotes the start of body for an error message: valid UTF-8,
// control characters escaped, cut at snippetLen bytes.
func snippet(body []byte) string {
	if len(body) == 0 {
		return "empty body"
	}
	cut, more := truncate(string(body), snippetLen)
	s := strconv.Quote(cut)
	if more {
		s += "…"
	}
	return "body " + s
}

// truncate cuts s to at most n bytes without splitting a UTF-8 sequence.
func truncate(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	s = s[:n]
	for !utf8.ValidString(s) { // ends at "" at worst, which is valid
		s = s[:len(s)-1]
	}
	return s, true
}

// message is the service's text as an error keeps it: credentials
// removed, then cut.
func message(f *redact.Filter, msg string) string {
	m, _ := truncate(f.Text(msg), maxMessageLen)
	return m
}

// bodySnippet is snippet of body with credentials removed before it is cut.
func bodySnippet(f *redact.Filter, body []byte) string { return snippet(f.Bytes(body)) }
