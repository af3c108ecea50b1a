package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

// runTimeout bounds every wait of these tests.
const runTimeout = 30 * time.Second

// env is an environment of the given variables only.
func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

// credEnv is an environment with a merchant's credentials.
var credEnv = map[string]string{upicollect.EnvMID: "ENVMID", upicollect.EnvPublicKey: "pk_env", upicollect.EnvSecretKey: "sk_env_0123456789"}

// lockedBuffer is a bytes.Buffer that the server's goroutines may write
// while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// started is run in the background with its JSON line read.
type started struct {
	info   sandbox.Info
	stderr *lockedBuffer
	cancel context.CancelCauseFunc
	code   chan int
}

// start runs the command with args and getenv and reads its JSON line.
func start(t *testing.T, getenv func(string) string, args ...string) *started {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	pr, pw := io.Pipe()
	st := &started{stderr: &lockedBuffer{}, cancel: cancel, code: make(chan int, 1)}
	go func() {
		st.code <- run(ctx, args, getenv, pw, st.stderr)
		_ = pw.Close()
	}()
	t.Cleanup(func() { cancel(nil) })
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(pr).ReadString('\n')
		lines <- line
	}()
	select {
	case line := <-lines:
		require.NoError(t, json.Unmarshal([]byte(line), &st.info), "line %q, stderr: %s", line, st.stderr.String())
	case code := <-st.code:
		t.Fatalf("exited with %d: %s", code, st.stderr.String())
	case <-time.After(runTimeout):
		t.Fatal("no JSON line")
	}
	return st
}

// stop ends the run with cause and returns its exit code.
func (st *started) stop(t *testing.T, cause error) int {
	t.Helper()
	st.cancel(cause)
	select {
	case code := <-st.code:
		return code
	case <-time.After(runTimeout):
		t.Fatal("did not stop")
		return -1
	}
}

