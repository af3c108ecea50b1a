package upicollect

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
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
)

// kind is a set of sentinels an *APIError matches.
type kind uint16

const (
	kindUnauthorized kind = 1 << iota
	kindDuplicate
	kindInvalid
	kindNotFound
	kindRateLimited
	kindServer
	kindUnexpected
	kindOutcomeUnknown
)

var kindSentinels = []struct {
	k   kind
	err error
}{
	{kindUnauthorized, ErrUnauthorized},
	{kindDuplicate, ErrDuplicateOrderID},
	{kindInvalid, ErrInvalidRequest},
	{kindNotFound, ErrNotFound},
	{kindRateLimited, ErrRateLimited},
	{kindServer, ErrServer},
	{kindUnexpected, ErrUnexpectedResponse},
	{kindOutcomeUnknown, ErrOutcomeUnknown},
}

// APIError is a failure answered by the service, or a create whose outcome
// is unknown. It carries the raw *Response when there was one. It matches
// the sentinels that describe it: a 502 HTML page is both ErrServer and
// ErrUnexpectedResponse, for example.
type APIError struct {
	Op         string // "createPaymentIntent", ...
	HTTPStatus int    // 0 when no answer arrived
	StatusCode int    // the body's statusCode; 0 when absent
	Message    string // msg or message from the body
	// OrderID is the order the call was about, when known. With
	// ErrOutcomeUnknown it is the order to check before creating again.
	OrderID  string
	Response *Response

	kinds  kind
	detail string // why the body could not be read, with a snippet
	cause  error  // transport or context error, when there was one
}

// Error describes the failure: operation, statuses, message and, for an
// unreadable body, a short snippet of it. It never holds credentials.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("upicollect: ")
	b.WriteString(e.Op)
	b.WriteString(": ")
	if e.kinds&kindOutcomeUnknown != 0 {
		b.WriteString("outcome unknown")
		if e.OrderID != "" {
			b.WriteString(" for order ")
			b.WriteString(strconv.Quote(e.OrderID))
		}
		b.WriteString(": ")
	}
	if e.HTTPStatus != 0 {
		b.WriteString("HTTP ")
		b.WriteString(strconv.Itoa(e.HTTPStatus))
		if e.StatusCode != 0 && e.StatusCode != e.HTTPStatus {
			b.WriteString(" (statusCode ")
			b.WriteString(strconv.Itoa(e.StatusCode))
			b.WriteString(")")
		}
	}
	if e.Message != "" {
		if e.HTTPStatus != 0 {
			b.WriteString(": ")
		}
		b.WriteString(e.Message)
	}
	if e.detail != "" {
		if e.HTTPStatus != 0 || e.Message != "" {
			b.WriteString(": ")
		}
		b.WriteString(e.detail)
	}
	if e.cause != nil {
		if e.HTTPStatus != 0 || e.Message != "" || e.detail != "" {
			b.WriteString(": ")
		}
		b.WriteString(e.cause.Error())
	}
	return b.String()
}

// Is reports whether e matches target, one of this package's sentinels.
func (e *APIError) Is(target error) bool {
	for _, s := range kindSentinels {
		if e.kinds&s.k != 0 && target == s.err {
			return true
		}
	}
	return false
}

// Unwrap returns the transport or context error behind e, if any, so that
// errors.Is(err, context.DeadlineExceeded) works.
func (e *APIError) Unwrap() error { return e.cause }

// Temporary reports whether the same call may succeed later: rate limits,
// server errors and outcomes to be checked.
func (e *APIError) Temporary() bool {
	return e.kinds&(kindRateLimited|kindServer|kindOutcomeUnknown) != 0
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
		b.WriteString(e.Op)
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

// snippetLen bounds how much of an unreadable body an error quotes.
const snippetLen = 120

// snippet quotes the start of body for an error message: valid UTF-8,
// control characters escaped, cut at snippetLen bytes.
func snippet(body []byte) string {
	if len(body) == 0 {
		return "empty body"
	}
	cut := body
	more := false
	if len(cut) > snippetLen {
		cut = cut[:snippetLen]
		for len(cut) > 0 && !utf8.Valid(cut) {
			cut = cut[:len(cut)-1]
		}
		more = true
	}
	s := strconv.Quote(string(cut))
	if more {
		s += "…"
	}
	return "body " + s
}

// opError wraps a transport or context failure with the operation name,
// keeping it matchable.
func opError(op string, err error) error {
	return fmt.Errorf("upicollect: %s: %w", op, err)
}
