package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	pngpkg "image/png"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/sandbox"
	"github.com/upicollect/upicollect-go/upilink"
)

// TestExitCodes checks every exit code the binary documents, each caused
// the way a user would cause it.
func TestExitCodes(t *testing.T) {
	s := sandbox.Start(t)
	env := sandboxEnv(s)
	require.Equal(t, exitOK, cli(t, env, "", intentArgs("dup-1")...).code)
	require.Equal(t, exitOK, cli(t, env, "", intentArgs("rejected-1")...).code)
	pay(t, s, "rejected-1", "REJECT", "")
	require.Equal(t, exitOK, cli(t, env, "", intentArgs("failed-1")...).code)
	pay(t, s, "failed-1", "FAIL", "")

	closed := closedURL(t)
	drop := droppingServer(t)
	secretFile := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secretFile, []byte(s.Credentials().SecretKey+"\n"), 0o600))
	noSecret := env[:3]

	tests := []struct {
		name string
		env  []string
		args []string
		code int
		kind string // JSON error kind, when the run fails with --json
	}{
		{"ok status pending", env, []string{"status", "unknown-order"}, exitOK, ""},
		{"ok flags over environment", withBase(env, closed), []string{"status", "unknown-order", "--base-url", s.URL()}, exitOK, ""},
		{"ok secret from file", noSecret, []string{"status", "unknown-order", "--secret-file", secretFile}, exitOK, ""},
		{"usage no command", env, nil, exitUsage, ""},
		{"usage unknown command", env, []string{"frobnicate"}, exitUsage, "usage"},
		{"usage unknown flag", env, []string{"status", "X", "--nope"}, exitUsage, "usage"},
		{"usage missing order id", env, []string{"status"}, exitUsage, "usage"},
		{"usage extra argument", env, []string{"status", "A", "B"}, exitUsage, "usage"},
		{"usage bad amount", env, []string{"intent", "--amount", "1.005"}, exitUsage, "usage"},
		{"usage qr and json", env, intentArgs("x", "--qr", "--json"), exitUsage, "usage"},
		{"usage missing settings", nil, []string{"status", "X"}, exitUsage, "usage"},
		{"usage secret key flag", noSecret, []string{"status", "X", "--secret-key", "sk_flag"}, exitUsage, "usage"},
		{"usage missing secret file", noSecret, []string{"status", "X", "--secret-file", filepath.Join(t.TempDir(), "none")}, exitUsage, "usage"},
		{"usage bad base url", append(env, envBaseURL+"=ftp://x"), []string{"status", "X"}, exitUsage, "usage"},
		{"validation", env, []string{"link", "--amount", "0"}, exitUsage, "validation"},
		{"validation order id", env, []string{"status", "bad id"}, exitUsage, "validation"},
		{"refused duplicate order id", env, intentArgs("dup-1"), exitRefused, "duplicate_order_id"},
		{"unauthorized wrong secret", append(env, envSecretKey+"=wrong"), []string{"status", "X"}, exitUnauthorized, "unauthorized"},
		{"unknown outcome dropped connection", withBase(env, drop), intentArgs("drop-1"), exitUnknown, "outcome_unknown"},
		{"unknown wait timeout", env, []string{"wait", "never-paid", "--timeout", "1ns"}, exitUnknown, "timeout"},
		{"payment rejected status", env, []string{"status", "rejected-1"}, exitPaymentFailed, ""},
		{"payment rejected wait", env, []string{"wait", "rejected-1"}, exitPaymentFailed, ""},
		{"payment failed wait", env, []string{"wait", "failed-1"}, exitPaymentFailed, ""},
		{"failure no answer", withBase(env, closed), []string{"status", "X"}, exitFailure, "transport"}, // the SDK's word (ErrorType), once "network"
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cli(t, tt.env, "", tt.args...)
			assert.Equal(t, tt.code, r.code, r.output())
			if tt.code != exitOK && tt.code != exitPaymentFailed && !wantsJSON(tt.args) {
				assert.NotEmpty(t, r.stderr, "a failure says why on stderr")
			}
			if tt.kind == "" {
				return
			}
			r = cli(t, tt.env, "", append(tt.args, "--json")...)
			assert.Equal(t, tt.code, r.code, r.output())
			assert.Contains(t, r.stdout, `{"error":{"kind":"`+tt.kind+`","message":"`)
			assert.Empty(t, r.stderr, "with --json the error is on stdout only")
		})
	}
}

func withBase(env []string, base string) []string {
	return append(append([]string(nil), env...), envBaseURL+"="+base)
}

// closedURL is a loopback URL where nothing listens.
func closedURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return "http://" + addr
}

