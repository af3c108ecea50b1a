package webhook_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/webhook"
)

// checkpoint is a receiver on loopback that runs Receive on each request
// at a time and tolerance the test sets, and hands back what it returned.
type checkpoint struct {
	srv *httptest.Server

	mu        sync.Mutex
	now       time.Time
	tolerance time.Duration
	secret    []byte
	d         *webhook.Delivery
	err       error
}

func newCheckpoint(t *testing.T) *checkpoint {
	cp := &checkpoint{now: t0, tolerance: webhook.DefaultTolerance, secret: secret}
	cp.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cp.mu.Lock()
		defer cp.mu.Unlock()
		cp.d, cp.err = webhook.ReceiveAt(r, cp.secret, cp.tolerance, cp.now)
		if cp.err != nil {
			http.Error(w, "bad delivery", http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(cp.srv.Close)
	return cp
}

// post sends body with the SignatureHeader values given (none, one or
// several); a chunked body has no Content-Length. It returns what
// Receive returned.
func (cp *checkpoint) post(t *testing.T, headers []string, body []byte, chunked bool) (*webhook.Delivery, error) {
	t.Helper()
	var rd io.Reader = bytes.NewReader(body)
	if chunked {
		rd = io.MultiReader(rd) // a length the client does not know
	}
	req, err := http.NewRequestWithContext(boundedCtx(t), http.MethodPost, cp.srv.URL, rd)
	require.NoError(t, err)
	for _, h := range headers {
		req.Header.Add(webhook.SignatureHeader, h)
	}
	res, err := cp.srv.Client().Do(req)
	require.NoError(t, err)
	res.Body.Close()
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.err == nil {
		assert.Equal(t, http.StatusNoContent, res.StatusCode)
	}
	return cp.d, cp.err
}

// sampleDelivery is a delivery as Sender makes one.
func sampleDelivery() webhook.Delivery {
	return webhook.Delivery{
		ID: webhook.DeliveryID("order-1001", reconcile.Paid), OrderID: "order-1001", Result: reconcile.Paid,
		Expected: 49900, Paid: 49900, UTR: "412345678901", At: t0.Add(2*time.Minute + 10*time.Second),
	}
}

func sampleBody(t *testing.T) []byte {
	b, err := sampleDelivery().MarshalJSON()
	require.NoError(t, err)
	return b
}

// TestReceiveAcceptsAndRefuses sends good and bad deliveries through a
// real loopback server: a genuine one, and a rotated secret's, are
// accepted; tampered, stale, oversized, unsigned, wrong-secret and
// malformed ones are refused with their error, and nothing is decoded.
func TestReceiveAcceptsAndRefuses(t *testing.T) {
	cp := newCheckpoint(t)
	body := sampleBody(t)
	old := []byte("whsec_previous_secret")
	signed := webhook.Sign(t0, body, secret)
	tampered := bytes.Replace(body, []byte("49900"), []byte("49901"), 1)
	big := func(n int) []byte { return bytes.Repeat([]byte("x"), n) }
	cases := []struct {
		name    string
		headers []string
		body    []byte
		chunked bool
		secret  []byte
		now     time.Time
		want    error // nil: accepted
	}{
		{"genuine", []string{signed}, body, false, secret, t0, nil},
		{"genuine, chunked", []string{signed}, body, true, secret, t0, nil},
		{"rotating: receiver holds the new secret", []string{webhook.Sign(t0, body, secret, old)}, body, false, secret, t0, nil},
		{"rotating: receiver holds the old secret", []string{webhook.Sign(t0, body, secret, old)}, body, false, old, t0, nil},
		{"a later scheme's item is skipped", []string{signed + ",v2=zz"}, body, false, secret, t0, nil},
		{"tampered body", []string{signed}, tampered, false, secret, t0, webhook.ErrBadSignature},
		{"wrong secret", []string{webhook.Sign(t0, body, []byte("whsec_someone_else"))}, body, false, secret, t0, webhook.ErrBadSignature},
		{"stale", []string{signed}, body, false, secret, t0.Add(webhook.DefaultTolerance + time.Second), webhook.ErrTooOld},
		{"from the future", []string{signed}, body, false, secret, t0.Add(-webhook.DefaultTolerance - time.Second), webhook.ErrTooOld},
		{"unsigned", nil, body, false, secret, t0, webhook.ErrNoSignature},
		{"no v1", []string{fmt.Sprintf("t=%d", t0.Unix())}, body, false, secret, t0, webhook.ErrNoSignature},
		{"header twice", []string{signed, signed}, body, false, secret, t0, webhook.ErrMalformedSignature},
		{"t missing", []string{signed[strings.Index(signed, ",")+1:]}, body, false, secret, t0, webhook.ErrMalformedSignature},
		{"oversized", []string{webhook.Sign(t0, big(webhook.MaxBody+1), secret)}, big(webhook.MaxBody + 1), false, secret, t0, webhook.ErrTooLarge},
		{"oversized, chunked", []string{webhook.Sign(t0, big(webhook.MaxBody+1), secret)}, big(webhook.MaxBody + 1), true, secret, t0, webhook.ErrTooLarge},
		// 64 KiB exactly is read whole and verified: only then found not a delivery.
		{"64 KiB", []string{webhook.Sign(t0, big(webhook.MaxBody), secret)}, big(webhook.MaxBody), false, secret, t0, webhook.ErrBadDelivery},
		{"64 KiB, chunked", []string{webhook.Sign(t0, big(webhook.MaxBody), secret)}, big(webhook.MaxBody), true, secret, t0, webhook.ErrBadDelivery},
		{"signed, not a delivery", []string{webhook.Sign(t0, []byte(`{"id":"x"}`), secret)}, []byte(`{"id":"x"}`), false, secret, t0, webhook.ErrBadDelivery},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cp.mu.Lock()
			cp.now, cp.secret = c.now, c.secret
			cp.mu.Unlock()
			d, err := cp.post(t, c.headers, c.body, c.chunked)
			if c.want == nil {
				require.NoError(t, err)
				assert.Equal(t, sampleDelivery().ID, d.ID)
				assert.True(t, sampleDelivery().At.Equal(d.At))
				return
			}
			assert.ErrorIs(t, err, c.want)
			assert.Nil(t, d)
			assert.NotContains(t, err.Error(), string(c.secret))
		})
	}
}

// TestReceiveTolerance: a delivery exactly the tolerance old, or ahead,
// is accepted; a second more is refused, either way.
func TestReceiveTolerance(t *testing.T) {
	cp := newCheckpoint(t)
	body := sampleBody(t)
	signed := webhook.Sign(t0, body, secret)
	for _, tol := range []time.Duration{time.Second, webhook.DefaultTolerance, time.Hour} {
		for _, c := range []struct {
			offset time.Duration
			ok     bool
		}{
			{0, true}, {tol, true}, {-tol, true},
			{tol + time.Second, false}, {-tol - time.Second, false},
			{tol + time.Millisecond, false}, {-tol - time.Millisecond, false},
		} {
			cp.mu.Lock()
			cp.now, cp.tolerance = t0.Add(c.offset), tol
			cp.mu.Unlock()
			_, err := cp.post(t, []string{signed}, body, false)
			if c.ok {
				assert.NoError(t, err, "tolerance %v, now %v", tol, c.offset)
			} else {
				assert.ErrorIs(t, err, webhook.ErrTooOld, "tolerance %v, now %v", tol, c.offset)
			}
		}
	}
}

// TestReceiveRefusesItsOwnMisuse: an empty secret, a tolerance that is not
// positive and a request with no body are the receiver's own faults, none
// of the sender's errors.
func TestReceiveRefusesItsOwnMisuse(t *testing.T) {
	body := sampleBody(t)
	req := func() *http.Request {
		r, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/", bytes.NewReader(body))
		require.NoError(t, err)
		r.Header.Set(webhook.SignatureHeader, webhook.Sign(t0, body, secret))
		return r
	}
	d, err := webhook.ReceiveAt(req(), secret, time.Nanosecond, t0)
	require.NoError(t, err, "a nanosecond is a tolerance")
	assert.Equal(t, "order-1001", d.OrderID)
	noBody := req()
	noBody.Body = nil
	for name, call := range map[string]func() (*webhook.Delivery, error){
		"empty secret":   func() (*webhook.Delivery, error) { return webhook.ReceiveAt(req(), nil, time.Minute, t0) },
		"zero tolerance": func() (*webhook.Delivery, error) { return webhook.ReceiveAt(req(), secret, 0, t0) },
		"negative":       func() (*webhook.Delivery, error) { return webhook.ReceiveAt(req(), secret, -time.Minute, t0) },
		"nil request":    func() (*webhook.Delivery, error) { return webhook.ReceiveAt(nil, secret, time.Minute, t0) },
		"no body":        func() (*webhook.Delivery, error) { return webhook.ReceiveAt(noBody, secret, time.Minute, t0) },
		"wall clock":     func() (*webhook.Delivery, error) { return webhook.Receive(req(), secret, time.Minute) },
	} {
		d, err := call()
		require.Error(t, err, name)
		assert.Nil(t, d, name)
		if name == "wall clock" { // t0 is long ago
			assert.ErrorIs(t, err, webhook.ErrTooOld)
			continue
		}
		for _, s := range []error{webhook.ErrNoSignature, webhook.ErrMalformedSignature, webhook.ErrBadSignature,
			webhook.ErrTooOld, webhook.ErrTooLarge, webhook.ErrBadDelivery} {
			assert.NotErrorIs(t, err, s, name)
		}
	}
	broken := req()
	broken.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body[:10]), errReader{}))
	_, err = webhook.ReceiveAt(broken, secret, time.Minute, t0)
	assert.ErrorContains(t, err, "reading the body")
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

