package main

import (
	"context"
	"errors"
	"net/url"

	upicollect "github.com/upicollect/upicollect-go"
)

// Error kinds, the "kind" of a JSON error document. Scripts may match them;
// they are as stable as the exit codes.
const (
	kindUsage        = "usage"
	kindValidation   = "validation"
	kindUnauthorized = "unauthorized"
	kindOutcome      = "outcome_unknown"
	kindTimeout      = "timeout"
	kindInterrupted  = "interrupted"
	kindRefused      = "refused"
	kindNetwork      = "network"
	kindFailure      = "failure"
)

// cliError is a failure whose exit code and kind the command decided.
type cliError struct {
	code int
	kind string
	err  error
}

func (e *cliError) Error() string { return e.err.Error() }
func (e *cliError) Unwrap() error { return e.err }

func usageError(err error) error {
	var ce *cliError
	if errors.As(err, &ce) {
		return err
	}
	return &cliError{code: exitUsage, kind: kindUsage, err: err}
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
		return exitInterrupted, kindInterrupted
	}
	var ce *cliError
	if errors.As(err, &ce) {
		return ce.code, ce.kind
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
