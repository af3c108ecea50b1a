package sandbox

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/upicollect/upicollect-go/internal/vocab"
)

func TestFormatINR(t *testing.T) {
	tests := []struct {
		paise int64
		want  string
	}{
		{0, "0.00"},
		{1, "0.01"},
		{50, "0.50"},
		{108, "1.08"},
		{99900, "999.00"},
		{99999, "999.99"},
		{100000, "1,000.00"},
		{1234567, "12,345.67"},
		{10000000, "1,00,000.00"},
		{12345678, "1,23,456.78"},
		{100000000, "10,00,000.00"},
		{123456789, "12,34,567.89"},
		{1000000000, "1,00,00,000.00"},
		{-100000, "-1,000.00"},
		{-5, "-0.05"},
		{math.MaxInt64, "92,23,37,20,36,85,47,758.07"},
		{math.MinInt64, "-92,23,37,20,36,85,47,758.08"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, formatINR(tt.paise), "formatINR(%d)", tt.paise)
	}
}

func BenchmarkFormatINR(b *testing.B) {
	for i := 0; i < b.N; i++ {
		_ = formatINR(10000000)
	}
}

func TestParseRupees(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "1": 100, "499": 49900, "499.0": 49900, "499.00": 49900, "499.000": 49900, "1.5": 150,
		"1.08": 108, "0.01": 1, "0499": 49900, "100000.00": 10000000, "999999999999999": 99999999999999900,
	} {
		got, ok := parseRupees(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", ".", ".5", "5.", "1.234", "1.0001", "-5", "+5", "1e2", "1,000", " 5", "5 ",
		"0x10", "١٢", "1000000000000000", "4.99e2", "NaN", "1..0"} {
		_, ok := parseRupees(in)
		assert.False(t, ok, "%q", in)
	}
}

// FuzzParseRupees: what parseRupees accepts writes back as the same amount.
func FuzzParseRupees(f *testing.F) {
	for _, s := range []string{"499", "123.00", "1.5", "0.010", "1e2", "-1", "99999999999999.99"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, ok := parseRupees(s)
		if !ok {
			return
		}
		back, ok := parseRupees(vocab.FormatRupees(p))
		if !ok || back != p || p < 0 {
			t.Fatalf("parseRupees(%q) = %d, written back %q reads %d, %v", s, p, vocab.FormatRupees(p), back, ok)
		}
	})
}
