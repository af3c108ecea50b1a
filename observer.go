package upicollect

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/upicollect/upicollect-go/internal/redact"
)

// Observer sees every call a Client makes to the service and every attempt
// of it, for tracing and metrics (the nested module
// github.com/upicollect/upicollect-go/otel is an OpenTelemetry one). It is
// the client's one hook system: install one with WithObserver. The client's
// log is an Observer too, the one WithLogger installs; given both, each sees
// every call, the log first. A client given neither has a no-op observer.
//
// For each call that passed validation the client calls, in order:
//
//	ctx = StartCall(ctx, call)
//	for each attempt:
//	    actx = StartAttempt(ctx, call, n)   // after the rate limiter's wait
//	    EndAttempt(actx, call, AttemptEnd)
//	EndCall(ctx, call, CallEnd)
//
// The context StartCall returns is the call's from then on: each attempt,
// its request and the rate limiter's wait see it, so a span that StartCall
// puts in it is the parent of the attempts' spans. StartAttempt's context
// is the attempt's: its HTTP request carries it, and EndAttempt gets it
// back. A call ended by its context before any attempt has no attempts;
// EndCall is always called once StartCall was.
//
// The methods are called from the calling goroutine and must be safe for
// concurrent use: a Client is. They should return quickly: they run inside
// the call. What they receive holds no credential and no customer data:
// only the operation, the order id, counts, statuses, durations and the
// SDK's own words for what happened.
//
// Embed NopObserver to implement only some of the methods; methods added to
// Observer later get a no-op there.
type Observer interface {
	// StartCall is called once per call, before its first attempt, and
	// returns the context for the rest of the call.
	StartCall(ctx context.Context, call CallInfo) context.Context
	// StartAttempt is called before attempt n (1-based) is sent, once the
	// rate limiter let it go, and returns the context for the attempt.
	StartAttempt(ctx context.Context, call CallInfo, n int) context.Context
	// EndAttempt is called once per attempt StartAttempt began, with
	// StartAttempt's context.
	EndAttempt(ctx context.Context, call CallInfo, a AttemptEnd)
	// EndCall is called once per call, with StartCall's context, when the
	// call returns to its caller.
	EndCall(ctx context.Context, call CallInfo, c CallEnd)
	// FinalState is called when the SDK learns that an order reached a
	// final state: WaitForPayment calls it when it returns a terminal
	// status, and the reconcile package's Sweeper for each event it
	// delivers (the client's Observer is the sweeper's). A reconciler of
	// your own calls it on the client's: c.Observer().FinalState.
	FinalState(ctx context.Context, f FinalState)
}

// CallInfo names a call for an Observer.
type CallInfo struct {
	// Op is the operation: "createPaymentIntent", "createPaymentRequest",
	// "createPaymentLink", "checkPaymentStatus", "createOrderRequest", or
	// the last element of Do's path.
	Op string
	// OrderID is the order the call is about; "" when it has none (a
	// payment link, a create without one, Do without an order_id field).
	OrderID string
	// ServerAddress is the base URL's host.
	ServerAddress string
	// ServerPort is the base URL's port (the scheme's default when the URL
	// names none).
	ServerPort int

	// path is the request's path below the base URL, for the client's log
	// (an Observer given with WithObserver never sees it).
	path string
}

// AttemptEnd is what one attempt produced.
type AttemptEnd struct {
	// Attempt is the attempt's number, from 1.
	Attempt int
	// HTTPStatus is the answer's status code; 0 when no answer arrived.
	HTTPStatus int
	// Duration is the attempt's own time: sending the request and reading
	// the answer.
	Duration time.Duration
	// RateLimitWait is how long the attempt waited for the rate limiter
	// before it was sent (0 without one).
	RateLimitWait time.Duration
	// ErrorType says what went wrong, in the words of ErrorType; "" when
	// the attempt succeeded.
	ErrorType string
	// RetryReason says why the call goes on to another attempt, such as
	// "rate limited (429)" or "server error (503)"; "" when this attempt is
	// the call's last.
	RetryReason string
	// RetryDelay is the wait before the next attempt, when RetryReason is
	// set.
	RetryDelay time.Duration

	// For the client's log only (an Observer given with WithObserver never
	// sees them): the answer, nil when none arrived, and the attempt's own
	// error, nil when it has none.
	resp *Response
	err  error
}