// droppingServer reads each request and closes the connection without an
// answer: the create may or may not have happened.
func droppingServer(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// startCLI starts the binary and returns it with a reader of its stdout.
func startCLI(t *testing.T, env []string, args ...string) (*exec.Cmd, *bufio.Reader, *iostreams.SyncBuffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, binary(t), args...)
	cmd.Env = append(cleanEnv(), env...)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr := &iostreams.SyncBuffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	return cmd, bufio.NewReader(out), stderr
}

func exitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	err := cmd.Wait()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	return ee.ExitCode()
}

// TestWaitPaidMidWait pays the order after wait printed its first status:
// wait prints the change and exits 0 with SUCCESS last.
func TestWaitPaidMidWait(t *testing.T) {
	for _, tt := range []struct {
		result string
		code   int
	}{{"SUCCESS", exitOK}, {"REJECT", exitPaymentFailed}, {"FAIL", exitPaymentFailed}} {
		t.Run(tt.result, func(t *testing.T) {
			s := sandbox.Start(t)
			env := sandboxEnv(s)
			require.Equal(t, exitOK, cli(t, env, "", intentArgs("mid-wait")...).code)
			cmd, out, stderr := startCLI(t, env, "wait", "mid-wait", "--json", "--poll-interval", "5ms")
			first, err := out.ReadString('\n')
			require.NoError(t, err, stderr.String())
			assert.Contains(t, first, `"txn_status":"PENDING"`)
			pay(t, s, "mid-wait", tt.result, "987654321098")
			rest, err := io.ReadAll(out)
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSpace(string(rest)), "\n")
			assert.Contains(t, lines[len(lines)-1], `"txn_status":"`+tt.result+`"`, "final status last")
			for _, l := range lines[:len(lines)-1] {
				assert.Contains(t, l, `"PENDING"`, "one line per change: only PENDING repeats before the end")
			}
			assert.Len(t, lines, 1, "PENDING is not printed again while it does not change")
			assert.Equal(t, tt.code, exitCode(t, cmd))
			assert.Empty(t, stderr.String(), "no spinner when stderr is not a terminal")
		})
	}
}

// TestWaitInterrupted sends SIGINT during a wait: it stops cleanly with 130.
func TestWaitInterrupted(t *testing.T) {
	s := sandbox.Start(t)
	env := sandboxEnv(s)
	require.Equal(t, exitOK, cli(t, env, "", intentArgs("ctrl-c")...).code)
	cmd, out, stderr := startCLI(t, env, "wait", "ctrl-c", "--json", "--poll-interval", "5ms")
	_, err := out.ReadString('\n')
	require.NoError(t, err, stderr.String())
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	rest, err := io.ReadAll(out)
	require.NoError(t, err)
	assert.Contains(t, string(rest), `{"error":{"kind":"interrupted"`)
	assert.Equal(t, exitInterrupted, exitCode(t, cmd))
}

// TestWaitHumanNoSpinner: without a terminal, wait prints the final status
// and nothing on stderr, not one spinner frame.
func TestWaitHumanNoSpinner(t *testing.T) {
	s := sandbox.Start(t)
	env := sandboxEnv(s)
	require.Equal(t, exitOK, cli(t, env, "", intentArgs("human-wait")...).code)
	_, err := s.Pay("human-wait")
	require.NoError(t, err)
	r := cli(t, env, "", "wait", "human-wait")
	require.Equal(t, exitOK, r.code, r.output())
	assert.Contains(t, r.stdout, "SUCCESS")
	assert.Empty(t, r.stderr)
	assert.NotContains(t, r.stdout, "\r")
}

// TestSecretNeverPrinted runs every command, successful or failing, with a
// known secret and looks for it, and the Authorization value made from it,
// in everything printed.
func TestSecretNeverPrinted(t *testing.T) {
	s := sandbox.Start(t)
	env := sandboxEnv(s)
	creds := s.Credentials()
	echo := echoingServer(t, creds.SecretKey)
	runs := [][]string{
		intentArgs("sec-1"), intentArgs("sec-1", "--json"), intentArgs("sec-2", "--dry-run"),
		intentArgs("sec-3", "--dry-run", "--json"), intentArgs("sec-1", "--qr"),
		{"status", "sec-1"}, {"status", "sec-1", "--dry-run"}, {"status", "sec-1", "--dry-run", "--json"},
		{"wait", "sec-1", "--timeout", "1ns"}, {"status", "X", "--secret-key", creds.SecretKey},
		{"intent", "--amount", "0"}, {"status", "--help"},
		append([]string{"request", "--amount", "1", "--vpa", "a@b", "--dry-run"}, customer...),
		append([]string{"link", "--amount", "1", "--dry-run", "--json"}, customer...),
	}
	for _, args := range runs {
		r := cli(t, env, "", args...)
		assertNoSecret(t, r, creds.PublicKey, creds.SecretKey, args)
	}
	for _, args := range [][]string{{"status", "X"}, {"status", "X", "--json"}, intentArgs("sec-9")} {
		r := cli(t, withBase(env, echo), "", args...)
		assert.NotEqual(t, exitOK, r.code)
		assertNoSecret(t, r, creds.PublicKey, creds.SecretKey, args)
		assert.Contains(t, r.output(), "[REDACTED]", "the echoed secret was replaced")
	}
}

