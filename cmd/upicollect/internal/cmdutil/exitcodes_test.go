package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
)

func TestExitError(t *testing.T) {
	inner := errors.New("disk full")
	e := &ExitError{Code: ExitFailure, Kind: KindFailure, Err: inner}
	assert.Equal(t, "disk full", e.Error())
	assert.Same(t, inner, e.Unwrap())
	assert.ErrorIs(t, fmt.Errorf("run: %w", e), inner)

	silent := &ExitError{Code: ExitPaymentFailed, Kind: KindPaymentFailed}
	assert.Equal(t, KindPaymentFailed, silent.Error(), "a silent exit reads as its kind")
	assert.Nil(t, silent.Unwrap())
}

// TestUsageError: a plain error becomes exit 2 "usage"; an error that
// already carries its exit keeps it.
func TestUsageError(t *testing.T) {
	plain := errors.New("missing ORDER_ID")
	err := UsageError(plain)
	var ee *ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, ExitError{Code: ExitUsage, Kind: KindUsage, Err: plain}, *ee)

	unauthorized := fmt.Errorf("check: %w", &ExitError{Code: ExitUnauthorized, Kind: KindUnauthorized, Err: upicollect.ErrUnauthorized})
	assert.Same(t, unauthorized, UsageError(unauthorized))
	code, kind := Classify(context.Background(), UsageError(unauthorized))
	assert.Equal(t, ExitUnauthorized, code)
	assert.Equal(t, KindUnauthorized, kind)
}

func TestUsageArgs(t *testing.T) {
	assert.NoError(t, UsageArgs(nil))
	err := UsageArgs(errors.New("accepts 1 arg(s), received 2"))
	code, kind := Classify(context.Background(), err)
	assert.Equal(t, ExitUsage, code)
	assert.Equal(t, KindUsage, kind)
	assert.Equal(t, "accepts 1 arg(s), received 2", err.Error())
}

// TestClassify: a command's own exit wins over the SDK's sentinels inside
// it, a cancellation is an interruption only when the run's context ended,
// and the signal that ended it gives the code.
func TestClassify(t *testing.T) {
	live := context.Background()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	terminated, stop := context.WithCancelCause(context.Background())
	stop(Signalled{Sig: syscall.SIGTERM})
	canceled := fmt.Errorf("poll: %w", context.Canceled)
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		code int
		kind string
	}{
		{"exit error", live, fmt.Errorf("wait: %w", &ExitError{Code: ExitPaymentFailed, Kind: KindPaymentFailed}), ExitPaymentFailed, KindPaymentFailed},
		{"exit error over sentinel", live, &ExitError{Code: ExitUsage, Kind: KindUsage, Err: upicollect.ErrUnauthorized}, ExitUsage, KindUsage},
		{"sentinel", live, upicollect.ErrUnauthorized, ExitUnauthorized, KindUnauthorized},
		{"cancelled, run goes on", live, canceled, ExitFailure, KindFailure},
		{"Ctrl-C", cancelled, canceled, ExitInterrupted, KindInterrupted},
		{"SIGTERM", terminated, canceled, 143, KindInterrupted},
		{"Ctrl-C over exit error", cancelled, &ExitError{Code: ExitUnknown, Kind: KindOutcomeUnknown, Err: context.Canceled}, ExitInterrupted, KindInterrupted},
		{"run ended, other error", cancelled, upicollect.ErrUnauthorized, ExitUnauthorized, KindUnauthorized},
	}
	for _, tt := range tests {
		code, kind := Classify(tt.ctx, tt.err)
		assert.Equal(t, tt.code, code, tt.name)
		assert.Equal(t, tt.kind, kind, tt.name)
	}
}

