package webhook_test

import (
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/webhook"
)

// TestDeliveryJSON pins the JSON field by field, as the package
// documentation describes it, and reads it back.
func TestDeliveryJSON(t *testing.T) {
	ist := time.FixedZone("IST", 5*3600+1800)
	d := webhook.Delivery{
		ID: "evt_0123", OrderID: "order-1001", Result: reconcile.Mismatch,
		Expected: 49900, Paid: 108, UTR: "412345678901", Reason: "",
		At: time.Date(2026, 3, 1, 15, 32, 10, 500_000_000, ist),
	}
	b, err := json.Marshal(d)
	require.NoError(t, err)
	assert.Equal(t, `{"id":"evt_0123","order_id":"order-1001","result":"mismatch",`+
		`"expected_paise":49900,"expected":"499.00","paid_paise":108,"paid":"1.08",`+
		`"utr":"412345678901","reason":"","at":"2026-03-01T10:02:10.5Z"}`, string(b))
	var back webhook.Delivery
	require.NoError(t, json.Unmarshal(b, &back))
	assert.True(t, d.At.Equal(back.At))
	back.At = d.At
	assert.Equal(t, d, back)

	zero, err := json.Marshal(webhook.Delivery{At: t0})
	require.NoError(t, err)
	assert.Equal(t, `{"id":"","order_id":"","result":"","expected_paise":0,"expected":"0.00","paid_paise":0,"paid":"0.00","utr":"","reason":"","at":"2026-03-01T10:00:00Z"}`, string(zero))
}

// TestDeliveryUnmarshal: required fields, rupee strings that must agree
// with the paise, unknown fields ignored, and d untouched on error.
func TestDeliveryUnmarshal(t *testing.T) {
	full := map[string]any{
		"id": "evt_1", "order_id": "o-1", "result": "paid", "expected_paise": 49900, "expected": "499.00",
		"paid_paise": 49900, "paid": "499.00", "utr": "U1", "reason": "r", "at": "2026-03-01T10:00:00Z",
	}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range full {
			m[kk] = vv
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	cases := []struct {
		name string
		in   map[string]any
		want string // "" accepted; else in the error
	}{
		{"full", full, ""},
		{"unknown field", with("livemode", true), ""},
		{"no rupee strings", with("expected", nil), ""},
		{"no paid string", with("paid", nil), ""},
		{"no utr", with("utr", nil), ""},
		{"no reason", with("reason", nil), ""},
		{"offset time", with("at", "2026-03-01T15:30:00+05:30"), ""},
		{"no id", with("id", nil), "id is missing"},
		{"empty id", with("id", ""), "id is missing"},
		{"no order_id", with("order_id", nil), "order_id is missing"},
		{"empty order_id", with("order_id", ""), "order_id is missing"},
		{"no result", with("result", nil), "result is missing"},
		{"empty result", with("result", ""), "result is missing"},
		{"no expected_paise", with("expected_paise", nil), "expected_paise is missing"},
		{"no paid_paise", with("paid_paise", nil), "paid_paise is missing"},
		{"no at", with("at", nil), "at is missing"},
		{"expected disagrees", with("expected", "499.01"), `expected "499.01" is not expected_paise 49900`},
		{"expected unformatted", with("expected", "499"), `expected "499" is not`},
		{"paid disagrees", with("paid", "1.00"), `paid "1.00" is not paid_paise 49900`},
		{"at not RFC 3339", with("at", "1 March 2026"), "at is not an RFC 3339 time"},
		{"paise a string", with("expected_paise", "49900"), "cannot unmarshal"},
		{"paise a fraction", with("expected_paise", 499.5), "cannot unmarshal"},
	}
	for _, c := range cases {
		b, err := json.Marshal(c.in)
		require.NoError(t, err)
		d := webhook.Delivery{ID: "untouched"}
		err = json.Unmarshal(b, &d)
		if c.want == "" {
			require.NoError(t, err, c.name)
			assert.Equal(t, "evt_1", d.ID, c.name)
			assert.Equal(t, "o-1", d.OrderID, c.name)
			assert.Equal(t, reconcile.Paid, d.Result, c.name)
			assert.Equal(t, upicollect.Money(49900), d.Expected, c.name)
			assert.Equal(t, upicollect.Money(49900), d.Paid, c.name)
			assert.Equal(t, c.in["utr"] != nil, d.UTR == "U1", c.name)
			assert.Equal(t, c.in["reason"] != nil, d.Reason == "r", c.name)
			assert.True(t, d.At.Equal(t0), c.name)
			continue
		}
		assert.ErrorIs(t, err, webhook.ErrBadDelivery, c.name)
		assert.ErrorContains(t, err, c.want, c.name)
		assert.Equal(t, webhook.Delivery{ID: "untouched"}, d, c.name)
	}
	d := webhook.Delivery{ID: "untouched"}
	assert.ErrorIs(t, d.UnmarshalJSON([]byte(`[1]`)), webhook.ErrBadDelivery)
	assert.ErrorIs(t, d.UnmarshalJSON([]byte(`{`)), webhook.ErrBadDelivery)
	assert.Equal(t, "untouched", d.ID)
}

// TestNewDelivery: an event's fields, the paid amount only when the check
// said SUCCESS.
func TestNewDelivery(t *testing.T) {
	ev := paidEvent()
	d := webhook.NewDelivery(ev)
	assert.Equal(t, webhook.Delivery{
		ID: webhook.DeliveryID("order-1001", reconcile.Paid), OrderID: "order-1001", Result: reconcile.Paid,
		Expected: 49900, Paid: 49900, UTR: "412345678901", At: ev.At,
	}, d)

	failed := reconcile.NewEvent(ev.Order, reconcile.Failed,
		&upicollect.PaymentStatus{TxnStatus: upicollect.TxnFail, Amount: 49900, UTR: "U-FAIL"}, ev.At, "")
	d = webhook.NewDelivery(failed)
	assert.Equal(t, upicollect.Money(0), d.Paid, "a failed payment paid nothing")
	assert.Equal(t, "U-FAIL", d.UTR)
	assert.Equal(t, webhook.DeliveryID("order-1001", reconcile.Failed), d.ID)

	expired := reconcile.NewEvent(ev.Order, reconcile.Expired, nil, ev.At, reconcile.ReasonNotFound)
	d = webhook.NewDelivery(expired)
	assert.Equal(t, upicollect.Money(0), d.Paid)
	assert.Empty(t, d.UTR)
	assert.Equal(t, reconcile.ReasonNotFound, d.Reason)
}

// TestDeliveryID: "evt_" and 32 hex digits, stable, one per order and
// result, the two parts kept apart.
func TestDeliveryID(t *testing.T) {
	id := webhook.DeliveryID("order-1001", reconcile.Paid)
	assert.Regexp(t, regexp.MustCompile(`^evt_[0-9a-f]{32}$`), id)
	// sha256("order-1001\x00paid"), its first 16 bytes: computed with
	// printf 'order-1001\0paid' | sha256sum
	assert.Equal(t, "evt_e4feeee24b284b5f6893fb21cc12b7c9", id)
	assert.Equal(t, id, webhook.DeliveryID("order-1001", reconcile.Paid))
	assert.NotEqual(t, id, webhook.DeliveryID("order-1001", reconcile.LatePaid))
	assert.NotEqual(t, id, webhook.DeliveryID("order-1002", reconcile.Paid))
	assert.NotEqual(t, webhook.DeliveryID("ab", "c"), webhook.DeliveryID("a", "bc"))
}
