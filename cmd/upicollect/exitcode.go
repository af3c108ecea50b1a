package main

import (
	"context"
	"errors"
	"net/url"
	"os"
	"syscall"

	upicollect "github.com/upicollect/upicollect-go"
)

// Error kinds, the "kind" of a JSON error document. Scripts may match them;
// they are as stable as the exit codes.
const (
	kindUsage         = "usage"
	kindValidation    = "validation"
	kindUnauthorized  = "unauthorized"
	kindOutcome       = "outcome_unknown"
	kindTimeout       = "timeout"
	kindInterrupted   = "interrupted"
	kindRefused       = "refused"
	kindNetwork       = "network"
	kindFailure       = "failure"
	kindPaymentFailed = "payment_failed"
)

// exitError ends a command with an exit code other than 0. It is the one
// way a command reports its exit code: execute finds it with errors.As. A
// nil err is a silent exit: the command already printed all there is to
// say (a payment that ended FAIL prints its status and exits 6).
type exitError struct {
	code int
	kind string
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return e.kind
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError marks err as a usage error (exit 2), unless it already
// carries its exit code.
func usageError(err error) error {
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return &exitError{code: exitUsage, kind: kindUsage, err: err}
}

// sdkExits maps the SDK's sentinels to exit codes, first match wins: an
// unknown outcome is reported as such even when it also was a 5xx.
var sdkExits = []struct {
	err  error
	code int
	kind string
}{
	{upicollect.ErrValidation, exitUsage, kindValidation},
	{upicollect.ErrUnauthorized, exitUnauthorized, kindUnauthorized},
	{upicollect.ErrOutcomeUnknown, exitUnknown, kindOutcome},
	{upicollect.ErrAmountMismatch, exitPaymentFailed, "amount_mismatch"},
	{upicollect.ErrDuplicateOrderID, exitRefused, "duplicate_order_id"},
	{upicollect.ErrInvalidRequest, exitRefused, "invalid_request"},
	{upicollect.ErrNotFound, exitRefused, "not_found"},
	{upicollect.ErrRateLimited, exitRefused, "rate_limited"},
	{upicollect.ErrServer, exitRefused, "server_error"},
	{upicollect.ErrUnexpectedResponse, exitRefused, "unexpected_response"},
}

// classify returns the exit code and kind of err. A context cancelled by
// Ctrl-C (the run's own context) wins over everything else: the user asked
// to stop.
func (a *app) classify(err error) (code int, kind string) {
	if a.ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return interruptedCode(a.ctx), kindInterrupted
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code, ee.kind
	}
	return exitFor(err)
}

// exitFor maps an error from the SDK to its exit code and kind.
func exitFor(err error) (code int, kind string) {
	for _, m := range sdkExits {
		if errors.Is(err, m.err) {
			return m.code, m.kind
		}
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return exitFailure, kindNetwork // no answer: nothing was refused
	}
	var apiErr *upicollect.APIError
	if errors.As(err, &apiErr) {
		if apiErr.HTTPStatus == 0 {
			return exitFailure, kindNetwork // no answer: nothing was refused
		}
		return exitRefused, kindRefused
	}
	return exitFailure, kindFailure
}

// statusExit is the exit code for a payment in state s: 6 for a final state
// other than SUCCESS (FAIL, REJECT or one this tool does not know), so that
// `upicollect wait ID && ship` never ships an unpaid order.
func statusExit(s upicollect.TxnStatus) int {
	if s.Terminal() && s != upicollect.TxnSuccess {
		return exitPaymentFailed
	}
	return exitOK
}

// silentExit ends a command with code after it printed all there is to
// say; nil for exitOK.
func silentExit(code int) error {
	if code == exitOK {
		return nil
	}
	return &exitError{code: code, kind: kindPaymentFailed}
}

// signalled is the cause of a run's context ended by a signal.
type signalled struct{ sig os.Signal }

func (s signalled) Error() string { return "interrupted by " + s.sig.String() }

// interruptedCode is the exit code of a run that ctx's end stopped: 128
// plus the signal's number, as shells report it (130 for Ctrl-C, 143 for
// SIGTERM); 130 when no signal is known (a test cancelling as Ctrl-C would).
func interruptedCode(ctx context.Context) int {
	var s signalled
	if errors.As(context.Cause(ctx), &s) {
		if n, ok := s.sig.(syscall.Signal); ok {
			return 128 + int(n)
		}
	}
	return exitInterrupted
}

// interrupted is the error of a command that ctx's end stopped, with what
// it was doing.
func interrupted(ctx context.Context, err error) error {
	return &exitError{code: interruptedCode(ctx), kind: kindInterrupted, err: err}
}
