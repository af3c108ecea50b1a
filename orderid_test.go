package upicollect_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
)

// TestValidateOrderIDIsTheOperationsRule holds ValidateOrderID to the
// rule CheckPaymentStatus applies before any I/O.
func TestValidateOrderIDIsTheOperationsRule(t *testing.T) {
	for _, tc := range []struct {
		id      string
		problem string // "" when valid
	}{
		{"ORD-1", ""},
		{"utz_65f1c2a9b3d4e", ""},
		{"", "is required"},
		{"has space", "whitespace"},
		{"tab\there", "whitespace"},
		{"zero\u200bwidth", "format"},
		{"bad\xffutf8", "UTF-8"},
		{strings.Repeat("a", upicollect.MaxOrderIDLen), ""},
		{strings.Repeat("a", upicollect.MaxOrderIDLen+1), "at most"},
	} {
		err := upicollect.ValidateOrderID("reconcile.Track", tc.id)
		if tc.problem == "" {
			assert.NoError(t, err, "%q", tc.id)
			continue
		}
		require.ErrorIs(t, err, upicollect.ErrValidation, "%q", tc.id)
		var ve *upicollect.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "reconcile.Track", ve.Op)
		f, ok := ve.Field("order_id")
		require.True(t, ok)
		assert.Contains(t, f.Problem, tc.problem, "%q", tc.id)
	}
}
