package wire

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseAmount(t *testing.T) {
	t.Parallel()
	ok := []struct {
		raw  string
		want int64
	}{
		{`499`, 49900},
		{`1.08`, 108},
		{`1.0800`, 108},
		{`"123.00"`, 12300},
		{`"10"`, 1000},
		{`" 10 "`, 1000},
		{`"\u0031.08"`, 108},
		{`1.5e1`, 1500},
		{`1.5E+1`, 1500},
		{`108e-2`, 108},
		{`0.01`, 1},
		{`0`, 0},
		{`-0`, 0},
		{`-1.08`, -108},
		{`"-3"`, -300},
		{`5.`, 500},
		{`.5`, 50},
		{`0e-5000`, 0},
		{`0e10000`, 0},                  // the exponent reaches maxExponent's last step
		{`0e-10000`, 0},                 // and so does a negative one
		{`90071992547409.9`, 1<<53 - 2}, // the last zero appended: exactly maxPaise/10 before it
		{`1.000e-2`, 1},
		{`100000`, 10000000},
		{`90071992547409.92`, 1 << 53},
		{`000123`, 12300},
	}
	for _, tt := range ok {
		got, err := ParseAmount(json.RawMessage(tt.raw))
		require.NoError(t, err, tt.raw)
		assert.Equal(t, tt.want, got, tt.raw)
	}
	bad := []struct{ raw, why string }{
		{`""`, "empty string"},
		{`"   "`, "empty"},
		{`null`, "no digits"},
		{`true`, "no digits"},
		{`"abc"`, "no digits"},
		{`"+5"`, "no digits"},
		{`"-"`, "no digits"},
		{`"."`, "no digits"},
		{`"--1"`, "no digits"},
		{`1.005`, "not a whole number of paise"},
		{`1e-3`, "not a whole number of paise"},
		{`"1,000"`, "not a number"},
		{`"1.2.3"`, "not a number"},
		{`"10 rupees"`, "not a number"},
		{`"1e"`, "empty exponent"},
		{`"1e+"`, "empty exponent"},
		{`"1ex"`, "not a number"},
		{`1e300`, "out of range"},
		{`1e1001`, "out of range"},
		{`90071992547409.93`, "out of range"},
		{`99999999999999.991`, "out of range"}, // out of range before the fraction's non-zero digit
		{`99999999999999999999`, "out of range"},
		{`{}`, "no digits"},
	}
	for _, tt := range bad {
		_, err := ParseAmount(json.RawMessage(tt.raw))
		require.Error(t, err, tt.raw)
		assert.Contains(t, err.Error(), tt.why, tt.raw)
	}
}

func TestParseDecimalPaiseClipsLongInput(t *testing.T) {
	t.Parallel()
	_, err := ParseDecimalPaise(strings.Repeat("9", 100) + "x")
	require.Error(t, err)
	assert.Contains(t, err.Error(), strings.Repeat("9", 32)+"…")
	assert.NotContains(t, err.Error(), strings.Repeat("9", 33))
	exact := strings.Repeat("9", 31) + "x" // 32 bytes: quoted whole
	_, err = ParseDecimalPaise(exact)
	assert.ErrorContains(t, err, `"`+exact+`"`)
	_, err = ParseDecimalPaise("")
	assert.ErrorContains(t, err, "empty")
}
