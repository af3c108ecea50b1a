package sandbox

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVariantsGolden(t *testing.T) {
	tests := []struct {
		name     string
		variants []string
		result   string // "" leaves the order unpaid
		code     int
	}{
		{"variant_data_status_success", []string{VariantStatusInData}, StatusSuccess, 200},
		{"variant_data_status_fail", []string{VariantStatusInData}, StatusFail, 200},
		{"variant_bare_success", []string{VariantStatusBare}, StatusSuccess, 200},
		{"variant_bare_reject", []string{VariantStatusBare}, StatusReject, 200},
		{"variant_not_found_404", []string{VariantNotFound404}, "", 404},
		{"variant_string_status_code", []string{VariantStringStatusCode}, StatusSuccess, 200},
		{"variant_string_amounts", []string{VariantStringAmounts}, StatusSuccess, 200},
		{"variant_all_strings_data_status", []string{VariantStatusInData, VariantStringStatusCode, VariantStringAmounts}, StatusSuccess, 200},
		{"variant_failed_status_true_fail", []string{VariantFailedStatusTrue}, StatusFail, 200},
		{"variant_failed_status_true_reject_data", []string{VariantFailedStatusTrue, VariantStatusInData}, StatusReject, 200},
		{"variant_not_found_404_http_200", []string{VariantNotFound404, VariantFailuresHTTP200}, "", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fixed(t, WithVariant(tt.variants...))
			assert.ElementsMatch(t, tt.variants, enabled(s.variantSet().list()))
			a := call(t, s, OpCreatePaymentRequest, with(requestForm(s), "order_id", "v-1"))
			require.Equal(t, 200, a.code)
			if tt.result != "" {
				_, err := s.SettleWith("v-1", Settlement{Result: tt.result})
				require.NoError(t, err)
			}
			a = call(t, s, OpCheckPaymentStatus, statusForm(s, "v-1"))
			assert.Equal(t, tt.code, a.code)
			golden(t, s, tt.name, a)
		})
	}
}

func TestCreateVariantsGolden(t *testing.T) {
	tests := []struct {
		name     string
		variants []string
		op       string
		form     func(*Server) url.Values
	}{
		{"variant_request_iso_expiry", []string{VariantRequestISOExpiry}, OpCreatePaymentRequest, requestForm},
		{"variant_string_amounts_intent", []string{VariantStringAmounts}, OpCreatePaymentIntent, intentForm},
		{"variant_fractional_amounts_intent", []string{VariantFractionalAmounts}, OpCreatePaymentIntent,
			func(s *Server) url.Values { return with(intentForm(s), "amount", "99.50") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fixed(t, WithVariant(tt.variants...))
			a := call(t, s, tt.op, tt.form(s))
			require.Equal(t, 200, a.code, "%s", a.body)
			golden(t, s, tt.name, a)
		})
	}
}

// TestQRBase64 decodes dynamicQR as the vendor's Android SDK does (after the
// first comma) for links of every length mod 4: padding must be right and
// the image the QR code of the intent link.
func TestQRBase64(t *testing.T) {
	s := Start(t, WithVariant(VariantQRBase64))
	for _, id := range []string{"q", "q1", "q12", "q123"} {
		d := call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", id)).json(t)["data"].(map[string]any)
		qr := d["dynamicQR"].(string)
		prefix, data, ok := strings.Cut(qr, ",")
		require.True(t, ok)
		assert.Equal(t, "data:image/png;base64", prefix)
		assert.Zero(t, len(data)%4, "padded base64")
		raw, err := base64.StdEncoding.DecodeString(data)
		require.NoError(t, err)
		_, err = png.Decode(bytes.NewReader(raw))
		require.NoError(t, err)
		want, err := qrPNG(d["intent"].(string))
		require.NoError(t, err)
		assert.Equal(t, want, raw, "the QR code of the intent link")
	}
}

// variantProbes tell, through the API alone, whether a variant is on.
var variantProbes = map[string]func(t *testing.T, s *Server) bool{
	VariantStatusInData: func(t *testing.T, s *Server) bool {
		m := freshStatus(t, s, StatusSuccess)
		_, inData := m["data"].(map[string]any)["status"]
		return inData && m["txnStatus"] == nil
	},
	VariantStatusBare: func(t *testing.T, s *Server) bool {
		m := freshStatus(t, s, StatusSuccess)
		_, inData := m["data"].(map[string]any)["status"]
		return !inData && m["txnStatus"] == nil
	},
	VariantNotFound404: func(t *testing.T, s *Server) bool {
		return call(t, s, OpCheckPaymentStatus, statusForm(s, "nope")).code == http.StatusNotFound
	},
	VariantStringStatusCode: func(t *testing.T, s *Server) bool {
		return call(t, s, OpCreatePaymentLink, linkForm(s)).json(t)["statusCode"] == "200"
	},
	VariantStringAmounts: func(t *testing.T, s *Server) bool {
		return intentData(t, s)["amount"] == "499.00"
	},
	VariantQRBase64: func(t *testing.T, s *Server) bool {
		return strings.HasPrefix(intentData(t, s)["dynamicQR"].(string), "data:image/png;base64,")
	},
	VariantFailedStatusTrue: func(t *testing.T, s *Server) bool {
		return freshStatus(t, s, StatusFail)["status"] == true
	},
	VariantFailuresHTTP200: func(t *testing.T, s *Server) bool {
		return call(t, s, OpCreatePaymentLink, with(linkForm(s), "amount", "0")).code == 200
	},
	VariantRequestISOExpiry: func(t *testing.T, s *Server) bool {
		d := call(t, s, OpCreatePaymentRequest, requestForm(s)).json(t)["data"].(map[string]any)
		return d["expiry"] != nil && d["order_id"] == d["orderId"]
	},
	VariantFractionalAmounts: func(t *testing.T, s *Server) bool {
		return call(t, s, OpCreatePaymentLink, with(linkForm(s), "amount", "99.50")).code == 200
	},
}

