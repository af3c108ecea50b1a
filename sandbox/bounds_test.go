package sandbox

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/internal/redact"
)

// TestPayAmountBounds pins the paid amount POST /sandbox/orders/{id}/pay
// takes: more than nothing and at most maxOrderPaise (100000 rupees),
// the same bounds an order's own amount has.
func TestPayAmountBounds(t *testing.T) {
	tests := []struct {
		amount string
		code   int
		paid   int64
	}{
		{"0", http.StatusBadRequest, 0},
		{"0.00", http.StatusBadRequest, 0},
		{"0.01", http.StatusOK, 1},
		{"100000", http.StatusOK, maxOrderPaise},
		{"100000.00", http.StatusOK, maxOrderPaise},
		{"100000.01", http.StatusBadRequest, 0},
	}
	for _, tt := range tests {
		t.Run(tt.amount, func(t *testing.T) {
			s := fixed(t)
			require.Equal(t, 200, call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "pay-1")).code)
			resp, err := s.HTTPClient().PostForm(s.URL()+ordersPath+"/pay-1/pay",
				url.Values{"result": {"SUCCESS"}, "amount": {tt.amount}})
			require.NoError(t, err)
			a := readAnswer(t, resp)
			require.Equal(t, tt.code, a.code, "body: %s", a.body)
			o, ok := s.Order("pay-1")
			require.True(t, ok)
			if tt.code != http.StatusOK {
				assert.Contains(t, string(a.body), ErrInvalidAmount.Error())
				assert.Equal(t, StatusPending, o.Status, "a refused payment changes nothing")
				return
			}
			assert.Equal(t, StatusSuccess, o.Status)
			assert.Equal(t, tt.paid, o.PaidPaise)
		})
	}
}

// TestFaultStatusBounds pins the statuses a fault may answer with: any
// three-digit HTTP status, 100 to 999, both ends included.
func TestFaultStatusBounds(t *testing.T) {
	for _, tt := range []struct {
		status int
		ok     bool
	}{{99, false}, {100, true}, {599, true}, {999, true}, {1000, false}} {
		f, err := ParseFault("status=" + strconv.Itoa(tt.status))
		if !tt.ok {
			assert.ErrorContains(t, err, "not an HTTP status", "status %d", tt.status)
			assert.ErrorContains(t, WithFault(Fault{Status: tt.status})(&config{}), "not an HTTP status")
			continue
		}
		require.NoError(t, err, "status %d", tt.status)
		assert.Equal(t, tt.status, f.Status)
		assert.NoError(t, WithFault(Fault{Status: tt.status})(&config{}), "status %d", tt.status)
	}
}

// TestFaultHugeBodyHeaders pins the headers of a huge-body answer: JSON
// unless the fault's Header names another Content-Type, status 200 unless
// the fault gives one, and the announced length.
func TestFaultHugeBodyHeaders(t *testing.T) {
	tests := []struct {
		name  string
		fault Fault
		ctype string
	}{
		{"default", Fault{HugeBody: 64}, "application/json"},
		{"fault's own", Fault{HugeBody: 64, Header: http.Header{"Content-Type": {"text/plain"}}}, "text/plain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fixed(t)
			s.InjectFault(tt.fault)
			a := call(t, s, OpCheckPaymentStatus, statusForm(s, "x"))
			assert.Equal(t, http.StatusOK, a.code)
			assert.Equal(t, tt.ctype, a.header.Get("Content-Type"))
			assert.Equal(t, "64", a.header.Get("Content-Length"))
			assert.Len(t, a.body, 64)
		})
	}
}

// TestFaultHugeBodyShorterThanItsFrame pins a huge body too short for
// the JSON frame ({"status":true,"pad":"…"}): the frame's first bytes,
// exactly as many as announced, on a healthy answer.
func TestFaultHugeBodyShorterThanItsFrame(t *testing.T) {
	const frame = `{"status":true,"pad":""}`
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, size := range []int{1, 20, 21, 22, 23} {
		s := fixed(t)
		s.InjectFault(Fault{HugeBody: int64(size)})
		resp, err := post(ctx, s, OpCheckPaymentStatus, statusForm(s, "x").Encode())
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err, "size %d: the body must arrive whole", size)
		assert.Equal(t, http.StatusOK, resp.StatusCode, "size %d", size)
		assert.Equal(t, frame[:size], string(body), "size %d", size)
	}
}

// TestWithIntentTTLMustBePositive pins that an intent lifetime of zero or
// less is refused: such an intent could never be paid.
func TestWithIntentTTLMustBePositive(t *testing.T) {
	for _, d := range []time.Duration{-time.Second, 0} {
		_, err := Listen("127.0.0.1:0", WithIntentTTL(d))
		assert.ErrorContains(t, err, "WithIntentTTL", "ttl %v", d)
	}
	s := fixed(t, WithIntentTTL(time.Nanosecond))
	assert.Equal(t, time.Nanosecond, s.cfg.intentTTL)
}

