package cmdutil

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
)

func TestParseRupees(t *testing.T) {
	tests := []struct {
		in   string
		want upicollect.Money
		err  string
	}{
		{"499", 49900, ""},
		{"499.00", 49900, ""},
		{"1.08", 108, ""},
		{"1.5", 150, ""},
		{"0", 0, ""},
		{"1000000000", 100000000000, ""},
		{"1000000001", 0, "too large"},
		{"99999999999", 0, "too large"},
		{"1.005", 0, "two decimals"},
		{"1.", 0, "two decimals"},
		{"", 0, "rupees"},
		{".5", 0, "rupees"},
		{"-1", 0, "rupees"},
		{"+1", 0, "rupees"},
		{"1e3", 0, "rupees"},
		{"1,000", 0, "rupees"},
		{"１", 0, "rupees"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseRupees(tt.in)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func FuzzParseRupees(f *testing.F) {
	for _, s := range []string{"499", "1.08", "1.5", "1.", "-1", "99999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseRupees(s)
		if err != nil {
			return
		}
		// What parses prints back to the same amount.
		again, err := ParseRupees(m.String())
		require.NoError(t, err)
		assert.Equal(t, m, again)
		assert.GreaterOrEqual(t, int64(m), int64(0))
	})
}

func TestMoneyFlag(t *testing.T) {
	var m upicollect.Money
	f := MoneyFlag{&m}
	assert.Equal(t, "", f.String())
	require.NoError(t, f.Set("12.30"))
	assert.Equal(t, upicollect.Money(1230), m)
	assert.Equal(t, "12.30", f.String())
	assert.Equal(t, "RUPEES", f.Type())
	assert.Error(t, f.Set("x"))
	assert.Equal(t, upicollect.Money(1230), m, "a bad value leaves the flag alone")
}
