package vocab

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestFormatRupees(t *testing.T) {
	t.Parallel()
	for paise, want := range map[int64]string{
		0: "0.00", 1: "0.01", 9: "0.09", 10: "0.10", 99: "0.99", 100: "1.00", 108: "1.08", 49900: "499.00",
		10000000: "100000.00", -5: "-0.05", -100: "-1.00", -12345: "-123.45",
		math.MaxInt64: "92233720368547758.07", math.MinInt64: "-92233720368547758.08",
	} {
		assert.Equal(t, want, FormatRupees(paise), paise)
	}
}

func TestIndiaTime(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 1, 15, 10, 5, 0, 0, time.UTC)
	assert.Equal(t, "2025-01-15 15:35:00", at.In(IndiaTime).Format(ExpiryLayout))
	name, off := at.In(IndiaTime).Zone()
	assert.Equal(t, "IST", name)
	assert.Equal(t, 19800, off)
}

func TestNames(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "/v1/payments/checkPaymentStatus", PathPrefix+OpCheckPaymentStatus)
	for _, op := range []string{OpCreatePaymentIntent, OpCreatePaymentRequest, OpCreatePaymentLink, OpCheckPaymentStatus, OpCreateOrderRequest} {
		assert.NotContains(t, op, "/")
	}
}

func TestAppName(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]string{
		"phonepe": "PhonePe", "gpay": "Google Pay", "paytm": "Paytm", "cred": "CRED", "bhim": "BHIM",
		"": "", "app_a": "", "PhonePe": "", "intent": "",
	} {
		assert.Equal(t, want, AppName(key), key)
	}
	for _, a := range UPIApps {
		assert.Equal(t, a.Name, AppName(a.Key), "every listed app is found by its key")
	}
}
