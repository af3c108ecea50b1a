package wire

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseRupees(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
		err  error
	}{
		{"0", 0, nil},
		{"499", 49900, nil},
		{"499.5", 49950, nil},
		{"499.50", 49950, nil},
		{"499.500", 49950, nil},
		{"1.08", 108, nil},
		{"0.01", 1, nil},
		{"0499", 49900, nil},
		{"92233720368547758.07", math.MaxInt64, nil},
		{"92233720368547758.070", math.MaxInt64, nil},
		{"92233720368547758.08", 0, ErrOutOfRange},
		{"92233720368547758.1", 0, ErrOutOfRange},
		{"92233720368547759", 0, ErrOutOfRange},
		{"92233720368547758", 9223372036854775800, nil},
		{strings.Repeat("9", 40), 0, ErrOutOfRange},
		{"1.005", 0, ErrFractionOfPaisa},
		{"1.001", 0, ErrFractionOfPaisa},
		{"1.", 0, ErrBarePoint},
		{"", 0, ErrNotRupees},
		{".5", 0, ErrNotRupees},
		{".", 0, ErrNotRupees},
		{"-1", 0, ErrNotRupees},
		{"+1", 0, ErrNotRupees},
		{"1e3", 0, ErrNotRupees},
		{"1,000", 0, ErrNotRupees},
		{" 1", 0, ErrNotRupees},
		{"1 ", 0, ErrNotRupees},
		{"1..0", 0, ErrNotRupees},
		{"1.0.0", 0, ErrNotRupees},
		{"1.a", 0, ErrNotRupees},
		{"１", 0, ErrNotRupees},
		{"١٢", 0, ErrNotRupees},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseRupees(tt.in)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				assert.Zero(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// FuzzParseRupees: an accepted amount is never negative and reads as the
// same number of paise that strconv makes of its digits.
func FuzzParseRupees(f *testing.F) {
	for _, s := range []string{"499", "499.5", "1.08", "1.", "-1", "92233720368547758.07", "0.010"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseRupees(s)
		if err != nil {
			if !errors.Is(err, ErrNotRupees) && !errors.Is(err, ErrBarePoint) &&
				!errors.Is(err, ErrFractionOfPaisa) && !errors.Is(err, ErrOutOfRange) {
				t.Fatalf("ParseRupees(%q): untyped error %v", s, err)
			}
			return
		}
		whole, frac, _ := strings.Cut(s, ".")
		frac = strings.TrimRight(frac, "0")
		frac += "00"[min(len(frac), 2):]
		want, perr := strconv.ParseInt(strings.TrimLeft(whole, "0")+frac, 10, 64)
		if strings.TrimLeft(whole, "0")+frac == "" || strings.Trim(whole+frac, "0") == "" {
			want, perr = 0, nil
		}
		if perr != nil || p != want || p < 0 {
			t.Fatalf("ParseRupees(%q) = %d, want %d (%v)", s, p, want, perr)
		}
	})
}