// TestDefaultTimeouts pins the documented defaults of Timeouts and that a
// server started without WithTimeouts uses them.
func TestDefaultTimeouts(t *testing.T) {
	assert.Equal(t, Timeouts{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Idle: 60 * time.Second}, DefaultTimeouts)
	s := fixed(t)
	assert.Equal(t, 10*time.Second, s.ts.Config.ReadHeaderTimeout)
	assert.Equal(t, 30*time.Second, s.ts.Config.ReadTimeout)
	assert.Equal(t, 60*time.Second, s.ts.Config.IdleTimeout)
}

// TestWithTimeoutsZeroFieldsKeepDefaults pins that each zero field of
// WithTimeouts takes its default while the others stand, that a zero
// Timeouts is the defaults, and that only a negative field is refused.
func TestWithTimeoutsZeroFieldsKeepDefaults(t *testing.T) {
	d := DefaultTimeouts
	tests := []struct {
		in, want Timeouts
	}{
		{Timeouts{}, d},
		{Timeouts{ReadHeader: time.Second}, Timeouts{ReadHeader: time.Second, Read: d.Read, Idle: d.Idle}},
		{Timeouts{Read: 2 * time.Second}, Timeouts{ReadHeader: d.ReadHeader, Read: 2 * time.Second, Idle: d.Idle}},
		{Timeouts{Idle: 3 * time.Second}, Timeouts{ReadHeader: d.ReadHeader, Read: d.Read, Idle: 3 * time.Second}},
		{Timeouts{ReadHeader: 1, Read: 2, Idle: 3}, Timeouts{ReadHeader: 1, Read: 2, Idle: 3}},
	}
	for _, tt := range tests {
		s, err := Listen("127.0.0.1:0", WithTimeouts(tt.in))
		require.NoError(t, err, "%+v", tt.in)
		got := Timeouts{ReadHeader: s.ts.Config.ReadHeaderTimeout, Read: s.ts.Config.ReadTimeout, Idle: s.ts.Config.IdleTimeout}
		s.Close()
		assert.Equal(t, tt.want, got, "%+v", tt.in)
	}
	for _, in := range []Timeouts{{ReadHeader: -1}, {Read: -1}, {Idle: -1}} {
		assert.Error(t, WithTimeouts(in)(&config{}), "%+v", in)
	}
}

// TestZeroSleepIsNeverCutShort pins that a wait of zero (a call without
// any latency) reports the full time passed even when the request's
// context has already ended: such a call is answered, not dropped.
func TestZeroSleepIsNeverCutShort(t *testing.T) {
	s := fixed(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 200 { // the select of a wrong version picks at random
		require.True(t, s.sleep(ctx, 0))
	}
	assert.False(t, s.sleep(ctx, time.Hour), "a real wait ends with ctx")
}

// TestValidUTR pins what a bank reference may be: letters and digits,
// at most 35 of them.
func TestValidUTR(t *testing.T) {
	tests := []struct {
		utr string
		ok  bool
	}{
		{"0123456789", true},
		{"AZaz09", true},
		{"Z", true}, {"a", true}, {"z", true}, {"A", true}, {"0", true}, {"9", true},
		{strings.Repeat("A", 35), true},
		{strings.Repeat("A", 36), false},
		{"/", false}, {":", false}, {"@", false}, {"[", false}, {"`", false}, {"{", false},
		{"AB-12", false}, {"AB 12", false}, {"é", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.ok, validUTR(tt.utr), "%q", tt.utr)
	}
	s := fixed(t)
	require.Equal(t, 200, call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "utr-1")).code)
	o, err := s.SettleWith("utr-1", Settlement{Result: StatusSuccess, UTR: strings.Repeat("z", 35)})
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("z", 35), o.UTR)
}

// TestOrderIDBounds pins the order_id the API takes: 1 to maxOrderIDLen
// characters, none of them space or control, the first included.
func TestOrderIDBounds(t *testing.T) {
	tests := []struct {
		id string
		ok bool
	}{
		{"a", true},
		{strings.Repeat("a", maxOrderIDLen), true},
		{strings.Repeat("a", maxOrderIDLen+1), false},
		{"", false},
		{" abc", false}, {"\tabc", false}, {"\x01abc", false},
		{"ab c", false}, {"abc\n", false},
	}
	for _, tt := range tests {
		p := checkField(OpCheckPaymentStatus, "order_id", tt.id, false)
		assert.Equal(t, tt.ok, p == "", "%q: %s", tt.id, p)
	}
}

// TestTypedPhoneTenDigits pins that ten digits are a mobile number as
// they stand, even when they begin with 0 or 91: only a longer number
// loses its 0 or 91 prefix.
func TestTypedPhoneTenDigits(t *testing.T) {
	for _, tt := range []struct {
		in string
		ok bool
	}{
		{"0987654321", true},
		{"9198765432", true},
		{"09876543210", true},
		{"919876543210", true},
		{"+91 98765 43210", true},
		{"098765432", false},
		{"91987654321", false},
	} {
		assert.Equal(t, tt.ok, checkTypedPhone(tt.in) == "", "%q", tt.in)
	}
	s := fixed(t)
	a := call(t, s, OpCreateOrderRequest, with(requestForm(s), "order_id", "ph-1", "redirect_url", "https://shop.example/done", "customer_mobile", "9198765432"))
	assert.Equal(t, 200, a.code, "body: %s", a.body)
}

