package cmdutil

import (
	"context"
	"errors"
	"net/url"
	"os"
	"syscall"

	upicollect "github.com/upicollect/upicollect-go"
)

// Exit codes, shared by every command.
const (
	ExitOK            = 0
	ExitFailure       = 1
	ExitUsage         = 2
	ExitRefused       = 3
	ExitUnauthorized  = 4
	ExitUnknown       = 5
	ExitPaymentFailed = 6
	ExitInterrupted   = 130 // 128 + SIGINT, as shells report it
)

// Error kinds, the "kind" of a JSON error document. Scripts may match
// them; they are as stable as the exit codes. A failure of the SDK is
// named in the SDK's own words: upicollect.ErrorType of its sentinel
// ("validation", "unauthorized", "duplicate_order_id", …, "transport"),
// and the outcome word upicollect.OutcomeUnknown. The kinds below are the
// command line's own, for what the SDK has no word.
const (
	KindUsage         = "usage"
	KindInterrupted   = "interrupted"
	KindRefused       = "refused" // the service answered, with no sentinel the SDK names
	KindFailure       = "failure"
	KindPaymentFailed = "payment_failed"
)

// SDK words the command line uses by name.
var (
	// KindValidation is the SDK's word for a call refused before it was sent.
	KindValidation = upicollect.ErrorType(upicollect.ErrValidation)
	// KindUnauthorized is the SDK's word for credentials refused.
	KindUnauthorized = upicollect.ErrorType(upicollect.ErrUnauthorized)
	// KindNotFound is the SDK's word for an order the service does not know.
	KindNotFound = upicollect.ErrorType(upicollect.ErrNotFound)
	// KindOutcomeUnknown is the SDK's word for a create that may or may
	// not have taken effect.
	KindOutcomeUnknown = string(upicollect.OutcomeUnknown)
	// KindAmountMismatch is the SDK's word for a payment of another amount
	// than the one expected (upicollect.ErrAmountMismatch).
	KindAmountMismatch = upicollect.ErrorType(upicollect.ErrAmountMismatch)
	// KindTimeout is the SDK's word for a deadline that passed.
	KindTimeout = upicollect.ErrorType(context.DeadlineExceeded)
	// KindTransport is the SDK's word for a call that got no answer (the
	// word ErrorType gives an error that is none of its sentinels).
	KindTransport = upicollect.ErrorType(&upicollect.APIError{})
)

// ExitError ends a command with an exit code other than 0. It is the one
// way a command reports its exit code: Classify finds it with errors.As.
// A nil Err is a silent exit: the command already printed all there is to
// say (a payment that ended FAIL prints its status and exits 6).
type ExitError struct {
	Code int
	Kind string
	Err  error
}

// Error is the text of the error behind the exit, or its kind when the
// exit is silent.
func (e *ExitError) Error() string {
	if e.Err == nil {
		return e.Kind
	}
	return e.Err.Error()
}

// Unwrap returns the error behind the exit.
func (e *ExitError) Unwrap() error { return e.Err }

// UsageError marks err as a usage error (exit 2), unless it already
// carries its exit code.
func UsageError(err error) error {
	var ee *ExitError
	if errors.As(err, &ee) {
		return err
	}
	return &ExitError{Code: ExitUsage, Kind: KindUsage, Err: err}
}

// sdkExits maps the SDK's sentinels to exit codes, first match wins: an
// unknown outcome is reported as such even when it also was a 5xx. The
// kind is the SDK's word for the sentinel (see Kind constants).
var sdkExits = []struct {
	err  error
	code int
	kind string
}{
	{upicollect.ErrValidation, ExitUsage, KindValidation},
	{upicollect.ErrUnauthorized, ExitUnauthorized, KindUnauthorized},
	{upicollect.ErrOutcomeUnknown, ExitUnknown, KindOutcomeUnknown},
	{upicollect.ErrAmountMismatch, ExitPaymentFailed, KindAmountMismatch},
	{upicollect.ErrDuplicateOrderID, ExitRefused, upicollect.ErrorType(upicollect.ErrDuplicateOrderID)},
	{upicollect.ErrInvalidRequest, ExitRefused, upicollect.ErrorType(upicollect.ErrInvalidRequest)},
	{upicollect.ErrNotFound, ExitRefused, KindNotFound},
	{upicollect.ErrRateLimited, ExitRefused, upicollect.ErrorType(upicollect.ErrRateLimited)},
	{upicollect.ErrServer, ExitRefused, upicollect.ErrorType(upicollect.ErrServer)},
	{upicollect.ErrUnexpectedResponse, ExitRefused, upicollect.ErrorType(upicollect.ErrUnexpectedResponse)},
}

// Classify returns the exit code and kind of err, a command's error in a
// run whose context is ctx. A context cancelled by Ctrl-C (the run's own
// context) wins over everything else: the user asked to stop.
func Classify(ctx context.Context, err error) (code int, kind string) {
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return InterruptedCode(ctx), KindInterrupted
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code, ee.Kind
	}
	return ExitFor(err)
}

// ExitFor maps an error from the SDK to its exit code and kind, by the
// error's type and sentinels, never by its text.
func ExitFor(err error) (code int, kind string) {
	for _, m := range sdkExits {
		if errors.Is(err, m.err) {
			return m.code, m.kind
		}
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return ExitFailure, KindTransport // no answer: nothing was refused
	}
	var apiErr *upicollect.APIError
	if errors.As(err, &apiErr) {
		if apiErr.HTTPStatus == 0 {
			return ExitFailure, KindTransport // no answer: nothing was refused
		}
		return ExitRefused, KindRefused
	}
	return ExitFailure, KindFailure
}

// StatusExit is the exit code for a payment in state s: 6 for a final
// state other than SUCCESS (FAIL, REJECT or one this tool does not know),
// so that `upicollect wait ID && ship` never ships an unpaid order.
func StatusExit(s upicollect.TxnStatus) int {
	if s.Terminal() && s != upicollect.TxnSuccess {
		return ExitPaymentFailed
	}
	return ExitOK
}

// SilentExit ends a command with code after it printed all there is to
// say; nil for ExitOK.
func SilentExit(code int) error {
	if code == ExitOK {
		return nil
	}
	return &ExitError{Code: code, Kind: KindPaymentFailed}
}

// Signalled is the cause of a run's context ended by a signal.
type Signalled struct{ Sig os.Signal }

// Error names the signal.
func (s Signalled) Error() string { return "interrupted by " + s.Sig.String() }

// InterruptedCode is the exit code of a run that ctx's end stopped: 128
// plus the signal's number, as shells report it (130 for Ctrl-C, 143 for
// SIGTERM); 130 when no signal is known (a test cancelling as Ctrl-C would).
func InterruptedCode(ctx context.Context) int {
	var s Signalled
	if errors.As(context.Cause(ctx), &s) {
		if n, ok := s.Sig.(syscall.Signal); ok {
			return 128 + int(n)
		}
	}
	return ExitInterrupted
}

// Interrupted is the error of a command that ctx's end stopped, with what
// it was doing.
func Interrupted(ctx context.Context, err error) error {
	return &ExitError{Code: InterruptedCode(ctx), Kind: KindInterrupted, Err: err}
}
