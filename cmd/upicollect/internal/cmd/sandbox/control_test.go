package sandbox

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
)

// TestSandboxControlDefaultBase: without $UPICOLLECT_BASE_URL or
// --base-url the commands talk to the address `upicollect sandbox`
// listens on by default; --base-url wins over the environment.
func TestSandboxControlDefaultBase(t *testing.T) {
	env := map[string]string{}
	f := cmdutil.New(context.Background(), strings.NewReader(""), io.Discard, io.Discard, func(k string) string { return env[k] })
	cf := control{IO: f.IOStreams, Config: f.Config}
	base, err := cf.base()
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:8787", base)

	env[cmdutil.EnvBaseURL] = "http://127.0.0.1:9/"
	base, err = cf.base()
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:9", base, "trailing slash dropped")

	cf.BaseURL = "https://laptop.lan:8787"
	base, err = cf.base()
	require.NoError(t, err)
	assert.Equal(t, "https://laptop.lan:8787", base)
}
