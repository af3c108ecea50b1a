package main

import (
	"encoding/json"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/sandbox"
)

// checkoutService answers createOrderRequest as the vendor documents it
// (data.orderId, data.payment_url) and records the order ids it was sent.
func checkoutService(t *testing.T) (string, func() []string) {
	var (
		mu  sync.Mutex
		ids []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.NoError(t, r.ParseForm())
		assert.Equal(t, "/v1/payments/createOrderRequest", r.URL.Path)
		id := r.PostForm.Get("order_id")
		mu.Lock()
		ids = append(ids, id)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"status": true, "statusCode": 200, "msg": "Order created",
			"data": map[string]any{"orderId": id, "payment_url": "https://pay.example/checkout/" + id}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), ids...) }
}

func orderArgs(extra ...string) []string {
	return append(append([]string{"order", "--amount", "499", "--redirect-url", "https://shop.example/thanks"}, customer...), extra...)
}

// TestOrderSandbox: an order the SDK named is known to the service: its
// status can be checked by the printed id.
func TestOrderSandbox(t *testing.T) {
	s := sandbox.Start(t)
	env := sandboxEnv(s)
	r := cli(t, env, "", orderArgs("--json")...)
	require.Equal(t, exitOK, r.code, r.output())
	var o cmdutil.PayPageJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &o))
	require.NotEmpty(t, o.OrderID)
	assert.True(t, strings.HasPrefix(o.PaymentURL, s.URL()+"/"), o.PaymentURL)
	pay(t, s, o.OrderID, "SUCCESS", "999988887777")
	r = cli(t, env, "", "status", o.OrderID, "--json")
	require.Equal(t, exitOK, r.code, r.output())
	assert.Contains(t, r.stdout, `"txn_status":"SUCCESS"`)
}

// TestOrder: the hosted checkout prints the order to confirm and the page
// to send the payer to; without --order-id the SDK makes one, and it is
// the one printed.
func TestOrder(t *testing.T) {
	base, sent := checkoutService(t)
	env := []string{envBaseURL + "=" + base, envMID + "=m", envPublicKey + "=pk", envSecretKey + "=sk"}

	r := cli(t, env, "", orderArgs("--order-id", "cli-order-1", "--json")...)
	require.Equal(t, exitOK, r.code, r.output())
	assert.Equal(t, `{"order_id":"cli-order-1","payment_url":"https://pay.example/checkout/cli-order-1","message":"Order created"}`+"\n", r.stdout)

	r = cli(t, env, "", orderArgs()...)
	require.Equal(t, exitOK, r.code, r.output())
	ids := sent()
	require.Len(t, ids, 2)
	made := ids[1]
	assert.NotEmpty(t, made, "the SDK set an order id before sending")
	assert.Equal(t, "Order    "+made+"\nPay at   https://pay.example/checkout/"+made+"\nMessage  Order created\n", r.stdout)

	r = cli(t, env, "", orderArgs("--dry-run")...)
	require.Equal(t, exitOK, r.code, r.output())
	assert.True(t, strings.HasPrefix(r.stdout, "POST "+base+"/v1/payments/createOrderRequest\n"), r.stdout)
	assert.Contains(t, r.stdout, "Authorization: Basic [REDACTED]")
	assert.Len(t, sent(), 2, "--dry-run sends nothing")

	r = cli(t, env, "", "order", "--amount", "0", "--redirect-url", "ftp://x")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "--amount: ")
	assert.Contains(t, r.stderr, "--redirect-url: ")
}

// TestCreatesNameTheirOrder: without --order-id, intent and request print
// the order id the SDK made, and the service knows the order by it.
func TestCreatesNameTheirOrder(t *testing.T) {
	s := sandbox.Start(t)
	env := sandboxEnv(s)
	intent := append([]string{"intent", "--amount", "499", "--redirect-url", "https://shop.example/thanks", "--json"}, customer...)
	request := append([]string{"request", "--amount", "250", "--vpa", "ravi@okaxis", "--json"}, customer...)
	for _, args := range [][]string{intent, request} {
		r := cli(t, env, "", args...)
		require.Equal(t, exitOK, r.code, r.output())
		var got struct {
			OrderID string `json:"order_id"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
		require.NotEmpty(t, got.OrderID, "%s prints the order to check", args[0])
		pay(t, s, got.OrderID, "SUCCESS", "555566667777")
		st := cli(t, env, "", "status", got.OrderID, "--json")
		assert.Contains(t, st.stdout, `"txn_status":"SUCCESS"`, "%s: the order is known by the printed id", args[0])
	}
}
