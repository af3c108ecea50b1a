package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/root"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/sandbox"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// The upicollect binary, built on first use for the few tests that need a
// process of its own (signals). Every other test runs the commands
// in-process (see cli).
var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// coverDir, from CLI_COVERDIR, builds the binary with -cover and collects
// its coverage there (go tool covdata percent -i DIR).
var coverDir = os.Getenv("CLI_COVERDIR")

// binary returns the path of the upicollect binary, building it once.
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "upicollect-cli-test")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "upicollect")
		if runtime.GOOS == "windows" {
			binPath += ".exe"
		}
		build := []string{"build", "-o", binPath}
		if coverDir != "" {
			build = append(build, "-cover")
		}
		if out, err := exec.Command("go", append(build, ".")...).CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	require.NoError(t, binErr)
	return binPath
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// cliTimeout bounds every run of a command, so that a hang fails the test.
const cliTimeout = 60 * time.Second

type result struct {
	stdout, stderr string
	code           int
}

// output is everything the run printed.
func (r result) output() string { return r.stdout + "\n" + r.stderr }

// cleanEnv is the test process's environment without the variables the CLI
// reads, so that the developer's own settings never leak into a test.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "UPICOLLECT_") || strings.HasPrefix(kv, "NO_COLOR=") || strings.HasPrefix(kv, "GOCOVERDIR=") {
			continue
		}
		env = append(env, kv)
	}
	if coverDir != "" {
		env = append(env, "GOCOVERDIR="+coverDir)
	}
	return env
}

// envFunc looks variables up in env ("NAME=value", the last one wins) and
// nowhere else: an in-process run sees only what the test gives it.
func envFunc(env []string) func(string) string {
	return func(name string) string {
		v := ""
		for _, kv := range env {
			if k, val, ok := strings.Cut(kv, "="); ok && k == name {
				v = val
			}
		}
		return v
	}
}

// sandboxEnv points the CLI at s.
func sandboxEnv(s *sandbox.Server) []string {
	c := s.Credentials()
	return []string{
		envBaseURL + "=" + s.URL(), envMID + "=" + c.MID,
		envPublicKey + "=" + c.PublicKey, envSecretKey + "=" + c.SecretKey,
	}
}

// runCLI runs args in-process, as main would, with env as the whole
// environment.
func runCLI(ctx context.Context, env []string, stdin io.Reader, stdout, stderr io.Writer, args ...string) int {
	return root.Execute(newFactory(ctx, stdin, envFunc(env), stdout, stderr), args)
}

// cli runs the command line args in-process with env as its environment
// and stdin as its standard input, bounded by cliTimeout.
func cli(t *testing.T, env []string, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	var stdout, stderr iostreams.SyncBuffer
	code := runCLI(ctx, env, strings.NewReader(stdin), &stdout, &stderr, args...)
	require.NoError(t, ctx.Err(), "run %v did not end within %s", args, cliTimeout)
	return result{stdout.String(), stderr.String(), code}
}

// background is a command run in-process until its context ends, as a
// server or a sweeper runs until Ctrl-C.
type background struct {
	stdout *bufio.Reader
	stderr *iostreams.SyncBuffer
	rest   chan string // what stdout printed after interrupt
	cancel context.CancelFunc
	done   chan int
	pipe   *io.PipeReader
}

// runInBackground starts args in-process with env as its environment.
func runInBackground(env []string, stdin io.Reader, args ...string) *background {
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	b := &background{stdout: bufio.NewReader(outR), stderr: &iostreams.SyncBuffer{}, rest: make(chan string, 1),
		cancel: cancel, done: make(chan int, 1), pipe: outR}
	go func() {
		b.done <- runCLI(ctx, env, stdin, outW, b.stderr, args...)
		outW.Close()
	}()
	return b
}

// interrupt ends the run as Ctrl-C would and returns its exit code and
// what it printed on stdout that the test had not read; a run that does not
// end within cliTimeout fails t.
func (b *background) interrupt(t *testing.T) (int, string) {
	t.Helper()
	b.cancel()
	go func() { // the command may still print: read so it never blocks
		rest, _ := io.ReadAll(b.stdout)
		b.rest <- string(rest)
	}()
	select {
	case code := <-b.done:
		return code, <-b.rest
	case <-time.After(cliTimeout):
		b.pipe.Close()
		t.Fatalf("%s did not end within %s of its interruption", "the command", cliTimeout)
		return -1, ""
	}
}

// customer are the create flags every create needs.
var customer = []string{"--note", "Order 42", "--name", "Ravi Kumar", "--email", "ravi@example.com", "--mobile", "9876543210"}