// newTestLog is a request log with the given bounds, redacting "sk".
func newTestLog(maxBytes, maxCount int) *requestLog {
	return newRequestLog(maxBytes, maxCount, redact.New("pk", "sk"))
}

// logStatus records one status check in l.
func logStatus(l *requestLog) *RecordedRequest {
	r := httptest.NewRequest(http.MethodPost, "/v1/payments/checkPaymentStatus", nil)
	return l.add(r, map[string]string{"order_id": "o-1"}, t0)
}

// TestRequestLogByteBoundIsInclusive pins that the log keeps requests
// whose sizes add up to exactly its byte bound, drops the oldest only
// past it, and always keeps the latest even when it alone is over.
func TestRequestLogByteBoundIsInclusive(t *testing.T) {
	size := logStatus(newTestLog(1<<20, 0)).size
	l := newTestLog(3*size, 0)
	for range 3 {
		logStatus(l)
	}
	assert.Len(t, l.reqs, 3, "exactly the bound is kept")
	assert.Equal(t, 3*size, l.storedBytes())
	logStatus(l)
	assert.Len(t, l.reqs, 3, "one past it drops the oldest")

	tiny := newTestLog(1, 0)
	logStatus(tiny)
	require.Len(t, tiny.reqs, 1, "the latest is kept however large")
	logStatus(tiny)
	assert.Len(t, tiny.reqs, 1)
}

// TestRecordSize pins the estimate of a record's memory: a fixed 128
// bytes, its method, path and op, and each header and form value with its
// name and 16 bytes of overhead.
func TestRecordSize(t *testing.T) {
	rec := &RecordedRequest{
		Method: "POST", Path: "/v1/payments/x", Op: "x",
		Header: http.Header{"A": {"bc", "d"}},
		Form:   url.Values{"key": {"value"}},
	}
	want := 128 + 4 + 14 + 1 + (1 + 2 + 16) + (1 + 1 + 16) + (3 + 5 + 16)
	assert.Equal(t, want, recordSize(rec))
	assert.Equal(t, 128, recordSize(&RecordedRequest{}))
}

// TestRecordedFormCut pins how a recorded form is cut to maxRecordedForm
// bytes of names and values, in name order: a value that fits exactly is
// whole and not marked cut, a longer one is cut to the room left after its
// name, and a name with no room left after it ends the form.
func TestRecordedFormCut(t *testing.T) {
	l := newTestLog(1<<20, 0)
	tests := []struct {
		name   string
		fields map[string]string
		want   url.Values
		cut    bool
	}{
		{"fits exactly",
			map[string]string{"a": strings.Repeat("v", maxRecordedForm-1)},
			url.Values{"a": {strings.Repeat("v", maxRecordedForm-1)}}, false},
		{"one over",
			map[string]string{"note": strings.Repeat("v", maxRecordedForm)},
			url.Values{"note": {strings.Repeat("v", maxRecordedForm-len("note"))}}, true},
		{"next name fills what is left",
			map[string]string{"a": strings.Repeat("v", maxRecordedForm-2), "b": "x"},
			url.Values{"a": {strings.Repeat("v", maxRecordedForm-2)}}, true},
		{"room for part of the next value",
			map[string]string{"a": strings.Repeat("v", 4000), "b": strings.Repeat("w", 200), "c": "x"},
			url.Values{"a": {strings.Repeat("v", 4000)}, "b": {strings.Repeat("w", maxRecordedForm-4000-2)}}, true},
		{"short fields all kept",
			map[string]string{"a": "1", "b": "22"},
			url.Values{"a": {"1"}, "b": {"22"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := l.form(nil, tt.fields)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.cut, cut)
		})
	}
}

// TestFaultHeaderOnEveryFault pins Fault.Header's promise: it is added to
// the answer of any fault, over the sandbox's own headers (Content-Type
// included), whatever else the fault scripts.
func TestFaultHeaderOnEveryFault(t *testing.T) {
	header := http.Header{"Content-Type": {"text/plain"}, "X-Fault": {"yes"}}
	for _, tt := range []struct {
		name  string
		fault Fault
		code  int
	}{
		{"status", Fault{Status: 503, Body: []byte("busy")}, 503},
		{"huge body", Fault{HugeBody: 64}, 200},
		{"slow body", Fault{SlowBody: time.Nanosecond}, 200},
		{"latency", Fault{Latency: time.Nanosecond}, 200},
		{"header only", Fault{}, 200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := fixed(t)
			tt.fault.Header = header
			s.InjectFault(tt.fault)
			a := call(t, s, OpCheckPaymentStatus, statusForm(s, "x"))
			assert.Equal(t, tt.code, a.code)
			assert.Equal(t, "text/plain", a.header.Get("Content-Type"))
			assert.Equal(t, "yes", a.header.Get("X-Fault"))
			assert.Equal(t, strconv.Itoa(len(a.body)), a.header.Get("Content-Length"), "the whole body, announced")
		})
	}
}
