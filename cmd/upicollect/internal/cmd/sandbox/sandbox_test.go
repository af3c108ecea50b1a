package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
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
	var info Info
	select {
	case line := <-lines:
		require.NoError(t, json.Unmarshal([]byte(line), &info), "line %q, stderr: %s", line, stderr.String())
	case err := <-done:
		t.Fatalf("the sandbox ended: %v: %s", err, stderr.String())
	case <-time.After(cmdtest.RunTimeout):
		t.Fatal("no JSON line within 30s")
	}
	assert.Equal(t, Info{BaseURL: info.BaseURL, MID: testCreds.MID, PublicKey: testCreds.PublicKey, SecretKey: testCreds.SecretKey}, info)
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

// serveOptions is a sandbox on loopback served with sf's options.
func serveOptions(t *testing.T, sf *SandboxOptions, logs io.Writer) *sandbox.Server {
	t.Helper()
	opts, err := sf.options(testCreds, slog.New(slog.NewTextHandler(logs, nil)))
	require.NoError(t, err)
	s, err := sandbox.Listen("127.0.0.1:0", opts...)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

// post sends form to the API operation op with the merchant's keys and
// returns the answer's status.
func post(t *testing.T, s *sandbox.Server, op string, form url.Values) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL()+"/v1/payments/"+op, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(testCreds.PublicKey, testCreds.SecretKey)
	client := s.HTTPClient()
	client.Timeout = cmdtest.RunTimeout
	resp, err := client.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// intentForm is a createPaymentIntent form, with extra fields.
func intentForm(extra ...string) url.Values {
	v := url.Values{"mid": {testCreds.MID}, "amount": {"10"}, "note": {"n"}, "customer_name": {"A"},
		"customer_email": {"a@example.com"}, "customer_mobile": {"9876543210"}, "redirect_url": {"https://shop.example/done"}}
	for i := 0; i+1 < len(extra); i += 2 {
		v.Set(extra[i], extra[i+1])
	}
	return v
}

// TestSandboxOptions: each flag becomes the sandbox behaviour it names:
// the credentials, the faults in order, --strict, --rate-limit, --quiet,
// --variant, and a clock that can be moved.
func TestSandboxOptions(t *testing.T) {
	t.Run("defaults", func(t *testing.T) {
		logs := &iostreams.SyncBuffer{}
		s := serveOptions(t, &SandboxOptions{intentTTL: sandbox.DefaultIntentTTL}, logs)
		assert.Equal(t, testCreds, s.Credentials())
		for i := 0; i < 5; i++ {
			assert.Equal(t, http.StatusOK, post(t, s, "createPaymentIntent", intentForm("bogus", "1")), "no quota, unknown fields pass")
		}
		assert.Contains(t, logs.String(), "msg=request")
	})
	t.Run("faults", func(t *testing.T) {
		s := serveOptions(t, &SandboxOptions{intentTTL: sandbox.DefaultIntentTTL, quiet: true,
			faults: []string{"op=createPaymentIntent,status=503,times=1", "op=createPaymentIntent,status=500,times=1"}}, io.Discard)
		assert.Equal(t, http.StatusServiceUnavailable, post(t, s, "createPaymentIntent", intentForm()))
		assert.Equal(t, http.StatusInternalServerError, post(t, s, "createPaymentIntent", intentForm()))
		assert.Equal(t, http.StatusOK, post(t, s, "createPaymentIntent", intentForm()))
	})
	t.Run("bad fault", func(t *testing.T) {
		sf := &SandboxOptions{intentTTL: sandbox.DefaultIntentTTL, faults: []string{"status=500", "times=x"}}
		opts, err := sf.options(testCreds, slog.New(slog.NewTextHandler(io.Discard, nil)))
		require.Error(t, err)
		assert.Nil(t, opts)
	})
	t.Run("strict and quiet", func(t *testing.T) {
		logs := &iostreams.SyncBuffer{}
		s := serveOptions(t, &SandboxOptions{intentTTL: sandbox.DefaultIntentTTL, strict: true, quiet: true}, logs)
		assert.Equal(t, http.StatusBadRequest, post(t, s, "createPaymentIntent", intentForm("bogus", "1")))
		assert.Equal(t, http.StatusOK, post(t, s, "createPaymentIntent", intentForm()))
		assert.Empty(t, logs.String(), "--quiet logs nothing per request")
	})
	t.Run("rate limit", func(t *testing.T) {
		// One request in 1000 s: the bucket's few tokens never refill
		// within the test.
		s := serveOptions(t, &SandboxOptions{intentTTL: sandbox.DefaultIntentTTL, quiet: true, rateLimit: 0.001}, io.Discard)
		var limited int
		for i := 0; i < 5; i++ {
			if post(t, s, "createPaymentIntent", intentForm()) == http.StatusTooManyRequests {
				limited++
			}
		}
		assert.Equal(t, 3, limited, "two tokens, then 429s")
	})
	t.Run("variants", func(t *testing.T) {
		s := serveOptions(t, &SandboxOptions{intentTTL: sandbox.DefaultIntentTTL, quiet: true, variants: []string{sandbox.VariantStatusInData}}, io.Discard)
		client := s.HTTPClient()
		client.Timeout = cmdtest.RunTimeout
		resp, err := client.Get(s.URL() + "/sandbox/variants")
		require.NoError(t, err)
		defer resp.Body.Close()
		var list []sandbox.Variant
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
		var on []string
		for _, v := range list {
			if v.Enabled {
				on = append(on, v.Name)
			}
		}
		assert.Equal(t, []string{sandbox.VariantStatusInData}, on)
	})
}
