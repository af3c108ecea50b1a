package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/sandbox"
)

// TestUnknownOrder: status says "not found" for an order the service does
// not know, not only PENDING; wait gives up on it after --unknown-timeout.
func TestUnknownOrder(t *testing.T) {
	s := sandbox.Start(t)
	env := sandboxEnv(s)

	r := cli(t, env, "", "status", "nobody-made-this")
	assert.Equal(t, exitOK, r.code, "an unknown order is not an error: %s", r.output())
	assert.Contains(t, r.stdout, "Status  PENDING, waiting for the payer (no payment started; a mistyped order id reads the same)")
	r = cli(t, env, "", "status", "nobody-made-this", "--json")
	assert.Contains(t, r.stdout, `"txn_status":"PENDING","not_found":true`)

	r = cli(t, env, "", "wait", "nobody-made-this", "--unknown-timeout", "1ms", "--poll-interval", "1ms")
	assert.Equal(t, exitRefused, r.code, r.output())
	assert.Contains(t, r.stderr, "upicollect: order nobody-made-this: not found: the service still does not know this order after 1ms (--unknown-timeout)")
	assert.NotContains(t, r.stderr, "WithUnknownOrderTimeout", "names nothing a CLI user can pass")
	r = cli(t, env, "", "wait", "nobody-made-this", "--unknown-timeout", "1ms", "--poll-interval", "1ms", "--json")
	assert.Equal(t, exitRefused, r.code, r.output())
	assert.Contains(t, r.stdout, `{"error":{"kind":"not_found","message":"order nobody-made-this: not found: `)

	require.Equal(t, exitOK, cli(t, env, "", intentArgs("known-1")...).code)
	_, err := s.Pay("known-1")
	require.NoError(t, err)
	r = cli(t, env, "", "wait", "known-1", "--unknown-timeout", "1ms", "--poll-interval", "1ms")
	assert.Equal(t, exitOK, r.code, "a known order is waited for as before: %s", r.output())
}
