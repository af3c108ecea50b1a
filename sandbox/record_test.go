package sandbox

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRequestsAreRecordedWithoutSecrets(t *testing.T) {
	s := fixed(t)
	creds := s.Credentials()
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte(creds.PublicKey+":"+creds.SecretKey))

	call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "r-1"))
	// JSON bodies are recorded as fields too.
	req := newReq(t, s, OpCheckPaymentStatus, "application/json", strings.NewReader(`{"mid":"`+creds.MID+`","order_id":"r-1"}`))
	req.Header.Set("Authorization", auth)
	send(t, s, req)
	// A careless client that leaks its secret into a field or header.
	req = newReq(t, s, OpCreatePaymentLink, "application/x-www-form-urlencoded",
		strings.NewReader("mid="+creds.MID+"&secret="+creds.SecretKey))
	req.Header.Set("Authorization", auth)
	req.Header.Set("X-Debug", "key="+creds.SecretKey)
	req.Header.Set("Proxy-Authorization", auth)
	send(t, s, req)
	resp, err := s.HTTPClient().Get(s.URL() + "/sandbox/pay/r-1?k=" + creds.SecretKey)
	require.NoError(t, err)
	resp.Body.Close()

	recs := s.Requests()
	require.Len(t, recs, 4)
	for _, r := range recs {
		dump := fmt.Sprintf("%#v", r)
		assert.NotContains(t, dump, creds.SecretKey)
		assert.NotContains(t, dump, auth)
		assert.NotContains(t, dump, auth[len("Basic "):])
	}
	assert.Equal(t, OpCreatePaymentIntent, recs[0].Op)
	assert.Equal(t, http.MethodPost, recs[0].Method)
	assert.Equal(t, "/v1/payments/createPaymentIntent", recs[0].Path)
	assert.Equal(t, "Basic [REDACTED]", recs[0].Header.Get("Authorization"))
	assert.Equal(t, "499", recs[0].Form.Get("amount"))
	assert.Equal(t, "r-1", recs[0].Form.Get("order_id"))
	assert.Equal(t, t0, recs[0].Time)
	assert.Equal(t, 200, recs[0].Status)

	assert.Equal(t, OpCheckPaymentStatus, recs[1].Op)
	assert.Equal(t, "r-1", recs[1].Form.Get("order_id"))

	assert.Equal(t, "[REDACTED]", recs[2].Form.Get("secret"))
	assert.Equal(t, "key=[REDACTED]", recs[2].Header.Get("X-Debug"))
	assert.Equal(t, "Basic [REDACTED]", recs[2].Header.Get("Proxy-Authorization"))
	assert.Equal(t, 400, recs[2].Status)

	assert.Equal(t, "", recs[3].Op)
	assert.Equal(t, "/sandbox/pay/r-1", recs[3].Path)
	assert.Equal(t, "[REDACTED]", recs[3].Form.Get("k"))

	// Snapshots are copies.
	recs[0].Header.Set("Authorization", "changed")
	recs[0].Form.Set("amount", "1")
	again := s.Requests()
	assert.Equal(t, "Basic [REDACTED]", again[0].Header.Get("Authorization"))
	assert.Equal(t, "499", again[0].Form.Get("amount"))

	s.Clear(RecordedRequests)
	assert.Empty(t, s.Requests())
}

func TestRequestLogLimit(t *testing.T) {
	s := fixed(t, WithRequestLog(3, 0))
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		call(t, s, OpCheckPaymentStatus, statusForm(s, id))
	}
	recs := s.Requests()
	require.Len(t, recs, 3)
	assert.Equal(t, "c", recs[0].Form.Get("order_id"))
	assert.Equal(t, "e", recs[2].Form.Get("order_id"))
}

// TestRequestLogShortSecrets runs the log's redaction with secrets that
// are a letter or a common word: what holds no credential is recorded
// unchanged, and the secret itself still goes.
func TestRequestLogShortSecrets(t *testing.T) {
	for _, secret := range []string{"a", "status", "9876543210"} {
		t.Run(secret, func(t *testing.T) {
			s := fixed(t, WithCredentials(credentials("", "pk", secret)))
			call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "a-status-1", "note", "statuses aside, ref 98765432101"))
			req := newReq(t, s, OpCreatePaymentLink, "application/x-www-form-urlencoded", strings.NewReader("leak="+secret))
			req.SetBasicAuth("pk", secret)
			send(t, s, req)
			recs := s.Requests()
			require.Len(t, recs, 2)
			assert.Equal(t, "/v1/payments/createPaymentIntent", recs[0].Path)
			assert.Equal(t, "a-status-1", recs[0].Form.Get("order_id"))
			assert.Equal(t, "statuses aside, ref 98765432101", recs[0].Form.Get("note"), "a short secret inside other words is not a credential")
			assert.Equal(t, "499", recs[0].Form.Get("amount"))
			assert.Equal(t, "[REDACTED]", recs[1].Form.Get("leak"))
			assert.Equal(t, "Basic [REDACTED]", recs[1].Header.Get("Authorization"))
		})
	}
}
