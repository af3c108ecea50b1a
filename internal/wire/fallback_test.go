package wire

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecodeEnvelopeFallback pins the general decoder on bodies the
// single-pass one declines (an escaped string sends them there).
func TestDecodeEnvelopeFallback(t *testing.T) {
	_, fast := decodeEnvelopeFast([]byte(`{"status":false,"msg":"\u0041","message":"y"}`))
	require.False(t, fast, "the escape must force the general decoder")

	env, err := DecodeEnvelope([]byte(`{"status":false,"msg":"\u0041","message":"y"}`))
	require.NoError(t, err)
	assert.Equal(t, "A", env.Msg, "msg wins over message")
	assert.False(t, env.MessageKey)

	env, err = DecodeEnvelope([]byte(`{"status":false,"message":"\u0041uth required"}`))
	require.NoError(t, err)
	assert.Equal(t, "Auth required", env.Msg)
	assert.True(t, env.MessageKey)
}

func TestTextNumbers(t *testing.T) {
	for in, want := range map[string]string{`0`: "0", `9`: "9", `-1`: "-1", `"x"`: "x", `true`: "", `null`: "", `/`: "", `:`: ""} {
		assert.Equal(t, want, Text([]byte(in)), in)
	}
}