func assertNoSecret(t *testing.T, r result, public, secret string, args []string) {
	t.Helper()
	for _, v := range []string{secret, basicPair(public, secret)} {
		assert.NotContains(t, r.output(), v, "secret printed by %v", args)
	}
}

// echoingServer is a misbehaving service that refuses every call with the
// secret and the Authorization header in its message.
func echoingServer(t *testing.T, secret string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		auth := strings.TrimPrefix(r.Header.Get("Authorization"), "Basic ")
		io.WriteString(w, `{"status":false,"statusCode":400,"msg":"bad key `+secret+` in `+auth+`"}`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestQR draws a link on the terminal and as a PNG, from an argument and
// from stdin.
func TestQR(t *testing.T) {
	const link = "upi://pay?pa=shop@okaxis&pn=Shop&am=499.00&cu=INR"
	r := cli(t, nil, "", "qr", link)
	require.Equal(t, exitOK, r.code, r.output())
	golden(t, "qr.txt", newNormaliser(nil), r.stdout)
	fromStdin := cli(t, nil, link+"\nthe first line only\n", "qr", "-")
	require.Equal(t, exitOK, fromStdin.code, fromStdin.output())
	assert.Equal(t, r.stdout, fromStdin.stdout)

	png := filepath.Join(t.TempDir(), "pay.png")
	r = cli(t, nil, "", "qr", "--png", png, link)
	require.Equal(t, exitOK, r.code, r.output())
	img, err := os.ReadFile(png)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(img), "\x89PNG\r\n\x1a\n"))
	r = cli(t, nil, link, "qr", "-", "--png", "-")
	require.Equal(t, exitOK, r.code, r.output())
	assert.Equal(t, string(img), r.stdout)

	for _, bad := range [][]string{{"qr"}, {"qr", " "}, {"qr", "a", "b"}, {"qr", "-", "--png", filepath.Join(t.TempDir(), "no", "dir.png")}} {
		r := cli(t, nil, "", bad...)
		assert.NotEqual(t, exitOK, r.code, "%v", bad)
		assert.NotEmpty(t, r.stderr)
	}
	r = cli(t, nil, strings.Repeat("x", maxQRInput+1), "qr", "-")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "longer than 4096 bytes")
	r = cli(t, nil, strings.Repeat("x", 3000), "qr", "-")
	assert.Equal(t, exitUsage, r.code, "too long for any QR version: %s", r.output())
	r = cli(t, nil, "", "qr", link, "--png", png, "--size", "20")
	assert.Equal(t, exitUsage, r.code, "--size below one pixel a module: %s", r.output())
	assert.Contains(t, r.stderr, "upicollect: --size width 20 pixels: this code needs")

	r = cli(t, nil, "", "qr", link, "--png", "-", "--size", "300")
	require.Equal(t, exitOK, r.code, r.output())
	cfg, err := pngpkg.DecodeConfig(strings.NewReader(r.stdout))
	require.NoError(t, err)
	assert.Equal(t, 300, cfg.Width, "--size is the image's width, as upilink.PNG means it")
	assert.Equal(t, 300, cfg.Height)
	want, err := upilink.PNG(link, 300)
	require.NoError(t, err)
	assert.Equal(t, string(want), r.stdout, "the CLI draws with upilink.PNG")
}

// TestIntentQR prints the intent's link as a QR code under the summary.
func TestIntentQR(t *testing.T) {
	s := sandbox.Start(t)
	r := cli(t, sandboxEnv(s), "", intentArgs("qr-1", "--qr")...)
	require.Equal(t, exitOK, r.code, r.output())
	summary, qr, found := strings.Cut(r.stdout, "\n\n")
	require.True(t, found, r.stdout)
	assert.Contains(t, summary, "upi://pay?")
	assert.Contains(t, qr, "█", "half-block QR under the summary")
}

