package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/root"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunUsage(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"no args", nil, exitUsage, "", "Usage:"},
		{"help", []string{"help"}, exitOK, "Serve a local sandbox", ""},
		{"--help", []string{"--help"}, exitOK, "Usage:", ""},
		{"help topic", []string{"help", "exit-codes"}, exitOK, "6    the payment ended FAIL or REJECT", ""},
		{"unknown", []string{"frobnicate"}, exitUsage, "", `unknown command "frobnicate"`},
		{"typo", []string{"stauts"}, exitUsage, "", "upicollect: unknown command \"stauts\" for \"upicollect\"\n\nDid you mean this?\n\tstatus\nRun 'upicollect --help' for usage.\n"},
		{"subcommand typo", []string{"sandbox", "advanc"}, exitUsage, "", "\"advanc\" for \"upicollect sandbox\"\n\nDid you mean this?\n\tadvance\nRun 'upicollect sandbox --help' for usage.\n"},
		{"typo escaped", []string{"\x1b[31mstatus"}, exitUsage, "", `unknown command "\x1b[31mstatus" for "upicollect"`},
		{"flag escaped", []string{"status", "--\x1b]0;x\x07"}, exitUsage, "", "unknown flag: --\\x1b]0;x\\x07\n"},
		{"sandbox -h", []string{"sandbox", "-h"}, exitOK, "--addr HOST:PORT", ""},
		{"help sandbox", []string{"help", "sandbox"}, exitOK, "--addr HOST:PORT", ""},
		{"sandbox bad flag", []string{"sandbox", "--nope"}, exitUsage, "", "nope"},
		{"sandbox extra arg", []string{"sandbox", "now"}, exitUsage, "", "now"},
		{"sandbox bad addr", []string{"sandbox", "--addr", "127.0.0.1:99999"}, exitFailure, "", "99999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, &stdout, &stderr)
			assert.Equal(t, tt.code, code)
			if tt.stdout == "" {
				assert.Empty(t, stdout.String())
			} else {
				assert.Contains(t, stdout.String(), tt.stdout)
			}
			assert.Contains(t, stderr.String(), tt.stderr)
			if code != exitOK {
				assert.True(t, strings.HasPrefix(stderr.String(), "upicollect: ") || tt.args == nil,
					"errors begin upicollect: %q", stderr.String())
			}
			assert.NotContains(t, stderr.String(), `\x0a`, "line breaks are lines, not escapes")
			assert.NotContains(t, stderr.String(), "\x1b", "nothing a terminal acts on")
		})
	}
}

// TestCommandTree: no command is registered twice, and every command is
// written in one help style: a capitalised summary, a long description
// and examples.
func TestCommandTree(t *testing.T) {
	a := newFactory(context.Background(), strings.NewReader(""), envFunc(nil), &bytes.Buffer{}, &bytes.Buffer{})
	seen := map[string]bool{}
	for _, c := range root.NewCmdRoot(a).Commands() {
		assert.False(t, seen[c.Name()], "command registered twice: %s", c.Name())
		seen[c.Name()] = true
		if c.Runnable() && c.Name() != "help" && c.Name() != "completion" {
			assert.Regexp(t, `^[A-Z]`, c.Short, c.Name())
			assert.NotEmpty(t, c.Example, c.Name())
		}
	}
	assert.True(t, seen["sandbox"], "sandbox is a command like the others")
}

// TestSandboxCommand starts `upicollect sandbox`, reads its JSON line and
// creates a payment link the way curl would.
func TestSandboxCommand(t *testing.T) {
	run := runInBackground(nil, strings.NewReader(""), "sandbox", "--addr", "127.0.0.1:0")
	stderr := run.stderr
	defer run.cancel()
	line, err := run.stdout.ReadString('\n')
	require.NoError(t, err, "stderr: %s", stderr.String())
	var info map[string]string
	require.NoError(t, json.Unmarshal([]byte(line), &info))
	assert.Equal(t, []string{"base_url", "mid", "public_key", "secret_key"}, keysInOrder(t, line))
	for _, k := range []string{"mid", "public_key", "secret_key"} {
		assert.NotEmpty(t, info[k], k)
	}
	u, err := url.Parse(info["base_url"])
	require.NoError(t, err)
	host, _, err := net.SplitHostPort(u.Host)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1", host)

	form := url.Values{
		"mid": {info["mid"]}, "amount": {"499"}, "note": {"CLI test"}, "customer_name": {"Ravi Kumar"},
		"customer_email": {"ravi@example.com"}, "customer_mobile": {"9876543210"},
	}
	req, err := http.NewRequest(http.MethodPost, info["base_url"]+"/v1/payments/createPaymentLink", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(info["public_key"], info["secret_key"])
	client := &http.Client{Transport: &http.Transport{Proxy: nil}}
	resp, err := client.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	var ans struct {
		Status bool `json:"status"`
		Data   struct {
			PaymentLink string `json:"payment_link"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &ans))
	assert.True(t, ans.Status)
	assert.True(t, strings.HasPrefix(ans.Data.PaymentLink, info["base_url"]+"/sandbox/pay/"), ans.Data.PaymentLink)
	client.CloseIdleConnections()

	code, rest := run.interrupt(t) // as SIGINT would
	assert.Equal(t, exitInterrupted, code, "Ctrl-C exits 130, as wait does")
	assert.Empty(t, rest, "exactly one line on stdout")
	assert.NotContains(t, stderr.String(), info["secret_key"], "logs do not carry the secret")
}

// keysInOrder lists the top-level keys of a JSON object as written.
func keysInOrder(t *testing.T, s string) []string {
	dec := json.NewDecoder(strings.NewReader(s))
	_, err := dec.Token()
	require.NoError(t, err)
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, k.(string))
		var v any
		require.NoError(t, dec.Decode(&v))
	}
	return keys
}

func TestSandboxCommandStdoutFailure(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stderr bytes.Buffer
	code := run(ctx, []string{"sandbox", "--addr", "127.0.0.1:0"}, failWriter{}, &stderr)
	assert.Equal(t, exitFailure, code)
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }
