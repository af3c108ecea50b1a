package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/sandbox"
)

// runningSandbox is `upicollect sandbox` started by a test.
type runningSandbox struct {
	info   sandboxInfo
	stderr *iostreams.SyncBuffer
	stop   func() int // ends the command and returns its exit code
}

// startSandboxCmd runs `upicollect sandbox --addr 127.0.0.1:0 args...`
// in-process with env as its environment and reads its JSON line. Every
// wait is bounded.
func startSandboxCmd(t *testing.T, env []string, args ...string) *runningSandbox {
	t.Helper()
	run := runInBackground(env, strings.NewReader(""), append([]string{"sandbox", "--addr", "127.0.0.1:0"}, args...)...)
	lines := make(chan string, 1)
	go func() {
		line, _ := run.stdout.ReadString('\n')
		lines <- line
	}()
	rs := &runningSandbox{stderr: run.stderr}
	select {
	case line := <-lines:
		require.NoError(t, json.Unmarshal([]byte(line), &rs.info), "line %q, stderr: %s", line, run.stderr.String())
	case code := <-run.done:
		t.Fatalf("sandbox exited with %d: %s", code, run.stderr.String())
	case <-time.After(10 * time.Second):
		run.cancel()
		t.Fatal("no JSON line within 10s")
	}
	stopped, code := false, 0
	rs.stop = func() int {
		if !stopped {
			stopped = true
			code, _ = run.interrupt(t)
		}
		return code
	}
	t.Cleanup(func() { rs.stop() })
	return rs
}

// post sends form to op with the running sandbox's credentials.
func (rs *runningSandbox) post(t *testing.T, op, contentType, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest("POST", rs.info.BaseURL+"/v1/payments/"+op, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", contentType)
	req.SetBasicAuth(rs.info.PublicKey, rs.info.SecretKey)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var m map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
	return resp.StatusCode, m
}

func (rs *runningSandbox) linkForm(extra ...string) string {
	v := url.Values{"mid": {rs.info.MID}, "amount": {"10"}, "note": {"n"}, "customer_name": {"A"},
		"customer_email": {"a@example.com"}, "customer_mobile": {"9876543210"}}
	for i := 0; i < len(extra); i += 2 {
		v.Set(extra[i], extra[i+1])
	}
	return v.Encode()
}

func TestSandboxCmdCredentials(t *testing.T) {
	env := []string{"UPICOLLECT_MID=ENVMID", "UPICOLLECT_PUBLIC_KEY=pk_env", "UPICOLLECT_SECRET_KEY=sk_env"}
	t.Run("flags win over environment", func(t *testing.T) {
		rs := startSandboxCmd(t, env, "--mid", "FLAGMID", "--public-key", "pk_flag")
		assert.Equal(t, sandboxInfo{BaseURL: rs.info.BaseURL, MID: "FLAGMID", PublicKey: "pk_flag", SecretKey: "sk_env"}, rs.info)
		code, _ := rs.post(t, sandbox.OpCreatePaymentLink, "application/x-www-form-urlencoded", rs.linkForm())
		assert.Equal(t, 200, code, "the exported keys work")
	})
	t.Run("environment when no flag", func(t *testing.T) {
		rs := startSandboxCmd(t, env)
		assert.Equal(t, sandboxInfo{BaseURL: rs.info.BaseURL, MID: "ENVMID", PublicKey: "pk_env", SecretKey: "sk_env"}, rs.info)
		code, _ := rs.post(t, sandbox.OpCreatePaymentLink, "application/x-www-form-urlencoded", rs.linkForm())
		assert.Equal(t, 200, code, "the exported keys work")
	})
	t.Run("flags when unset", func(t *testing.T) {
		secret := filepath.Join(t.TempDir(), "secret")
		require.NoError(t, os.WriteFile(secret, []byte("sk_flag\n"), 0o600))
		rs := startSandboxCmd(t, nil, "--mid", "FLAGMID", "--public-key", "pk_flag", "--secret-file", secret)
		assert.Equal(t, "FLAGMID", rs.info.MID)
		assert.Equal(t, "pk_flag", rs.info.PublicKey)
		assert.Equal(t, "sk_flag", rs.info.SecretKey)
	})
	t.Run("random otherwise", func(t *testing.T) {
		rs := startSandboxCmd(t, nil)
		assert.Equal(t, sandbox.DefaultMID, rs.info.MID)
		assert.Regexp(t, `^pk_sandbox_[0-9a-f]{16}$`, rs.info.PublicKey)
		assert.Regexp(t, `^sk_sandbox_[0-9a-f]{32}$`, rs.info.SecretKey)
	})
	t.Run("never a secret from a flag", func(t *testing.T) {
		r := cli(t, nil, "", "sandbox", "--addr", "127.0.0.1:0", "--secret-key", "sk_flag")
		assert.Equal(t, exitUsage, r.code)
		assert.Contains(t, r.stderr, "upicollect: --secret-key is not accepted")
		assert.NotContains(t, r.output(), "sk_flag")
	})
}

// TestSandboxCmdVariants switches every variant with --variant and sees it
// listed as on by GET /sandbox/variants.
func TestSandboxCmdVariants(t *testing.T) {
	for _, name := range sandbox.VariantNames() {
		t.Run(name, func(t *testing.T) {
			rs := startSandboxCmd(t, nil, "--variant", name, "--quiet")
			resp, err := http.Get(rs.info.BaseURL + "/sandbox/variants")
			require.NoError(t, err)
			defer resp.Body.Close()
			var list []sandbox.Variant
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
			for _, v := range list {
				assert.Equal(t, v.Name == name, v.Enabled, v.Name)
			}
		})
	}
	rs := startSandboxCmd(t, nil, "--variant", "string-status-code", "--variant", "fractional-amounts")
	code, m := rs.post(t, sandbox.OpCreatePaymentLink, "application/x-www-form-urlencoded", rs.linkForm("amount", "99.50"))
	assert.Equal(t, 200, code, "fractional-amounts took effect")
	assert.Equal(t, "200", m["statusCode"], "string-status-code took effect")
}

func TestSandboxCmdFaultStrictAndTTL(t *testing.T) {
	rs := startSandboxCmd(t, nil, "--strict", "--intent-ttl", "1m",
		"--fault", "op=checkPaymentStatus,status=503,body={\"status\":false,\"msg\":\"down, later\"}")
	status := url.Values{"mid": {rs.info.MID}, "order_id": {"x"}}.Encode()
	code, m := rs.post(t, sandbox.OpCheckPaymentStatus, "application/x-www-form-urlencoded", status)
	assert.Equal(t, 503, code)
	assert.Equal(t, "down, later", m["msg"], "body takes the rest, commas included")

	code, m = rs.post(t, sandbox.OpCreatePaymentLink, "application/json",
		`{"mid":"`+rs.info.MID+`","amount":"10.00","note":"n","customer_name":"A","customer_email":"a@example.com","customer_mobile":"9876543210","woo_order_id":7}`)
	assert.Equal(t, 400, code)
	assert.Equal(t, "woo_order_id is not accepted by createPaymentLink", m["msg"])

	form := url.Values{"mid": {rs.info.MID}, "amount": {"1"}, "redirect_url": {"https://shop.example/r"}, "note": {"n"},
		"customer_name": {"A"}, "customer_email": {"a@example.com"}, "customer_mobile": {"9876543210"}}
	code, m = rs.post(t, sandbox.OpCreatePaymentIntent, "application/x-www-form-urlencoded", form.Encode())
	require.Equal(t, 200, code)
	exp, err := time.ParseInLocation(time.DateTime, m["data"].(map[string]any)["expiry"].(string), time.FixedZone("IST", 19800))
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now().Add(time.Minute), exp, 30*time.Second, "--intent-ttl 1m")
}

