package upicollect_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
)

func TestParseRupees(t *testing.T) {
	tests := []struct {
		in      string
		want    upicollect.Money
		problem string // "" when in is read
	}{
		{"499", upicollect.Rupees(499), ""},
		{"499.5", 49950, ""},
		{"499.50", 49950, ""},
		{"1.08", 108, ""},
		{"0", 0, ""},
		{"92233720368547758.07", math.MaxInt64, ""},
		{"92233720368547758.08", 0, "is too large"},
		{"1.005", 0, "has more than two decimals (a fraction of a paisa)"},
		{"1.", 0, "must have one or two decimals after its point"},
		{"", 0, "must be rupees, like 499 or 499.50"},
		{"-1", 0, "must be rupees, like 499 or 499.50"},
		{"4.99e2", 0, "must be rupees, like 499 or 499.50"},
		{"1,000", 0, "must be rupees, like 499 or 499.50"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := upicollect.ParseRupees(tt.in)
			if tt.problem == "" {
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
				return
			}
			require.ErrorIs(t, err, upicollect.ErrValidation)
			var ve *upicollect.ValidationError
			require.True(t, errors.As(err, &ve))
			assert.Equal(t, "ParseRupees", ve.Op)
			assert.Equal(t, []upicollect.FieldError{{Field: "amount", Problem: tt.problem}}, ve.Fields)
			assert.Zero(t, got)
		})
	}
}

// TestParseRupeesReadsMoneyString: every Money's String reads back as the
// same Money.
func TestParseRupeesReadsMoneyString(t *testing.T) {
	for _, m := range []upicollect.Money{0, 1, 99, 100, 108, 49950, math.MaxInt64} {
		got, err := upicollect.ParseRupees(m.String())
		require.NoError(t, err, m.String())
		assert.Equal(t, m, got)
	}
}