// TestParseSignature: the header's grammar, at each of its limits.
func TestParseSignature(t *testing.T) {
	mac := strings.Repeat("ab", 32)
	v1s := func(n int) string { return strings.Repeat(",v1="+mac, n) }
	cases := []struct {
		header string
		t      int64
		v1s    int
		want   error
	}{
		{"t=1772359330" + v1s(1), 1772359330, 1, nil},
		{"v1=" + mac + ",t=5", 5, 1, nil},
		{"t=0" + v1s(1), 0, 1, nil},
		{"t=9" + v1s(1), 9, 1, nil},
		{"t=0123456789" + v1s(1), 123456789, 1, nil},
		{"t=999999999999" + v1s(1), 999999999999, 1, nil},
		{"t=1000000000000" + v1s(1), 0, 0, webhook.ErrMalformedSignature},
		{"t=1" + v1s(8), 1, 8, nil},
		{"t=1" + v1s(15), 1, 15, nil}, // 1024 bytes hold no more
		{"t=1,v1=" + strings.ToUpper(mac[:32]) + mac[32:], 1, 1, nil},
		{"t=1,v1=" + strings.ToUpper(mac), 1, 1, nil},
		{"t=1,v0=zz,v2=" + v1s(1)[1:], 0, 0, webhook.ErrNoSignature},
		{"t=1", 0, 0, webhook.ErrNoSignature},
		{"", 0, 0, webhook.ErrMalformedSignature},
		{v1s(1)[1:], 0, 0, webhook.ErrMalformedSignature},
		{"t=1,t=1" + v1s(1), 0, 0, webhook.ErrMalformedSignature},
		{"t=" + v1s(1), 0, 0, webhook.ErrMalformedSignature},
		{"t=-1" + v1s(1), 0, 0, webhook.ErrMalformedSignature},
		{"t=+1" + v1s(1), 0, 0, webhook.ErrMalformedSignature},
		{"t= 1" + v1s(1), 0, 0, webhook.ErrMalformedSignature},
		{"t=1/" + v1s(1), 0, 0, webhook.ErrMalformedSignature},
		{"t=1:" + v1s(1), 0, 0, webhook.ErrMalformedSignature},
		{"t=1a" + v1s(1), 0, 0, webhook.ErrMalformedSignature},
		{"t=1,v1=" + mac[2:], 0, 0, webhook.ErrMalformedSignature},
		{"t=1,v1=" + mac + "ab", 0, 0, webhook.ErrMalformedSignature},
		{"t=1,v1=" + mac[1:] + "g", 0, 0, webhook.ErrMalformedSignature},
		{"t=1,v1", 0, 0, webhook.ErrMalformedSignature},
		{"t=1" + v1s(1) + ",", 1, 1, nil},
		{",,t=1,," + v1s(1)[1:] + ",,", 1, 1, nil},
		{"t=1, v1=" + mac, 1, 1, nil},
		{" \tt=1 ,\tv1=" + mac + "\t ,  ", 1, 1, nil},
		{"t=1,v1= " + mac, 0, 0, webhook.ErrMalformedSignature},
		{"t=1,v1 =" + mac, 0, 0, webhook.ErrNoSignature}, // "v1 " is another key
		{"t =1" + v1s(1), 0, 0, webhook.ErrMalformedSignature},
		{"t=1\n" + v1s(1), 0, 0, webhook.ErrMalformedSignature}, // only spaces and tabs are trimmed
		{" \t ", 0, 0, webhook.ErrMalformedSignature},
		{"t=1" + v1s(1) + ",x=" + strings.Repeat("y", 1024-len("t=1"+v1s(1)+",x=")), 1, 1, nil},
		{"t=1" + v1s(1) + ",x=" + strings.Repeat("y", 1025-len("t=1"+v1s(1)+",x=")), 0, 0, webhook.ErrMalformedSignature},
	}
	for _, c := range cases {
		tt, n, err := webhook.ParseSignature(c.header)
		if c.want != nil {
			assert.ErrorIs(t, err, c.want, "%q", c.header)
			continue
		}
		if assert.NoError(t, err, "%q", c.header) {
			assert.Equal(t, c.t, tt, "%q", c.header)
			assert.Equal(t, c.v1s, n, "%q", c.header)
		}
	}
}