// TestSandboxCmdRateLimit: --rate-limit N answers 429 beyond N requests a
// second, with Retry-After, as a live quota does.
func TestSandboxCmdRateLimit(t *testing.T) {
	rs := startSandboxCmd(t, nil, "--rate-limit", "1", "--quiet")
	codes := map[int]int{}
	for range 5 {
		code, _ := rs.post(t, sandbox.OpCreatePaymentLink, "application/x-www-form-urlencoded", rs.linkForm())
		codes[code]++
	}
	assert.Positive(t, codes[200], "%v", codes)
	assert.Positive(t, codes[429], "five at once are beyond one a second: %v", codes)
}

func TestSandboxCmdLogs(t *testing.T) {
	rs := startSandboxCmd(t, nil)
	code, _ := rs.post(t, sandbox.OpCreatePaymentLink, "application/x-www-form-urlencoded", rs.linkForm())
	require.Equal(t, 200, code)
	assert.Equal(t, exitInterrupted, rs.stop(), "Ctrl-C exits 130, as wait does")
	logs := rs.stderr.String()
	for _, want := range []string{
		"api_base_url=" + rs.info.BaseURL, "order_list_page=" + rs.info.BaseURL + "/",
		"variants_endpoint=" + rs.info.BaseURL + "/sandbox/variants", "faults_endpoint=",
		"op=createPaymentLink status=200", "sandbox stopped",
	} {
		assert.Contains(t, logs, want)
	}
	assert.NotContains(t, logs, rs.info.SecretKey)

	quiet := startSandboxCmd(t, nil, "--quiet")
	code, _ = quiet.post(t, sandbox.OpCreatePaymentLink, "application/x-www-form-urlencoded", quiet.linkForm())
	require.Equal(t, 200, code)
	assert.Equal(t, exitInterrupted, quiet.stop())
	assert.NotContains(t, quiet.stderr.String(), "op=createPaymentLink", "--quiet logs no requests")
}

func TestSandboxCmdUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--variant", "round-amounts"}, `unknown variant "round-amounts"`},
		{[]string{"--variant", "status-bare", "--variant", "status-in-data"}, "exclude each other"},
		{[]string{"--fault", "status=abc"}, "not a whole number"},
		{[]string{"--fault", "colour=red"}, `unknown key "colour"`},
		{[]string{"--intent-ttl", "0s"}, "not positive"},
		{[]string{"--public-url", "ftp://x"}, "not an absolute http or https URL"},
		{[]string{"--rate-limit", "-1"}, "rate must be in (0, 1e6]"},
		{[]string{"--status-shape", "round"}, "unknown flag: --status-shape"},
		{[]string{"extra"}, `unknown command "extra"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runCLI(context.Background(), nil, strings.NewReader(""), &stdout, &stderr,
				append([]string{"sandbox", "--addr", "127.0.0.1:0"}, tt.args...)...)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, stderr.String(), tt.want)
			assert.True(t, strings.HasPrefix(stderr.String(), "upicollect: "), "errors begin upicollect: %q", stderr.String())
			assert.Empty(t, stdout.String())
		})
	}
	var stdout, stderr bytes.Buffer
	assert.Equal(t, exitOK, runCLI(context.Background(), nil, strings.NewReader(""), &stdout, &stderr, "sandbox", "-h"))
	for _, want := range append(sandbox.VariantNames(), "--fault", "UPICOLLECT_SECRET_KEY", "-intent-ttl", "-quiet", "-strict", "--secret-file") {
		assert.Contains(t, stdout.String(), want)
	}
	assert.NotContains(t, stdout.String(), "--secret-key", "no secret from a flag")
	assert.NotContains(t, stdout.String(), "--status-shape", "the unreleased flag is gone")
}