// CallEnd is how a call ended.
type CallEnd struct {
	// Attempts is how many attempts were sent.
	Attempts int
	// HTTPStatus is the last answer's status code; 0 when none arrived.
	HTTPStatus int
	// Duration is the whole call, backoff and rate-limit waits included.
	Duration time.Duration
	// Outcome is the call's result in one word.
	Outcome Outcome
	// ErrorType says what went wrong, in the words of ErrorType; "" on
	// success.
	ErrorType string
	// Reason says why the call stopped without success: "not retryable",
	// "context done", ReasonAttemptsExhausted, ReasonBudgetExhausted, ...;
	// "" on success.
	Reason string
	// DroppedLinks are the app links an intent's answer carried that the
	// client dropped from Intent.AppLinks because no app could pay with
	// them (see CreatePaymentIntent); nil for every other call.
	DroppedLinks []DroppedLink

	// err is the error the call returned, for the client's log only (an
	// Observer given with WithObserver never sees it).
	err error
}

// Outcome is a call's result in one word.
type Outcome string

// The outcomes of a call.
const (
	// OutcomeSuccess: the service accepted the call and its answer was read.
	OutcomeSuccess Outcome = "success"
	// OutcomeFailure: the call failed and took no effect (a refusal, or a
	// read-only call that could not complete).
	OutcomeFailure Outcome = "failure"
	// OutcomeUnknown: a create may or may not have taken effect; the error
	// matches ErrOutcomeUnknown.
	OutcomeUnknown Outcome = "outcome_unknown"
	// OutcomeCanceled: the call's context ended first, and nothing that went
	// out can have taken effect.
	OutcomeCanceled Outcome = "canceled"
)

// FinalState reports an order that reached a final state, and how long
// that took.
type FinalState struct {
	// Source says who learnt it: "WaitForPayment", or the reconciler's
	// name ("reconcile").
	Source string
	// OrderID is the order.
	OrderID string
	// Status is its final state: SUCCESS, FAIL, REJECT or another terminal
	// value the service sent.
	Status TxnStatus
	// Result is the source's own word for it, such as reconcile's
	// "late_paid"; may be "".
	Result string
	// Elapsed is the time to the final state: since the wait began for
	// WaitForPayment, since the order was created for a reconciler.
	Elapsed time.Duration
}

// NopObserver is an Observer that does nothing. Embed it in an Observer of
// your own to implement only the methods you need.
type NopObserver struct{}

// StartCall returns ctx.
func (NopObserver) StartCall(ctx context.Context, _ CallInfo) context.Context { return ctx }

// StartAttempt returns ctx.
func (NopObserver) StartAttempt(ctx context.Context, _ CallInfo, _ int) context.Context { return ctx }

// EndAttempt does nothing.
func (NopObserver) EndAttempt(context.Context, CallInfo, AttemptEnd) {}

// EndCall does nothing.
func (NopObserver) EndCall(context.Context, CallInfo, CallEnd) {}

// FinalState does nothing.
func (NopObserver) FinalState(context.Context, FinalState) {}

// observers is the client's observer when it has more than one: the log's
// and WithObserver's, in that order. Each start passes the context the one
// before returned on to the next; each end gets the last one.
type observers []Observer

// StartCall starts the call on each observer in turn.
func (all observers) StartCall(ctx context.Context, call CallInfo) context.Context {
	for _, o := range all {
		ctx = o.StartCall(ctx, call)
	}
	return ctx
}

// StartAttempt starts the attempt on each observer in turn.
func (all observers) StartAttempt(ctx context.Context, call CallInfo, n int) context.Context {
	for _, o := range all {
		ctx = o.StartAttempt(ctx, call, n)
	}
	return ctx
}

// EndAttempt ends the attempt on each observer.
func (all observers) EndAttempt(ctx context.Context, call CallInfo, a AttemptEnd) {
	for _, o := range all {
		o.EndAttempt(ctx, call, a)
	}
}

// EndCall ends the call on each observer.
func (all observers) EndCall(ctx context.Context, call CallInfo, c CallEnd) {
	for _, o := range all {
		o.EndCall(ctx, call, c)
	}
}

// FinalState reports f to each observer.
func (all observers) FinalState(ctx context.Context, f FinalState) {
	for _, o := range all {
		o.FinalState(ctx, f)
	}
}

// outside is an Observer given with WithObserver: it is shown the public
// part of each event only, never what the client keeps for its own log
// (the path, the answer, the errors, whose text may quote the service).
type outside struct{ o Observer }

// StartCall passes the call on without its path.
func (w outside) StartCall(ctx context.Context, call CallInfo) context.Context {
	call.path = ""
	return w.o.StartCall(ctx, call)
}

// StartAttempt passes the attempt on without the call's path.
func (w outside) StartAttempt(ctx context.Context, call CallInfo, n int) context.Context {
	call.path = ""
	return w.o.StartAttempt(ctx, call, n)
}