// TestExitForTransport: no answer at all is a failure of the transport,
// not a refusal, whatever the URL error wraps.
func TestExitForTransport(t *testing.T) {
	for _, err := range []error{
		&url.Error{Op: "Post", URL: "http://127.0.0.1:1", Err: syscall.ECONNREFUSED},
		fmt.Errorf("check: %w", &url.Error{Op: "Post", URL: "http://127.0.0.1:1", Err: errors.New("EOF")}),
		fmt.Errorf("check: %w", &upicollect.APIError{}),
	} {
		code, kind := ExitFor(err)
		assert.Equal(t, ExitFailure, code, "%v", err)
		assert.Equal(t, KindTransport, kind, "%v", err)
	}
	code, kind := ExitFor(fmt.Errorf("check: %w", &upicollect.APIError{HTTPStatus: 502}))
	assert.Equal(t, ExitRefused, code)
	assert.Equal(t, KindRefused, kind)
	code, kind = ExitFor(&url.Error{Op: "Post", URL: "http://x", Err: upicollect.ErrOutcomeUnknown})
	assert.Equal(t, ExitUnknown, code, "a sentinel wins over the URL error around it")
	assert.Equal(t, KindOutcomeUnknown, kind)
	code, kind = ExitFor(errors.Join(upicollect.ErrServer, upicollect.ErrOutcomeUnknown))
	assert.Equal(t, ExitUnknown, code, "an unknown outcome wins over a 5xx")
	assert.Equal(t, KindOutcomeUnknown, kind)
	code, kind = ExitFor(upicollect.ErrAmountMismatch)
	assert.Equal(t, ExitPaymentFailed, code)
	assert.Equal(t, KindAmountMismatch, kind)
}

func TestSilentExit(t *testing.T) {
	assert.NoError(t, SilentExit(ExitOK))
	for _, code := range []int{ExitFailure, ExitPaymentFailed} {
		err := SilentExit(code)
		var ee *ExitError
		require.ErrorAs(t, err, &ee)
		assert.Equal(t, ExitError{Code: code, Kind: KindPaymentFailed}, *ee)
		assert.Equal(t, KindPaymentFailed, err.Error())
	}
	assert.Equal(t, ExitOK, StatusExit(upicollect.TxnSuccess))
	c, _ := Classify(context.Background(), SilentExit(StatusExit(upicollect.TxnFail)))
	assert.Equal(t, ExitPaymentFailed, c)
}

// otherSignal is an os.Signal that is no syscall.Signal.
type otherSignal struct{}

func (otherSignal) String() string { return "other" }
func (otherSignal) Signal()        {}

func TestInterruptedCode(t *testing.T) {
	ended := func(cause error) context.Context {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(cause)
		return ctx
	}
	tests := []struct {
		name string
		ctx  context.Context
		want int
	}{
		{"SIGINT", ended(Signalled{Sig: syscall.SIGINT}), 130},
		{"os.Interrupt", ended(Signalled{Sig: os.Interrupt}), 130},
		{"SIGTERM", ended(Signalled{Sig: syscall.SIGTERM}), 143},
		{"SIGHUP", ended(Signalled{Sig: syscall.SIGHUP}), 129},
		{"wrapped signal", ended(fmt.Errorf("stop: %w", Signalled{Sig: syscall.SIGTERM})), 143},
		{"not a syscall signal", ended(Signalled{Sig: otherSignal{}}), ExitInterrupted},
		{"no signal", ended(nil), ExitInterrupted},
		{"other cause", ended(errors.New("test over")), ExitInterrupted},
		{"still running", context.Background(), ExitInterrupted},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, InterruptedCode(tt.ctx), tt.name)
	}
}

func TestSignalled(t *testing.T) {
	assert.Equal(t, "interrupted by terminated", Signalled{Sig: syscall.SIGTERM}.Error())
	assert.Equal(t, "interrupted by interrupt", Signalled{Sig: os.Interrupt}.Error())

	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(Signalled{Sig: syscall.SIGTERM})
	inner := errors.New("waiting for ORD1")
	err := Interrupted(ctx, inner)
	var ee *ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, ExitError{Code: 143, Kind: KindInterrupted, Err: inner}, *ee)
	assert.Equal(t, "waiting for ORD1", err.Error())
}
