package sandbox

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
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
