package cmdutil

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConfigFlagsBeatEnvironment: a flag's value wins over its variable;
// the variable fills in when the flag is unset.
func TestConfigFlagsBeatEnvironment(t *testing.T) {
	env := map[string]string{EnvMID: "env-mid", EnvPublicKey: "env-pk", EnvSecretKey: "env-sk", EnvBaseURL: "http://127.0.0.1:9"}
	f := New(context.Background(), strings.NewReader(""), io.Discard, io.Discard, func(k string) string { return env[k] })
	assert.Equal(t, "flag", f.Config.Pick("flag", EnvMID))
	assert.Equal(t, "env-mid", f.Config.Pick("", EnvMID))

	base, creds, err := f.Connection(&ConnFlags{CredFlags: CredFlags{MID: "flag-mid"}})
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:9", base)
	assert.Equal(t, "flag-mid", creds.MID)
	assert.Equal(t, "env-pk", creds.PublicKey)
	assert.Equal(t, "env-sk", creds.SecretKey)

	env = map[string]string{}
	_, _, err = f.Connection(&ConnFlags{})
	c, k := Classify(context.Background(), err)
	assert.Equal(t, ExitUsage, c, "missing settings are a usage error")
	assert.Equal(t, KindUsage, k)
	assert.Contains(t, err.Error(), "missing "+EnvBaseURL+" or --base-url")
}

// TestColorAndDrawing: NO_COLOR turns colour off; nothing is drawn on a
// stderr that is not a terminal.
func TestColorAndDrawing(t *testing.T) {
	env := map[string]string{}
	f := New(context.Background(), strings.NewReader(""), io.Discard, io.Discard, func(k string) string { return env[k] })
	assert.True(t, f.IOStreams.ColorEnabled())
	env["NO_COLOR"] = "1"
	assert.False(t, f.IOStreams.ColorEnabled())
	assert.False(t, f.IOStreams.CanDraw(false), "a buffer is no terminal")
	f.IOStreams.StderrTTY = true
	assert.True(t, f.IOStreams.CanDraw(false))
	assert.False(t, f.IOStreams.CanDraw(true), "never into --json output")
}