func intentArgs(orderID string, extra ...string) []string {
	args := append([]string{"intent", "--amount", "499", "--redirect-url", "https://shop.example/thanks", "--order-id", orderID}, customer...)
	return append(args, extra...)
}

// pay settles an order through the sandbox's HTTP control surface, as the
// hosted page's buttons do.
func pay(t *testing.T, s *sandbox.Server, orderID, result, utr string) {
	t.Helper()
	form := url.Values{"result": {result}, "utr": {utr}}
	res, err := http.PostForm(s.URL()+"/sandbox/orders/"+url.PathEscape(orderID)+"/pay", form)
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", body)
}

// normaliser replaces what changes from run to run with placeholders.
type normaliser struct{ pairs []string }

var (
	reServiceOrderID = regexp.MustCompile(`/sandbox/pay/[^"\s/]+`)
	reTime           = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	reSDKVersion     = regexp.MustCompile(`upicollect-go/[^\s"]+`)
	reCLIVersion     = regexp.MustCompile(`upicollect-cli/[^\s"]+|"version":"[^"]+"`)
)

func newNormaliser(s *sandbox.Server) normaliser {
	n := normaliser{pairs: []string{runtime.Version(), "{{GO_VERSION}}", runtime.GOOS + "/" + runtime.GOARCH, "{{PLATFORM}}"}}
	if s != nil {
		c := s.Credentials()
		n.pairs = append(n.pairs, s.URL(), "{{BASE_URL}}", c.PublicKey, "{{PUBLIC_KEY}}")
		if c.MID != "" {
			n.pairs = append(n.pairs, "mid="+c.MID, "mid={{MID}}", `"mid":"`+c.MID+`"`, `"mid":"{{MID}}"`)
		}
	}
	return n
}

func (n normaliser) apply(s string) string {
	s = strings.NewReplacer(n.pairs...).Replace(s)
	// Order IDs the service makes are random; the tests' own start "cli-".
	s = reServiceOrderID.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, "/sandbox/pay/cli-") {
			return m
		}
		return "/sandbox/pay/{{SERVICE_ORDER_ID}}"
	})
	s = reTime.ReplaceAllString(s, "{{TIME}}")
	s = reSDKVersion.ReplaceAllString(s, "upicollect-go/{{VERSION}}")
	return reCLIVersion.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, `"version"`) {
			return `"version":"{{CLI_VERSION}}"`
		}
		return "upicollect-cli/{{CLI_VERSION}}"
	})
}

// golden compares got, normalised, with testdata/name; -update rewrites it.
func golden(t *testing.T, name string, n normaliser, got string) {
	t.Helper()
	got = n.apply(got)
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -run %s -update to create it", t.Name())
	assert.Equal(t, string(want), got, "golden file %s (go test -update rewrites it)", path)
}

// TestGoldenJSON runs every subcommand with --json against a sandbox and
// compares its output with the golden files.
func TestGoldenJSON(t *testing.T) {
	s := sandbox.Start(t)
	env := sandboxEnv(s)
	n := newNormaliser(s)
	ok := func(r result) result {
		t.Helper()
		require.Equal(t, exitOK, r.code, "%s", r.output())
		assert.Empty(t, r.stderr)
		return r
	}

	golden(t, "intent.json", n, ok(cli(t, env, "", intentArgs("cli-intent-1", "--json")...)).stdout)
	golden(t, "status_pending.json", n, ok(cli(t, env, "", "status", "cli-intent-1", "--json")).stdout)
	pay(t, s, "cli-intent-1", "SUCCESS", "123456789012")
	golden(t, "status_success.json", n, ok(cli(t, env, "", "status", "--json", "cli-intent-1")).stdout)
	golden(t, "wait_paid.jsonl", n, ok(cli(t, env, "", "wait", "cli-intent-1", "--json")).stdout)

	require.Equal(t, exitOK, cli(t, env, "", intentArgs("cli-intent-2")...).code)
	pay(t, s, "cli-intent-2", "REJECT", "")
	rejected := cli(t, env, "", "status", "cli-intent-2", "--json")
	assert.Equal(t, exitPaymentFailed, rejected.code, rejected.output())
	golden(t, "status_reject.json", n, rejected.stdout)
	rejected = cli(t, env, "", "wait", "cli-intent-2", "--json")
	assert.Equal(t, exitPaymentFailed, rejected.code, rejected.output())
	golden(t, "wait_reject.jsonl", n, rejected.stdout)

	req := append([]string{"request", "--amount", "250", "--vpa", "ravi@okaxis", "--order-id", "cli-request-1", "--json"}, customer...)
	golden(t, "request.json", n, ok(cli(t, env, "", req...)).stdout)
	link := append([]string{"link", "--amount", "100", "--json"}, customer...)
	golden(t, "link.json", n, ok(cli(t, env, "", link...)).stdout)
	golden(t, "order.json", n, ok(cli(t, env, "", orderArgs("--order-id", "cli-order-1", "--json")...)).stdout)
	golden(t, "version.json", n, ok(cli(t, nil, "", "version", "--json")).stdout)
	golden(t, "dry_run_status.json", n, ok(cli(t, env, "", "status", "cli-intent-1", "--dry-run", "--json")).stdout)
}