// freshStatus creates a request, settles it as result and returns its
// status answer.
func freshStatus(t *testing.T, s *Server, result string) map[string]any {
	t.Helper()
	id := call(t, s, OpCreatePaymentRequest, requestForm(s)).json(t)["data"].(map[string]any)["orderId"].(string)
	_, err := s.SettleWith(id, Settlement{Result: result})
	require.NoError(t, err)
	return call(t, s, OpCheckPaymentStatus, statusForm(s, id)).json(t)
}

func intentData(t *testing.T, s *Server) map[string]any {
	t.Helper()
	return call(t, s, OpCreatePaymentIntent, intentForm(s)).json(t)["data"].(map[string]any)
}

func enabled(vs []Variant) []string {
	var out []string
	for _, v := range vs {
		if v.Enabled {
			out = append(out, v.Name)
		}
	}
	return out
}

// TestEveryVariantSwitches switches each variant by Go option, by
// SetVariants and over HTTP, and sees its effect come and go.
func TestEveryVariantSwitches(t *testing.T) {
	require.Len(t, variantProbes, len(VariantNames()), "a probe for every variant")
	for _, name := range VariantNames() {
		probe := variantProbes[name]
		t.Run(name, func(t *testing.T) {
			off := Start(t)
			assert.False(t, probe(t, off), "off by default")

			on := Start(t, WithVariant(name))
			assert.True(t, probe(t, on), "WithVariant")

			require.NoError(t, off.setVariants([]string{name}, nil))
			assert.True(t, probe(t, off), "SetVariants on")
			require.NoError(t, off.setVariants(nil, []string{name}))
			assert.False(t, probe(t, off), "SetVariants off")

			list := switchHTTP(t, off, `{"enable":["`+name+`"]}`, http.StatusOK)
			assert.Equal(t, []string{name}, enabled(list))
			assert.True(t, probe(t, off), "POST /sandbox/variants enable")
			switchHTTP(t, off, `{"disable":["`+name+`"]}`, http.StatusOK)
			assert.False(t, probe(t, off), "POST /sandbox/variants disable")
		})
	}
}

func switchHTTP(t *testing.T, s *Server, body string, want int) []Variant {
	t.Helper()
	resp, err := s.HTTPClient().Post(s.URL()+variantsPath, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, want, resp.StatusCode)
	var list []Variant
	if want == http.StatusOK {
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
	}
	return list
}

func TestVariantsListAndErrors(t *testing.T) {
	s := Start(t, WithVariant(VariantStringAmounts))
	resp, err := s.HTTPClient().Get(s.URL() + variantsPath)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	var list []Variant
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
	require.Len(t, list, len(VariantNames()))
	for i, v := range list {
		assert.Equal(t, VariantNames()[i], v.Name)
		assert.Equal(t, v.Name == VariantStringAmounts, v.Enabled, v.Name)
		assert.NotEmpty(t, v.Description)
	}

	for _, body := range []string{`{"enable":["nope"]}`, `{"enable":["status-in-data","status-bare"]}`, `[`, `{"enable":"x"}`} {
		switchHTTP(t, s, body, http.StatusBadRequest)
	}
	assert.Equal(t, []string{VariantStringAmounts}, enabled(s.variantSet().list()), "a refused switch changes nothing")

	_, err = Listen("127.0.0.1:0", WithVariant("nope"))
	assert.ErrorContains(t, err, `unknown variant "nope"`)
	assert.Panics(t, func() { New(WithVariant(VariantStatusBare, VariantStatusInData)) })
}

func TestDataStatusUsesOrderVPA(t *testing.T) {
	s := fixed(t, WithVariant(VariantStatusInData))
	require.Equal(t, 200, call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "i-1")).code)
	_, err := s.Pay("i-1")
	require.NoError(t, err)
	d := call(t, s, OpCheckPaymentStatus, statusForm(s, "i-1")).json(t)["data"].(map[string]any)
	assert.Equal(t, payerVPA, d["vpa"], "an intent has no customer VPA; the payer's stands in")
}

func TestDecimalPaidAmount(t *testing.T) {
	tests := []struct {
		name     string
		variants []string
	}{
		{"status_decimal_amount", nil},
		{"variant_string_decimal_amount", []string{VariantStringAmounts}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fixed(t, WithVariant(tt.variants...))
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
	_, err := s.SettleWith(s.Orders()[0].OrderID, Settlement{Result: StatusSuccess, PaidPaise: maxOrderPaise + 1})
	assert.ErrorIs(t, err, ErrInvalidAmount)
	o, err := s.SettleWith(s.Orders()[0].OrderID, Settlement{Result: StatusSuccess, PaidPaise: maxOrderPaise})
	require.NoError(t, err, "100000 rupees is the most, and allowed")
	assert.Equal(t, int64(maxOrderPaise), o.PaidPaise)
}
