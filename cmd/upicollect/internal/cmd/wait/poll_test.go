package wait

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/upicollect/upicollect-go/sandbox"
)

// TestWaitPollInterval: --poll-interval sets the pace of the polls and
// four times it bounds their backoff. Fifteen not-found answers come before
// the order's SUCCESS: at 5ms, backing off to at most 20ms, the sixteen
// polls take well under a second of delays, far within the 10s --timeout;
// at the SDK's own pace (2s at first), or backing off without that bound
// (each delay at least half of 5ms doubled per poll, up to 10s), the
// delays alone pass 25s and the wait times out first.
func TestWaitPollInterval(t *testing.T) {
	s, env := startSandbox(t)
	s.InjectFault(sandbox.Fault{Op: sandbox.OpCheckPaymentStatus, Times: 15, Status: http.StatusOK,
		Header: http.Header{"Content-Type": {"application/json"}},
		Body:   []byte(`{"status":false,"statusCode":200,"txnStatus":"PENDING","msg":"Transaction not found"}`)})
	r := runWait(t, context.Background(), env, nil, "o-paid", "--poll-interval", "5ms", "--timeout", "10s", "--json")
	assert.NoError(t, r.err)
	assert.Equal(t, `{"order_id":"o-paid","txn_status":"PENDING","not_found":true,"amount":null,"utr":"","message":"Transaction not found"}`+"\n"+
		jsonPaid, r.stdout.String(), "one line per change of status")
	assert.Equal(t, int64(16), s.Stats().Requests[sandbox.OpCheckPaymentStatus], "fifteen not-found answers, then SUCCESS")
}