// TestRun serves the sandbox over loopback: the JSON line names it and
// the environment's credentials, the SDK pays through it, the clock moves,
// logs go to stderr, and a signal ends it with 128 plus its number.
func TestRun(t *testing.T) {
	st := start(t, env(credEnv), "--addr", "127.0.0.1:0")
	assert.Equal(t, sandbox.Info{BaseURL: st.info.BaseURL, MID: "ENVMID", PublicKey: "pk_env", SecretKey: "sk_env_0123456789"}, st.info)
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+$`, st.info.BaseURL)

	c, err := upicollect.NewClient(upicollect.Credentials{MID: st.info.MID, PublicKey: st.info.PublicKey, SecretKey: st.info.SecretKey},
		upicollect.WithBaseURL(st.info.BaseURL))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	in, err := c.CreatePaymentIntent(ctx, &upicollect.IntentParams{Amount: upicollect.Rupees(5), RedirectURL: "https://shop.example/done",
		Note: "n", Customer: upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"}})
	require.NoError(t, err)

	hc := &http.Client{Timeout: runTimeout}
	resp, err := hc.Get(st.info.BaseURL + "/sandbox/orders")
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(b), in.OrderID)

	resp, err = hc.Post(st.info.BaseURL+"/sandbox/clock", "application/json", strings.NewReader(`{"advance":"2h"}`))
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the clock is movable")

	assert.Equal(t, 143, st.stop(t, signalled{syscall.SIGTERM}))
	logs := st.stderr.String()
	assert.Contains(t, logs, `msg="sandbox serving"`)
	assert.Contains(t, logs, "msg=request")
	assert.Contains(t, logs, `msg="sandbox stopped"`)
	assert.NotContains(t, logs, "sk_env_0123456789")
}

// TestRunFlags: flags win over the environment, --secret-file over
// UPICOLLECT_SECRET_KEY; the sandbox's own flags take effect; without a
// signal the end of the run is exit 130.
func TestRunFlags(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secret, []byte("sk_file_0123456789\nignored\n"), 0o600))
	st := start(t, env(credEnv), "--addr", "127.0.0.1:0", "--quiet", "--mid", "FLAGMID", "-public-key", "pk_flag",
		"--secret-file", secret, "--variant", sandbox.VariantStatusInData, "--strict")
	assert.Equal(t, sandbox.Info{BaseURL: st.info.BaseURL, MID: "FLAGMID", PublicKey: "pk_flag", SecretKey: "sk_file_0123456789"}, st.info)

	resp, err := (&http.Client{Timeout: runTimeout}).Get(st.info.BaseURL + "/sandbox/variants")
	require.NoError(t, err)
	var list []sandbox.Variant
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
	_ = resp.Body.Close()
	var on []string
	for _, v := range list {
		if v.Enabled {
			on = append(on, v.Name)
		}
	}
	assert.Equal(t, []string{sandbox.VariantStatusInData}, on)

	assert.Equal(t, 130, st.stop(t, nil))
	assert.NotContains(t, st.stderr.String(), "msg=request", "--quiet logs no request")
	assert.Contains(t, st.stderr.String(), `msg="sandbox serving"`)
}

// TestRunRefusals: a usage error is exit 2 and a network's refusal exit
// 1, each one line on stderr that names it, and nothing on stdout; --help
// prints every flag and exits 0.
func TestRunRefusals(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	big := filepath.Join(t.TempDir(), "big")
	require.NoError(t, os.WriteFile(big, bytes.Repeat([]byte("k"), maxSecretFile+1), 0o600))

	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"unknown flag", []string{"--adr", "x"}, exitUsage, "flag provided but not defined: -adr"},
		{"argument", []string{"advance"}, exitUsage, `unexpected argument "advance"`},
		{"secret on the command line", []string{"--secret-key", "sk_cmdline"}, exitUsage, "--secret-key is not accepted"},
		{"missing secret file", []string{"--secret-file", filepath.Join(t.TempDir(), "none")}, exitUsage, "--secret-file: open"},
		{"huge secret file", []string{"--secret-file", big}, exitUsage, "not a secret key"},
		{"bad duration", []string{"--intent-ttl", "soon"}, exitUsage, `invalid value "soon" for flag -intent-ttl`},
		{"unknown variant", []string{"--variant", "nope"}, exitUsage, `unknown variant "nope"`},
		{"bad fault", []string{"--fault", "times=x"}, exitUsage, "times"},
		{"address in use", []string{"--addr", busy.Addr().String()}, exitFailure, "address already in use"},
		{"help", []string{"--help"}, 0, "Usage: upicollect-sandbox [flags]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			// Ended already: a sandbox that serves after all stops at once.
			ended, cancel := context.WithCancel(context.Background())
			cancel()
			code := run(ended, append([]string{"--addr", "127.0.0.1:0", "--quiet"}, tt.args...), env(credEnv), &stdout, &stderr)
			assert.Equal(t, tt.code, code, "stderr: %s", stderr.String())
			assert.Contains(t, stderr.String(), tt.stderr)
			assert.Empty(t, stdout.String())
			assert.NotContains(t, stderr.String(), "sk_cmdline")
			if tt.code == exitUsage {
				assert.Equal(t, 1, strings.Count(stderr.String(), "upicollect-sandbox: "), "reported once")
			}
		})
	}
}

// TestUsage: the help names every flag of `upicollect sandbox` but the
// --secret-key trap, with the defaults, and every variant.
func TestUsage(t *testing.T) {
	var stderr bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"-h"}, env(nil), io.Discard, &stderr))
	help := stderr.String()
	for _, f := range []string{"--addr HOST:PORT", "--public-url URL", "--variant NAME", "--fault SPEC", "--strict", "--intent-ttl duration",
		"--quiet", "--latency duration", "--rate-limit N", "--mid ID", "--public-key KEY", "--secret-file FILE",
		"(default 127.0.0.1:8787)", "(default 5m0s)"} {
		assert.Contains(t, help, f)
	}
	assert.NotContains(t, help, "--secret-key")
	for _, v := range sandbox.VariantNames() {
		assert.Contains(t, help, v)
	}
}

// rootModuleDeps are the modules the root module requires that a program
// may link: the root module's go.mod, minus its test-only requirements.
var rootModuleDeps = map[string]bool{
	"github.com/upicollect/upicollect-go": true,
	"github.com/google/go-querystring":    true,
	"golang.org/x/sync":                   true,
	"golang.org/x/time":                   true,
	"rsc.io/qr":                           true,
}

// TestDepsRootModuleOnly: the command builds nothing outside the root
// module and its own requirements: no command-line framework, no database
// driver, no nested module of this repository, no test code.
func TestDepsRootModuleOnly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*runTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "list", "-deps", "-f", "{{.ImportPath}} {{if .Module}}{{.Module.Path}}{{end}}", ".").Output()
	require.NoError(t, err)
	var pkgs []string
	modules := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, mod, _ := strings.Cut(line, " ")
		pkgs = append(pkgs, pkg)
		if mod != "" {
			modules[mod] = true
		}
	}
	require.Contains(t, pkgs, "github.com/upicollect/upicollect-go/sandbox", "the list is the command's")
	for mod := range modules {
		assert.True(t, rootModuleDeps[mod], "module %s is not the root's", mod)
	}
	for _, pkg := range pkgs {
		for _, banned := range []string{"github.com/spf13/", "github.com/jackc/", "modernc.org/", "upicollect-go/cmd/upicollect/", "upicollect-go/reconcile/sqlstore"} {
			assert.NotContains(t, pkg, banned)
		}
	}
	assert.NotContains(t, pkgs, "testing")
}