// TestHelp: every command has --help with an example, and the help topics
// exist.
func TestHelp(t *testing.T) {
	for _, c := range []string{"intent", "request", "order", "link", "status", "wait", "qr", "sandbox", "version"} {
		r := cli(t, nil, "", c, "--help")
		assert.Equal(t, exitOK, r.code, c)
		assert.Contains(t, r.stdout, "Examples:", c)
		assert.Contains(t, r.stdout, "upicollect "+c, c)
	}
	r := cli(t, nil, "", "help", "exit-codes")
	assert.Equal(t, exitOK, r.code)
	golden(t, "help_exit_codes.txt", newNormaliser(nil), r.stdout)
	r = cli(t, nil, "", "help", "environment")
	assert.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, envSecretKey)
	r = cli(t, nil, "", "sandbox", "--help")
	assert.Equal(t, exitOK, r.code, "the sandbox's own flags answer its --help")
	r = cli(t, nil, "", "completion", "bash")
	assert.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, "upicollect")
	r = cli(t, nil, "", "__complete", "wait", "--ti")
	assert.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, "--timeout\t")
	for _, c := range []string{"status", "wait", "qr"} {
		r = cli(t, nil, "", "__complete", c, "")
		assert.Equal(t, ":4\n", r.stdout, "%s: no file names offered for its argument", c)
	}
}

// TestSandboxPassThrough starts `upicollect sandbox` through the binary,
// as docs/cli.md does, and uses its JSON line.
func TestSandboxPassThrough(t *testing.T) {
	cmd, out, stderr := startCLI(t, nil, "sandbox", "--addr", "127.0.0.1:0")
	line, err := out.ReadString('\n')
	require.NoError(t, err, stderr.String())
	var info struct {
		BaseURL   string `json:"base_url"`
		MID       string `json:"mid"`
		PublicKey string `json:"public_key"`
		SecretKey string `json:"secret_key"`
	}
	require.NoError(t, json.Unmarshal([]byte(line), &info))
	env := []string{envBaseURL + "=" + info.BaseURL, envMID + "=" + info.MID,
		envPublicKey + "=" + info.PublicKey, envSecretKey + "=" + info.SecretKey}
	r := cli(t, env, "", "status", "nobody", "--json")
	assert.Equal(t, exitOK, r.code, r.output())
	assert.Contains(t, r.stdout, `"txn_status":"PENDING"`)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	assert.Equal(t, exitInterrupted, exitCode(t, cmd), "Ctrl-C exits 130, as wait does")
	assert.Contains(t, stderr.String(), "upicollect: interrupted")
}

// basicPair is the Authorization value made from the keys.
func basicPair(public, secret string) string {
	return base64.StdEncoding.EncodeToString([]byte(public + ":" + secret))
}

// TestVersionBinaryCommit: the binary prints the SDK's version, the Go
// version and, when its build info records one (a build in a clone; not
// with -buildvcs=false or in a git worktree), the commit.
func TestVersionBinaryCommit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	bin := binary(t)
	out, err := exec.CommandContext(ctx, bin, "version").Output()
	require.NoError(t, err)
	info, err := exec.CommandContext(ctx, "go", "version", "-m", bin).Output()
	require.NoError(t, err)
	commit := ""
	if m := regexp.MustCompile(`(?m)^\s*build\s+vcs\.revision=(\S+)$`).FindSubmatch(info); m != nil {
		commit = ", commit " + string(m[1]) + `(-dirty)?`
	}
	t.Logf("build info commit: %q", commit)
	assert.Regexp(t, `^upicollect `+regexp.QuoteMeta(upicollect.Version)+` \(`+regexp.QuoteMeta(runtime.Version())+
		` \S+/\S+`+commit+`\)\n$`, string(out))
}

// TestShortSecretKeepsOutput: the CLI's output goes through the SDK's one
// redaction list (upicollect.Redactor), which finds credentials as whole
// tokens: a one-letter or common-word secret leaves text that merely
// contains those letters alone, and the secret itself is still masked.
func TestShortSecretKeepsOutput(t *testing.T) {
	for _, secret := range []string{"a", "status", "Ord"} {
		t.Run(secret, func(t *testing.T) {
			env := []string{envBaseURL + "=http://127.0.0.1:8787", envMID + "=m", envPublicKey + "=pk", envSecretKey + "=" + secret}
			r := cli(t, env, "", intentArgs("short-1", "--dry-run")...)
			require.Equal(t, exitOK, r.code, r.output())
			assert.Contains(t, r.stdout, "POST http://127.0.0.1:8787/v1/payments/createPaymentIntent\n")
			assert.Contains(t, r.stdout, "Authorization: Basic [REDACTED]\n")
			assert.Contains(t, r.stdout, "note=Order+42")
			assert.Contains(t, r.stdout, "(dry run: nothing sent)")
			assert.NotContains(t, r.stdout, basicPair("pk", secret))

			r = cli(t, env, "", append([]string{"link", "--amount", "1", "--dry-run", "--note", "key " + secret}, customer[2:]...)...)
			require.Equal(t, exitOK, r.code, r.output())
			assert.Contains(t, r.stdout, "note=key+[REDACTED]", "the secret itself is masked in the body")
		})
	}
}