// TestGoldenHuman pins the default, human output of the creates, status
// and --dry-run.
func TestGoldenHuman(t *testing.T) {
	s := sandbox.Start(t)
	env := sandboxEnv(s)
	n := newNormaliser(s)
	r := cli(t, env, "", intentArgs("cli-human-1")...)
	require.Equal(t, exitOK, r.code, r.output())
	golden(t, "intent.txt", n, r.stdout)
	r = cli(t, env, "", "status", "cli-human-1")
	require.Equal(t, exitOK, r.code, r.output())
	golden(t, "status_pending.txt", n, r.stdout) // created seconds ago: waiting for the payer, no alarm
	pay(t, s, "cli-human-1", "SUCCESS", "123456789012")
	r = cli(t, env, "", "status", "cli-human-1")
	require.Equal(t, exitOK, r.code, r.output())
	golden(t, "status_success.txt", n, r.stdout)
	r = cli(t, env, "", append([]string{"request", "--amount", "250", "--vpa", "ravi@okaxis", "--order-id", "cli-human-2"}, customer...)...)
	require.Equal(t, exitOK, r.code, r.output())
	golden(t, "request.txt", n, r.stdout)
	r = cli(t, env, "", append([]string{"link", "--amount", "100"}, customer...)...)
	require.Equal(t, exitOK, r.code, r.output())
	golden(t, "link.txt", n, r.stdout)
	r = cli(t, env, "", orderArgs("--order-id", "cli-human-3")...)
	require.Equal(t, exitOK, r.code, r.output())
	golden(t, "order.txt", n, r.stdout)
	r = cli(t, nil, "", "version")
	require.Equal(t, exitOK, r.code, r.output())
	assert.Regexp(t, `^upicollect \S+ \(go\S+ \S+/\S+(, commit [0-9a-f]+(-dirty)?)?\)\n$`, r.stdout)
	r = cli(t, env, "", intentArgs("cli-dry-1", "--dry-run")...)
	require.Equal(t, exitOK, r.code, r.output())
	golden(t, "dry_run_intent.txt", n, r.stdout)
	r = cli(t, env, "", intentArgs("cli-dry-1", "--json")...)
	assert.Equal(t, exitOK, r.code, "--dry-run created nothing, so the order ID is still free: %s", r.output())
}

// TestGoldenErrors pins the JSON error documents.
func TestGoldenErrors(t *testing.T) {
	s := sandbox.Start(t)
	env := sandboxEnv(s)
	n := newNormaliser(s)
	tests := []struct {
		golden string
		env    []string
		args   []string
		code   int
	}{
		{"error_usage.json", env, []string{"status", "--json"}, exitUsage},
		{"error_validation.json", env, []string{"intent", "--amount", "0", "--email", "nope", "--json"}, exitUsage},
		{"error_unauthorized.json", append(env, envSecretKey+"=wrong-secret"), []string{"status", "ORD1", "--json"}, exitUnauthorized},
		{"error_timeout.json", env, []string{"wait", "never-paid", "--timeout", "1ns", "--json"}, exitUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			r := cli(t, tt.env, "", tt.args...)
			assert.Equal(t, tt.code, r.code, r.output())
			assert.Empty(t, r.stderr)
			golden(t, tt.golden, n, r.stdout)
		})
	}
}

// TestNormaliser replaces only the volatile parts: a version ends at
// white space, so the body after a User-Agent line stays.
func TestNormaliser(t *testing.T) {
	n := newNormaliser(nil)
	got := n.apply("User-Agent: upicollect-go/0.1.0 (go1) upicollect-cli/devel\n\namount=1\n" +
		`{"version":"v1.2.3","at":"2026-11-22T16:45:42+05:30","link":"http://h/sandbox/pay/utz_1","own":"http://h/sandbox/pay/cli-1"}`)
	assert.Equal(t, "User-Agent: upicollect-go/{{VERSION}} (go1) upicollect-cli/{{CLI_VERSION}}\n\namount=1\n"+
		`{"version":"{{CLI_VERSION}}","at":"{{TIME}}","link":"http://h/sandbox/pay/{{SERVICE_ORDER_ID}}","own":"http://h/sandbox/pay/cli-1"}`, got)
}