// TestParseSignatureSaysWhy: each refusal names the part that was wrong.
func TestParseSignatureSaysWhy(t *testing.T) {
	mac := strings.Repeat("ab", 32)
	for h, want := range map[string]string{
		"t=1,v1=ab":               "webhook: malformed signature header: v1 is not 64 hex digits",
		"t=1a,v1=" + mac:          "webhook: malformed signature header: t is not 1 to 12 digits",
		"t=1,t=1,v1=" + mac:       "webhook: malformed signature header: t appears twice",
		"v1=" + mac:               "webhook: malformed signature header: t is missing",
		"t=1,v1":                  "webhook: malformed signature header: an item is not key=value",
		"t=1":                     "webhook: delivery not signed: Upicollect-Signature has no v1 value",
		strings.Repeat("x", 1025): "webhook: malformed signature header: longer than 1024 bytes",
	} {
		_, _, err := webhook.ParseSignature(h)
		assert.EqualError(t, err, want)
	}
}

// TestSignature pins the signing rule: HMAC-SHA256 of "<t>.<body>", in
// lower-case hex, one v1 per secret in order.
func TestSignature(t *testing.T) {
	h := webhook.Sign(time.Unix(1772359330, 0), []byte(`{"a":1}`), []byte("k1"), []byte("k2"))
	parts := strings.Split(h, ",")
	require.Len(t, parts, 3)
	assert.Equal(t, "t=1772359330", parts[0])
	// Computed independently: printf '1772359330.{"a":1}' | openssl dgst -sha256 -hmac k1
	assert.Equal(t, "v1=4e216edeac5f1ab2bc38cbdfafdf210e65daabb1cf3772f2f9eacebfbdc20ab9", parts[1])
	assert.Equal(t, "v1=9c86bf3493fb3b62248aff410d9ad385d2c55f5583365af4a8c4bdb5dd5e0481", parts[2])
}
