// Package cmdtest is the CLI's test kit: the fixtures the tests of the
// command packages under internal/cmd share (a Factory over buffers, a
// sandbox whose answers are the same on every run, the create flags and
// what they set, the connection flags, the head of a --dry-run print) and
// the shared bodies of the create commands' tests.
//
// It is imported only by _test.go files: the upicollect binary never links
// it, nor the testing package it imports.
package cmdtest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/sandbox"
)

// RunTimeout bounds every run, so that a hang fails the test.
const RunTimeout = 30 * time.Second

// Now is the sandbox time of StartSandbox: 10:00 UTC, 15:30 in India.
var Now = time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)

// Factory is the Factory of an in-process run with env as its whole
// environment and an empty standard input, its stdout and stderr in
// buffers that goroutines of the run may write while the test reads them.
func Factory(env map[string]string) (*cmdutil.Factory, *iostreams.SyncBuffer, *iostreams.SyncBuffer) {
	return FactoryStdin(strings.NewReader(""), env)
}

// FactoryStdin is Factory with stdin as the run's standard input.
func FactoryStdin(stdin io.Reader, env map[string]string) (*cmdutil.Factory, *iostreams.SyncBuffer, *iostreams.SyncBuffer) {
	stdout, stderr := &iostreams.SyncBuffer{}, &iostreams.SyncBuffer{}
	f := cmdutil.New(context.Background(), stdin, stdout, stderr, func(k string) string { return env[k] })
	return f, stdout, stderr
}

// StartSandbox is a sandbox whose answers are the same on every run: the
// fixed clock Now, seeded IDs and a fixed public URL in its links; and the
// environment that points a run at it.
func StartSandbox(t *testing.T) (*sandbox.Server, map[string]string) {
	t.Helper()
	s := sandbox.Start(t, sandbox.WithClock(func() time.Time { return Now }),
		sandbox.WithSeed(1), sandbox.WithPublicURL("https://sandbox.example"))
	return s, SandboxEnv(s)
}

// SandboxEnv is the environment of a run against s: its URL and its
// merchant's credentials under the cmdutil.Env* names.
func SandboxEnv(s *sandbox.Server) map[string]string {
	c := s.Credentials()
	return map[string]string{cmdutil.EnvBaseURL: s.URL(), cmdutil.EnvMID: c.MID,
		cmdutil.EnvPublicKey: c.PublicKey, cmdutil.EnvSecretKey: c.SecretKey}
}

// Customer are the create flags every create shares.
var Customer = []string{"--amount", "499", "--note", "Order 42", "--name", "Ravi Kumar",
	"--email", "ravi@example.com", "--mobile", "9876543210"}

// FullCreate is what Customer sets.
var FullCreate = cmdutil.CreateFlags{Amount: upicollect.Rupees(499), Note: "Order 42",
	Customer: upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"}}

// ConnFlags are flags that set every connection setting, with the secret
// key in a file of t's, and what they set.
func ConnFlags(t *testing.T) ([]string, cmdutil.ConnFlags) {
	t.Helper()
	secret := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secret, []byte("sk\n"), 0o600))
	return []string{"--base-url", "http://127.0.0.1:9", "--mid", "M", "--public-key", "P", "--secret-file", secret, "--dry-run"},
		cmdutil.ConnFlags{BaseURL: "http://127.0.0.1:9", DryRun: true,
			CredFlags: cmdutil.CredFlags{MID: "M", PublicKey: "P", SecretFile: secret}}
}

// DryRunHead is what --dry-run prints before the form of a POST to op.
func DryRunHead(base, op string) string {
	return "POST " + base + "/v1/payments/" + op + "\n" +
		"Accept: application/json\nAuthorization: Basic [REDACTED]\nContent-Type: application/x-www-form-urlencoded\n" +
		"User-Agent: upicollect-go/" + upicollect.Version + " (" + runtime.Version() + ") upicollect-cli/" + cmdutil.Version() + "\n\n"
}

// Execute runs cmd with args, cobra's usage and error printing silenced,
// in a context that ends RunTimeout from now or when t ends; it returns
// that context, which the run's options and cmdutil.Classify are checked
// against, and the run's error.
func Execute(t *testing.T, cmd *cobra.Command, args ...string) (context.Context, error) {
	t.Helper()
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	ctx, cancel := context.WithTimeout(context.Background(), RunTimeout)
	t.Cleanup(cancel)
	return ctx, cmd.ExecuteContext(ctx)
}

// ExecuteIn runs cmd with args in ctx, cobra's own output (usage, help,
// its print of the error) discarded: for runs whose context the test
// makes, ended or cancelled when it chooses.
func ExecuteIn(ctx context.Context, cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceUsage = true
	return cmd.ExecuteContext(ctx)
}
