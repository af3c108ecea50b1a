package root

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdtest"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/sandbox"
)

type result struct {
	stdout, stderr string
	code           int
}

// execute runs args in-process, as main does, with env as the whole
// environment; a cancelled run is one whose context ended before it
// started (as Ctrl-C would).
func execute(t *testing.T, env map[string]string, cancelled bool, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cmdtest.RunTimeout)
	defer cancel()
	run := ctx
	if cancelled {
		c, stop := context.WithCancel(ctx)
		stop()
		run = c
	}
	var stdout, stderr bytes.Buffer
	code := Execute(cmdutil.New(run, strings.NewReader(""), &stdout, &stderr, func(k string) string { return env[k] }), args)
	require.NoError(t, ctx.Err(), "run %v did not end within %s", args, cmdtest.RunTimeout)
	return result{stdout.String(), stderr.String(), code}
}

// intentArgs creates a payment intent with order ID id; extra flags
// follow.
func intentArgs(id string, extra ...string) []string {
	args := append(append([]string{"intent", "--order-id", id}, cmdtest.Customer...), "--redirect-url", "https://shop.example/thanks")
	return append(args, extra...)
}

// TestExecute: every way a run ends, its exit code, and the one report of
// its failure: on stderr, with the usage hint for usage errors only, or as
// a JSON document on stdout when the command's --json is set.
func TestExecute(t *testing.T) {
	s := sandbox.Start(t)
	env := cmdtest.SandboxEnv(s)
	created := execute(t, env, false, intentArgs("root-fail")...)
	require.Equal(t, cmdutil.ExitOK, created.code, created.stderr)
	require.NoError(t, s.Settle("root-fail", upicollect.TxnFail, time.Time{}))

	tests := []struct {
		name      string
		env       map[string]string
		cancelled bool
		args      []string
		code      int
		stdout    string // exact; "*" for anything not empty
		stderr    string // exact
	}{
		{name: "no arguments", env: env, args: nil, code: cmdutil.ExitUsage, stderr: "*"},
		{name: "success", env: env, args: []string{"version"}, code: cmdutil.ExitOK, stdout: "*"},
		{name: "unknown command", env: env, args: []string{"frobnicate"}, code: cmdutil.ExitUsage,
			stderr: "upicollect: unknown command \"frobnicate\" for \"upicollect\"\nRun 'upicollect --help' for usage.\n"},
		{name: "command's usage error", env: env, args: []string{"status"}, code: cmdutil.ExitUsage,
			stderr: "upicollect: missing ORDER_ID\nRun 'upicollect status --help' for usage.\n"},
		{name: "validation names the flag, no usage hint", env: env,
			args: append(intentArgs("root-bad"), "--mobile", "12"), code: cmdutil.ExitUsage,
			stderr: "upicollect: invalid parameters:\n  --mobile: must be a 10-digit mobile number\n"},
		{name: "refused", env: env, args: intentArgs("root-fail"), code: cmdutil.ExitRefused,
			stderr: "upicollect: createPaymentIntent: HTTP 409: Order ID already exists\n"},
		{name: "silent exit", env: env, args: []string{"status", "root-fail"}, code: cmdutil.ExitPaymentFailed,
			stdout: "*", stderr: ""},
		{name: "interrupted", env: env, cancelled: true, args: []string{"status", "root-fail"}, code: cmdutil.ExitInterrupted,
			stderr: "upicollect: interrupted: checkPaymentStatus: context canceled\n"},
		{name: "json error", env: nil, args: []string{"status", "X", "--json"}, code: cmdutil.ExitUsage,
			stdout: `{"error":{"kind":"usage","message":"missing UPICOLLECT_BASE_URL or --base-url, UPICOLLECT_MID or --mid, ` +
				`UPICOLLECT_PUBLIC_KEY or --public-key, UPICOLLECT_SECRET_KEY or --secret-file (see 'upicollect help environment')"}}` + "\n"},
		{name: "json set after a flag's value --", env: nil, args: []string{"status", "--mid", "--", "--json", "X"}, code: cmdutil.ExitUsage,
			stdout: `{"error":{"kind":"usage","message":"missing UPICOLLECT_BASE_URL or --base-url, ` +
				`UPICOLLECT_PUBLIC_KEY or --public-key, UPICOLLECT_SECRET_KEY or --secret-file (see 'upicollect help environment')"}}` + "\n"},
		{name: "json=false", env: nil, args: []string{"status", "X", "--json=false"}, code: cmdutil.ExitUsage,
			stderr: "upicollect: missing UPICOLLECT_BASE_URL or --base-url, UPICOLLECT_MID or --mid, UPICOLLECT_PUBLIC_KEY or --public-key, " +
				"UPICOLLECT_SECRET_KEY or --secret-file (see 'upicollect help environment')\nRun 'upicollect status --help' for usage.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := execute(t, tt.env, tt.cancelled, tt.args...)
			assert.Equal(t, tt.code, r.code, "stderr: %s", r.stderr)
			switch tt.stdout {
			case "*":
				assert.NotEmpty(t, r.stdout)
			default:
				assert.Equal(t, tt.stdout, r.stdout)
			}
			switch tt.stderr {
			case "*":
				assert.NotEmpty(t, r.stderr)
			default:
				assert.Equal(t, tt.stderr, r.stderr)
			}
		})
	}
}

// TestHelpShowsPlainBoolFlags: a boolean flag shows as "--json" in help
// and usage, its own and cobra's --help alike, and still parses as one.
func TestHelpShowsPlainBoolFlags(t *testing.T) {
	r := execute(t, nil, false, "version", "--help")
	require.Equal(t, cmdutil.ExitOK, r.code)
	assert.Contains(t, r.stdout, "\nFlags:\n  -h, --help   help for version\n      --json   print one JSON document on stdout\n")
	assert.NotContains(t, r.stdout, "[=")

	r = execute(t, nil, false, "version", "--json", "--help")
	require.Equal(t, cmdutil.ExitOK, r.code)
	assert.Contains(t, r.stdout, "      --json   print one JSON document on stdout\n")

	r = execute(t, nil, false, "status", "--help")
	require.Equal(t, cmdutil.ExitOK, r.code)
	assert.Contains(t, r.stdout, "      --json ")
	assert.Contains(t, r.stdout, "      --mid ID ", "a string flag keeps its value's name")
	assert.NotContains(t, r.stdout, "[=")
}
