package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVariantsGolden(t *testing.T) {
	tests := []struct {
		name     string
		variants Variants
		result   string // "" leaves the order unpaid
		code     int
	}{
		{"variant_data_status_success", Variants{StatusShape: StatusShapeDataStatus}, StatusSuccess, 200},
		{"variant_data_status_fail", Variants{StatusShape: StatusShapeDataStatus}, StatusFail, 200},
		{"variant_bare_success", Variants{StatusShape: StatusShapeBare}, StatusSuccess, 200},
		{"variant_bare_reject", Variants{StatusShape: StatusShapeBare}, StatusReject, 200},
		{"variant_not_found_404", Variants{NotFound404: true}, "", 404},
		{"variant_string_status_code", Variants{StringStatusCode: true}, StatusSuccess, 200},
		{"variant_string_amounts", Variants{StringAmounts: true}, StatusSuccess, 200},
		{"variant_all_strings_data_status", Variants{StatusShape: StatusShapeDataStatus, StringStatusCode: true, StringAmounts: true}, StatusSuccess, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fixed(t, WithVariants(tt.variants))
			assert.Equal(t, tt.variants, s.Variants())
			a := call(t, s, OpCreatePaymentRequest, with(requestForm(s), "order_id", "v-1"))
			require.Equal(t, 200, a.code)
			if tt.result != "" {
				_, err := s.Settle("v-1", tt.result, "")
				require.NoError(t, err)
			}
			a = call(t, s, OpCheckPaymentStatus, statusForm(s, "v-1"))
			assert.Equal(t, tt.code, a.code)
			golden(t, s, tt.name, a)
		})
	}
}

func TestSetVariantsAtRuntime(t *testing.T) {
	s := fixed(t)
	require.Equal(t, 200, call(t, s, OpCreatePaymentLink, linkForm(s)).code)
	s.SetVariants(Variants{StringStatusCode: true, IntentExtras: true, NotFound404: true})

	// Every envelope with a statusCode follows the switch...
	m := call(t, s, OpCreatePaymentIntent, with(intentForm(s), "amount", "0")).json(t)
	assert.Equal(t, "400", m["statusCode"])
	a := call(t, s, OpCheckPaymentStatus, statusForm(s, "unknown"))
	assert.Equal(t, 404, a.code)
	assert.Equal(t, "404", a.json(t)["statusCode"])
	// ... except the missing-auth answer, which keeps the document's shape.
	a = send(t, s, newReq(t, s, OpCreatePaymentLink, "", nil))
	assert.Equal(t, map[string]any{"status": false, "message": "Authorization header is required"}, a.json(t))

	d := call(t, s, OpCreatePaymentIntent, intentForm(s)).json(t)["data"].(map[string]any)
	assert.Contains(t, d["cred"], "credpay://upi/pay?pa=")
	assert.Equal(t, DefaultMerchantName, d["merchantName"])

	s.SetVariants(Variants{})
	assert.Equal(t, 200, call(t, s, OpCheckPaymentStatus, statusForm(s, "unknown")).code)
}

func TestStatusShapeNames(t *testing.T) {
	for _, sh := range []StatusShape{StatusShapeSpec, StatusShapeDataStatus, StatusShapeBare} {
		got, err := ParseStatusShape(sh.String())
		require.NoError(t, err)
		assert.Equal(t, sh, got)
	}
	_, err := ParseStatusShape("nope")
	assert.Error(t, err)
	assert.Equal(t, "StatusShape(9)", StatusShape(9).String())
}

func TestDataStatusUsesOrderVPA(t *testing.T) {
	s := fixed(t, WithVariants(Variants{StatusShape: StatusShapeDataStatus}))
	require.Equal(t, 200, call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "i-1")).code)
	_, err := s.Pay("i-1")
	require.NoError(t, err)
	d := call(t, s, OpCheckPaymentStatus, statusForm(s, "i-1")).json(t)["data"].(map[string]any)
	assert.Equal(t, payerVPA, d["vpa"], "an intent has no customer VPA; the payer's stands in")
}

func TestDecimalPaidAmount(t *testing.T) {
	tests := []struct {
		name     string
		variants Variants
	}{
		{"status_decimal_amount", Variants{}},
		{"variant_string_decimal_amount", Variants{StringAmounts: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fixed(t, WithVariants(tt.variants))
			require.Equal(t, 200, call(t, s, OpCreatePaymentLink, linkForm(s)).code)
			id := s.Orders()[0].OrderID
			o, err := s.SettleWith(id, Settlement{Result: StatusSuccess, PaidPaise: 108})
			require.NoError(t, err)
			assert.Equal(t, int64(108), o.PaidPaise)
			golden(t, s, tt.name, call(t, s, OpCheckPaymentStatus, statusForm(s, id)))
		})
	}
	s := fixed(t)
	require.Equal(t, 200, call(t, s, OpCreatePaymentLink, linkForm(s)).code)
	_, err := s.SettleWith(s.Orders()[0].OrderID, Settlement{Result: StatusSuccess, PaidPaise: maxPaise + 1})
	assert.ErrorIs(t, err, ErrInvalidAmount)
}

func TestParseRupees(t *testing.T) {
	for in, want := range map[string]int64{"1": 100, "1.08": 108, "1.5": 150, "0.01": 1, "100000": 10000000, "100000.00": 10000000} {
		got, ok := parseRupees(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "0", "0.00", "1.", ".5", "1.234", "-1", "1e3", "100000.01", "1000000", "1,5"} {
		_, ok := parseRupees(in)
		assert.False(t, ok, in)
	}
}