// EndAttempt passes the attempt's end on without the path, the answer and
// the error.
func (w outside) EndAttempt(ctx context.Context, call CallInfo, a AttemptEnd) {
	call.path, a.resp, a.err = "", nil, nil
	w.o.EndAttempt(ctx, call, a)
}

// EndCall passes the call's end on without the path and the error.
func (w outside) EndCall(ctx context.Context, call CallInfo, c CallEnd) {
	call.path, c.err = "", nil
	w.o.EndCall(ctx, call, c)
}

// FinalState passes f on.
func (w outside) FinalState(ctx context.Context, f FinalState) { w.o.FinalState(ctx, f) }

// newObserver is the client's one observer: the log's when it has a
// logger, the caller's when it has one, both through observers when it has
// both, and a no-op when it has neither, so that the call path always has
// one to call.
func newObserver(logger *slog.Logger, o Observer, filter *redact.Filter) Observer {
	var all observers
	if logger != nil {
		all = append(all, logObserver{log: logger, filter: filter})
	}
	if o != nil {
		all = append(all, outside{o})
	}
	switch len(all) {
	case 0:
		return NopObserver{}
	case 1:
		return all[0]
	}
	return all
}

// Observer returns the Observer the client reports to (never nil: a no-op
// when none was configured): the log's that WithLogger installs, the one
// given WithObserver, or both through one fan-out, the log first. A
// reconciler reports the final states it learns there, with
// c.Observer().FinalState, as the reconcile package's Sweeper does. An
// Observer given WithObserver is reached through a wrapper that shows it
// what it is always shown: no path, answer or error.
func (c *Client) Observer() Observer {
	c.mustInit()
	return c.observer
}

// The words of ErrorType.
const (
	errorTypeValidation   = "validation"
	errorTypeUnauthorized = "unauthorized"
	errorTypeDuplicate    = "duplicate_order_id"
	errorTypeInvalid      = "invalid_request"
	errorTypeNotFound     = "not_found"
	errorTypeRateLimited  = "rate_limited"
	errorTypeServer       = "server_error"
	errorTypeUnexpected   = "unexpected_response"
	errorTypeTimeout      = "timeout"
	errorTypeCanceled     = "canceled"
	errorTypeRateLimiter  = "rate_limiter"
	errorTypeTransport    = "transport"
	errorTypeMismatch     = "amount_mismatch"
)

// ErrorType names what kind of failure err is, in a fixed vocabulary that
// suits a metric attribute or OpenTelemetry's error.type: "validation",
// "unauthorized", "duplicate_order_id", "invalid_request", "not_found",
// "rate_limited", "server_error", "unexpected_response", "timeout" (a
// deadline), "canceled", "rate_limiter" (the rate limiter failed, not the
// service), "amount_mismatch" (WaitForPayment's ErrAmountMismatch: paid, for
// another amount) and "transport" (no answer). It returns "" for nil. What ended
// a call comes first: a call canceled after a 503 is "canceled". Outcome
// unknown is not a type but an outcome: the type says what caused it.
func ErrorType(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrValidation):
		return errorTypeValidation
	// What ended the call before the service's last word: a call canceled
	// after a 503 is "canceled".
	case errors.Is(err, errRateLimiter):
		return errorTypeRateLimiter
	case errors.Is(err, context.DeadlineExceeded):
		return errorTypeTimeout
	case errors.Is(err, context.Canceled):
		return errorTypeCanceled
	case errors.Is(err, ErrUnauthorized):
		return errorTypeUnauthorized
	case errors.Is(err, ErrDuplicateOrderID):
		return errorTypeDuplicate
	case errors.Is(err, ErrInvalidRequest):
		return errorTypeInvalid
	case errors.Is(err, ErrNotFound):
		return errorTypeNotFound
	case errors.Is(err, ErrRateLimited):
		return errorTypeRateLimited
	case errors.Is(err, ErrServer):
		return errorTypeServer
	case errors.Is(err, ErrUnexpectedResponse):
		return errorTypeUnexpected
	case errors.Is(err, ErrAmountMismatch):
		return errorTypeMismatch
	}
	return errorTypeTransport
}

// Why a call stopped, when its context or its rate limiter ended it.
const (
	reasonContextDone   = "context done"
	reasonLimiterFailed = "rate limiter failed"
)

// callOutcome is the Outcome of a call that returned err after stopping
// for reason: canceled only when its context ended it (an attempt's own
// timeout is a failure).
func callOutcome(err error, reason string) Outcome {
	switch {
	case err == nil:
		return OutcomeSuccess
	case errors.Is(err, ErrOutcomeUnknown):
		return OutcomeUnknown
	case reason == reasonContextDone:
		return OutcomeCanceled
	}
	return OutcomeFailure
}
