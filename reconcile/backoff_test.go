package reconcile

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/upicollect/upicollect-go"
)

func TestBackoff(t *testing.T) {
	const s = 5 * time.Second
	for _, tc := range []struct {
		failures        int
		interval, limit time.Duration
		want            time.Duration
	}{
		{0, s, time.Minute, s},
		{1, s, time.Minute, s},
		{2, s, time.Minute, 2 * s},
		{3, s, time.Minute, 4 * s},
		{4, s, time.Minute, 8 * s},
		{5, s, time.Minute, time.Minute}, // 80 s capped
		{1000, s, time.Minute, time.Minute},
		{1000, s, DefaultMaxBackoff, DefaultMaxBackoff},
		{3, s, time.Second, s}, // never sooner than the interval
		{2, time.Minute, 90 * time.Second, 90 * time.Second},
	} {
		assert.Equal(t, tc.want, backoff(tc.failures, tc.interval, tc.limit), "%d failures, %v, cap %v", tc.failures, tc.interval, tc.limit)
	}
}

func TestRunWait(t *testing.T) {
	const limit = 5 * time.Second
	for _, tc := range []struct {
		next time.Time
		want time.Duration
	}{
		{time.Time{}, limit},
		{t0, time.Second}, // due now: not back to back
		{t0.Add(-time.Hour), time.Second},
		{t0.Add(time.Second), time.Second},
		{t0.Add(2 * time.Second), 2 * time.Second},
		{t0.Add(limit), limit},
		{t0.Add(time.Hour), limit},
	} {
		assert.Equal(t, tc.want, runWait(t0, tc.next, limit), "next %v", tc.next)
	}
}

func TestNamesOrder(t *testing.T) {
	for _, tc := range []struct {
		body string
		want bool
	}{
		{`{"status":true,"txnStatus":"SUCCESS","data":{"amount":"499.00","UTR":"1","order_id":"o-1"}}`, true},
		{`{"status":true,"data":{"order_id":"o-1","amount":200,"status":"SUCCESS"}}`, true},
		{`{"status":true,"data":{"orderId":"o-1","amount":200}}`, true},
		{`{"status":true,"data":{"order_id":12345,"amount":200}}`, true},
		{`{"status":true,"txnStatus":"SUCCESS","data":{"amount":"499.00","UTR":"1"}}`, false},
		{`{"status":true,"data":{"order_id":"","amount":1}}`, false},
		{`{"status":true,"data":{"order_id":null,"amount":1}}`, false},
		{`{"status":true,"data":{"order_id":{},"amount":1}}`, false},
		{`{"status":true,"data":"o-1"}`, false},
		{`not json`, false},
	} {
		st := &upicollect.PaymentStatus{OrderID: "o-1", TxnStatus: upicollect.TxnSuccess, Response: &upicollect.Response{Body: []byte(tc.body)}}
		assert.Equal(t, tc.want, namesOrder(st), tc.body)
	}
	assert.False(t, namesOrder(&upicollect.PaymentStatus{OrderID: "o-1"}), "no answer to read")
	assert.False(t, named(json.RawMessage(`true`)))
}
