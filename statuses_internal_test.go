package upicollect

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNamedOrderError: whatever a check returned, the batch's error is an
// *APIError naming the order, still matching what it matched.
func TestNamedOrderError(t *testing.T) {
	assert.NoError(t, namedOrderError("o-1", nil))

	named := &APIError{Op: "checkPaymentStatus", OrderID: "o-1", matches: isServer}
	assert.Same(t, named, namedOrderError("o-1", named), "already named: kept")

	unnamed := &APIError{Op: "checkPaymentStatus", matches: isServer, cause: context.DeadlineExceeded}
	err := namedOrderError("o-2", unnamed)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "o-2", ae.OrderID)
	assert.Empty(t, unnamed.OrderID, "the original is not changed")
	assert.ErrorIs(t, err, ErrServer)
	assert.ErrorIs(t, err, context.DeadlineExceeded)

	plain := errors.New("something else")
	err = namedOrderError("o 3", plain)
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "o 3", ae.OrderID)
	assert.ErrorIs(t, err, plain)
	assert.Contains(t, err.Error(), `order "o 3"`)
}
