package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/sandbox"
)

// TestWaitSaysWhyItFailed: a wait against a dead port ends with the last
// check's cause, not only "no status seen".
func TestWaitSaysWhyItFailed(t *testing.T) {
	env := withBase([]string{envMID + "=m", envPublicKey + "=pk", envSecretKey + "=sk"}, closedURL(t))
	r := cli(t, env, "", "wait", "x", "--timeout", "300ms", "--poll-interval", "1ms")
	assert.Equal(t, exitUnknown, r.code, r.output())
	assert.Contains(t, r.stderr, "upicollect: order x: no status seen; the last check failed: ")
	assert.Contains(t, r.stderr, "connection refused")
	assert.NotContains(t, r.stderr, "/v1/payments", "the request's URL is not repeated")
	r = cli(t, env, "", "wait", "x", "--timeout", "300ms", "--poll-interval", "1ms", "--json")
	assert.Equal(t, exitUnknown, r.code, r.output())
	assert.Contains(t, r.stdout, `{"error":{"kind":"timeout","message":"order x: no status seen; the last check failed: `)
}

// TestWaitAmount: with --amount, a SUCCESS for another amount exits 6 and
// says so; for the amount ordered, 0.
func TestWaitAmount(t *testing.T) {
	s := sandbox.Start(t)
	env := sandboxEnv(s)
	require.Equal(t, exitOK, cli(t, env, "", intentArgs("amount-1")...).code)
	pay(t, s, "amount-1", "SUCCESS", "121212121212")

	r := cli(t, env, "", "wait", "amount-1", "--amount", "499")
	assert.Equal(t, exitOK, r.code, r.output())

	r = cli(t, env, "", "wait", "amount-1", "--amount", "500.00")
	assert.Equal(t, exitPaymentFailed, r.code, r.output())
	assert.Contains(t, r.stdout, "Status   SUCCESS", "the status is shown")
	assert.Contains(t, r.stderr, "upicollect: order amount-1: paid 499.00, but --amount is 500.00: not paid as ordered")

	r = cli(t, env, "", "wait", "amount-1", "--amount", "500", "--json")
	assert.Equal(t, exitPaymentFailed, r.code, r.output())
	assert.Contains(t, r.stdout, `"txn_status":"SUCCESS"`)
	assert.Contains(t, r.stdout, `{"error":{"kind":"amount_mismatch","message":"order amount-1: paid 499.00`)
}
