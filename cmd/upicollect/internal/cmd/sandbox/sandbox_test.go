package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdtest"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/sandbox"
)

// testCreds are the merchant's credentials the tests serve the sandbox
// with.
var testCreds = upicollect.Credentials{MID: "TESTMID1", PublicKey: "pk_test_cli", SecretKey: "sk_test_cli_0123456789"}

func credEnv() map[string]string {
	return map[string]string{cmdutil.EnvMID: testCreds.MID, cmdutil.EnvPublicKey: testCreds.PublicKey, cmdutil.EnvSecretKey: testCreds.SecretKey}
}

// TestSandboxRun serves a sandbox through the command: one JSON line on
// stdout says where and with which keys, the API answers with them, logs
// go to stderr, and the end of the run's context stops it (exit 130).
func TestSandboxRun(t *testing.T) {
	pr, pw := io.Pipe()
	stderr := &iostreams.SyncBuffer{}
	env := credEnv()
	f := cmdutil.New(context.Background(), strings.NewReader(""), pw, stderr, func(k string) string { return env[k] })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- cmdtest.ExecuteIn(ctx, NewCmdSandbox(f, nil), "--addr", "127.0.0.1:0")
		_ = pw.Close()
	}()
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(pr).ReadString('\n')
		lines <- line
	}()
	var info sandbox.Info
	select {
	case line := <-lines:
		require.NoError(t, json.Unmarshal([]byte(line), &info), "line %q, stderr: %s", line, stderr.String())
	case err := <-done:
		t.Fatalf("the sandbox ended: %v: %s", err, stderr.String())
	case <-time.After(cmdtest.RunTimeout):
		t.Fatal("no JSON line within 30s")
	}
	assert.Equal(t, sandbox.Info{BaseURL: info.BaseURL, MID: testCreds.MID, PublicKey: testCreds.PublicKey, SecretKey: testCreds.SecretKey}, info)
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+$`, info.BaseURL)

	c, err := upicollect.NewClient(upicollect.Credentials{MID: info.MID, PublicKey: info.PublicKey, SecretKey: info.SecretKey}, upicollect.WithBaseURL(info.BaseURL))
	require.NoError(t, err)
	in, err := c.CreatePaymentIntent(ctx, &upicollect.IntentParams{Amount: upicollect.Rupees(5), RedirectURL: "https://shop.example/done", Note: "n", Customer: customer})
	require.NoError(t, err)
	assert.NotEmpty(t, in.OrderID)

	// The clock is movable from another shell.
	af, stdout, _ := cmdtest.Factory(map[string]string{cmdutil.EnvBaseURL: info.BaseURL})
	require.NoError(t, cmdtest.ExecuteIn(context.Background(), NewCmdAdvance(af, nil), "1h", "--json"))
	assert.Contains(t, stdout.String(), `{"now":"`)

	cancel()
	select {
	case err = <-done:
	case <-time.After(cmdtest.RunTimeout):
		t.Fatal("the sandbox did not stop within 30s")
	}
	require.Error(t, err)
	assert.Equal(t, "sandbox stopped", err.Error())
	code, kind := exitOf(t, err)
	assert.Equal(t, cmdutil.ExitInterrupted, code)
	assert.Equal(t, cmdutil.KindInterrupted, kind)

	logs := stderr.String()
	assert.Contains(t, logs, "sandbox serving")
	for _, want := range []string{
		"api_base_url=" + info.BaseURL + " ",
		"order_list_page=" + info.BaseURL + "/ ",
		"orders_json=" + info.BaseURL + "/sandbox/orders ",
		"pay_endpoint=" + info.BaseURL + "/sandbox/orders/{order_id}/pay ",
		"variants_endpoint=" + info.BaseURL + "/sandbox/variants ",
		"faults_endpoint=" + info.BaseURL + "/sandbox/faults ",
		"clock_endpoint=" + info.BaseURL + "/sandbox/clock\n",
	} {
		assert.Contains(t, logs, want)
	}
	assert.Contains(t, logs, "msg=request", "requests are logged without --quiet")
	assert.Contains(t, logs, "sandbox stopped")
	assert.NotContains(t, logs, testCreds.SecretKey)
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("stdout is closed") }

// TestSandboxRunRefusals: what stops the sandbox before it serves is a
// usage error (exit 2) when the flags are wrong, and a failure (exit 1)
// when the network refuses or stdout cannot be written.
func TestSandboxRunRefusals(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()

	tests := []struct {
		name   string
		args   []string
		stdout io.Writer
		code   int
		msg    string
	}{
		{"unknown variant", []string{"--variant", "nope"}, nil, cmdutil.ExitUsage, `unknown variant "nope"`},
		{"bad fault", []string{"--fault", "times=x"}, nil, cmdutil.ExitUsage, "times"},
		{"bad rate", []string{"--rate-limit", "-1"}, nil, cmdutil.ExitUsage, "WithRateLimit"},
		{"secret on the command line", []string{"--secret-key", "sk"}, nil, cmdutil.ExitUsage, "--secret-key is not accepted"},
		{"address in use", []string{"--addr", busy.Addr().String()}, nil, cmdutil.ExitFailure, "address already in use"},
		{"stdout closed", nil, failingWriter{}, cmdutil.ExitFailure, "stdout is closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout := tt.stdout
			if stdout == nil {
				stdout = &bytes.Buffer{}
			}
			env := credEnv()
			f := cmdutil.New(context.Background(), strings.NewReader(""), stdout, io.Discard, func(k string) string { return env[k] })
			args := append([]string{"--addr", "127.0.0.1:0", "--quiet"}, tt.args...)
			// Ended already: a sandbox that serves after all stops at once.
			ended, cancel := context.WithCancel(context.Background())
			cancel()
			done := make(chan error, 1)
			go func() { done <- cmdtest.ExecuteIn(ended, NewCmdSandbox(f, nil), args...) }()
			select {
			case err = <-done:
			case <-time.After(cmdtest.RunTimeout):
				t.Fatal("the command did not return within 30s")
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.msg)
			code, _ := cmdutil.Classify(context.Background(), err)
			assert.Equal(t, tt.code, code)
			if b, ok := stdout.(*bytes.Buffer); ok {
				assert.Empty(t, b.String())
			}
		})
	}
}
