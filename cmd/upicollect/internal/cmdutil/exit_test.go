package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	upicollect "github.com/upicollect/upicollect-go"
)

func TestExitFor(t *testing.T) {
	tests := []struct {
		err  error
		code int
		kind string
	}{
		{&upicollect.ValidationError{Op: "x"}, ExitUsage, KindValidation},
		{fmt.Errorf("wrapped: %w", upicollect.ErrUnauthorized), ExitUnauthorized, KindUnauthorized},
		{upicollect.ErrOutcomeUnknown, ExitUnknown, KindOutcomeUnknown},
		{upicollect.ErrDuplicateOrderID, ExitRefused, "duplicate_order_id"},
		{upicollect.ErrInvalidRequest, ExitRefused, "invalid_request"},
		{upicollect.ErrNotFound, ExitRefused, "not_found"},
		{upicollect.ErrRateLimited, ExitRefused, "rate_limited"},
		{upicollect.ErrServer, ExitRefused, "server_error"},
		{upicollect.ErrUnexpectedResponse, ExitRefused, "unexpected_response"},
		{&upicollect.APIError{HTTPStatus: 418}, ExitRefused, KindRefused},
		{&upicollect.APIError{}, ExitFailure, KindTransport},
		{errors.New("disk full"), ExitFailure, KindFailure},
	}
	for _, tt := range tests {
		code, kind := ExitFor(tt.err)
		assert.Equal(t, tt.code, code, "%v", tt.err)
		assert.Equal(t, tt.kind, kind, "%v", tt.err)
	}
}

func TestClassifyInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	err := fmt.Errorf("poll: %w", context.Canceled)
	code, _ := Classify(ctx, err)
	assert.Equal(t, ExitFailure, code, "a cancellation the user did not ask for is a failure")
	cancel()
	code, kind := Classify(ctx, err)
	assert.Equal(t, ExitInterrupted, code)
	assert.Equal(t, KindInterrupted, kind)
}

func TestStatusExit(t *testing.T) {
	for s, want := range map[upicollect.TxnStatus]int{
		upicollect.TxnSuccess: ExitOK, upicollect.TxnPending: ExitOK, "": ExitOK,
		upicollect.TxnFail: ExitPaymentFailed, upicollect.TxnReject: ExitPaymentFailed, "EXPIRED": ExitPaymentFailed,
	} {
		assert.Equal(t, want, StatusExit(s), s)
	}
}

// TestKindsAreTheSDKs: every kind the command line prints for one of the
// SDK's sentinels is the SDK's own word for it (upicollect.ErrorType),
// and an error without an answer is the SDK's "transport".
func TestKindsAreTheSDKs(t *testing.T) {
	for _, m := range sdkExits {
		if m.err == upicollect.ErrOutcomeUnknown {
			continue // an outcome, not an ErrorType
		}
		_, kind := ExitFor(m.err)
		assert.Equal(t, upicollect.ErrorType(m.err), kind, "%v", m.err)
	}
	_, kind := ExitFor(upicollect.ErrOutcomeUnknown)
	assert.Equal(t, string(upicollect.OutcomeUnknown), kind)
	assert.Equal(t, "transport", KindTransport)
	assert.Equal(t, "timeout", KindTimeout)
	assert.Equal(t, "amount_mismatch", KindAmountMismatch)
}
