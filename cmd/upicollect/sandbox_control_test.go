package main

import (
	"encoding/json"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/sandbox"
)

// runningEnv points the CLI at a sandbox that `upicollect sandbox` serves.
func (rs *runningSandbox) env() []string {
	return []string{
		envBaseURL + "=" + rs.info.BaseURL, envMID + "=" + rs.info.MID,
		envPublicKey + "=" + rs.info.PublicKey, envSecretKey + "=" + rs.info.SecretKey,
	}
}

// sandboxNow reads GET /sandbox/clock of the sandbox at base, on
// loopback without a proxy as the CLI's control client does.
func sandboxNow(t *testing.T, base string) time.Time {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{Proxy: nil}}
	defer client.CloseIdleConnections()
	resp, err := client.Get(base + "/sandbox/clock")
	require.NoError(t, err)
	defer resp.Body.Close()
	var c struct {
		Now string `json:"now"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&c))
	now, err := time.Parse(time.RFC3339Nano, c.Now)
	require.NoError(t, err)
	return now
}

// TestSandboxLatePaymentFromShell tries a late payment by hand, as the
// guides show (docs/cli.md, docs/testing.md): `upicollect sandbox` serves, another shell fails the
// payment, schedules the bank's late SUCCESS three hours on, and advances
// the sandbox's clock past it; the status check sees each step.
func TestSandboxLatePaymentFromShell(t *testing.T) {
	rs := startSandboxCmd(t, cleanEnv(), "--quiet")
	env := rs.env()
	require.Equal(t, exitOK, cli(t, env, "", intentArgs("late-1")...).code)
	status := func() string {
		t.Helper()
		r := cli(t, env, "", "status", "late-1", "--json")
		var st struct {
			TxnStatus string `json:"txn_status"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &st), r.output())
		return st.TxnStatus
	}

	r := cli(t, env, "", "sandbox", "pay", "late-1", "--result", "fail")
	require.Equal(t, exitOK, r.code, r.output())
	assert.Regexp(t, `(?m)^status +FAIL$`, r.stdout)
	assert.Equal(t, "FAIL", status())

	r = cli(t, env, "", "sandbox", "pay", "late-1", "--after", "3h", "--utr", "LATE0001", "--json")
	require.Equal(t, exitOK, r.code, r.output())
	var o sandbox.Order
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &o), r.stdout)
	require.Len(t, o.Scheduled, 1, r.stdout)
	assert.Equal(t, "SUCCESS", o.Scheduled[0].Result, "--result defaults to SUCCESS")
	due := o.Scheduled[0].At
	assert.Equal(t, 1, strings.Count(r.stdout, "\n"), "one JSON line")

	before := sandboxNow(t, rs.info.BaseURL)
	r = cli(t, env, "", "sandbox", "advance", "2h")
	require.Equal(t, exitOK, r.code, r.output())
	assert.Regexp(t, `(?m)^sandbox time +20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$`, r.stdout)
	assert.Regexp(t, `(?m)^India time +20\d\d-\d\d-\d\d \d\d:\d\d:\d\d IST$`, r.stdout)
	after := sandboxNow(t, rs.info.BaseURL)
	assert.False(t, after.Before(before.Add(2*time.Hour)), "advanced at least 2h: %v -> %v", before, after)
	assert.True(t, after.Before(due), "not yet due: %v, due %v", after, due)
	assert.Equal(t, "FAIL", status(), "the bank has not answered yet")

	r = cli(t, env, "", "sandbox", "advance", "--to", due.Format(time.RFC3339Nano), "--json")
	require.Equal(t, exitOK, r.code, r.output())
	var c clockJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &c), r.stdout)
	now, err := time.Parse(time.RFC3339Nano, c.Now)
	require.NoError(t, err)
	assert.False(t, now.Before(due), "set to the due time: %v", now)
	assert.Equal(t, "SUCCESS", status(), "the late authorisation came")
}

// TestSandboxControlErrors: bad input is refused before any I/O (exit 2),
// the sandbox's refusals carry its words (exit 3), and no sandbox at the
// address is a network failure (exit 1).
func TestSandboxControlErrors(t *testing.T) {
	movable := sandbox.NewManualClock(time.Date(2025, 1, 15, 10, 0, 0, 0, time.UTC))
	s := sandbox.Start(t, sandbox.WithMovableClock(movable))
	fixed := sandbox.Start(t) // real time: its clock cannot be moved
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	gone := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())

	env := sandboxEnv(s)
	require.Equal(t, exitOK, cli(t, env, "", intentArgs("paid-1")...).code)
	require.Equal(t, exitOK, cli(t, env, "", "sandbox", "pay", "paid-1").code)
	s.Clear(sandbox.RecordedRequests)

	tests := []struct {
		name string
		base string
		args []string
		code int
		kind string
		text string
		sent bool // the sandbox got a request
	}{
		{"no duration", s.URL(), []string{"advance"}, exitUsage, kindUsage, "give a DURATION", false},
		{"negative", s.URL(), []string{"advance", "--", "-1h"}, exitUsage, kindUsage, "only moves forward", false},
		{"not a duration", s.URL(), []string{"advance", "tomorrow"}, exitUsage, kindUsage, `DURATION "tomorrow" is not a duration`, false},
		{"both", s.URL(), []string{"advance", "1h", "--to", "2026-01-01T00:00:00Z"}, exitUsage, kindUsage, "not both", false},
		{"bad --to", s.URL(), []string{"advance", "--to", "noon"}, exitUsage, kindUsage, "not an RFC 3339 time", false},
		{"two durations", s.URL(), []string{"advance", "1h", "2h"}, exitUsage, kindUsage, "accepts at most 1 arg", false},
		{"bad base URL", "127.0.0.1:8787", []string{"advance", "1h"}, exitUsage, kindUsage, "not an absolute http or https URL", false},
		{"back in time", s.URL(), []string{"advance", "--to", "2025-01-14T00:00:00Z"}, exitRefused, kindRefused, "only moves forward", true},
		{"past what the clock holds", s.URL(), []string{"advance", "--to", "9999-12-31T00:00:00Z"}, exitRefused, kindRefused, "cannot move past 9998-12-31", true},
		{"beyond a duration", s.URL(), []string{"advance", "2562048h"}, exitUsage, kindUsage, `DURATION "2562048h" is not a duration`, false},
		{"not movable", fixed.URL(), []string{"advance", "1h"}, exitRefused, kindRefused, "cannot be moved", true},
		{"no sandbox", gone, []string{"advance", "1h"}, exitFailure, kindTransport, "is `upicollect sandbox` running?", false},
		{"bad result", s.URL(), []string{"pay", "paid-1", "--result", "PAID"}, exitUsage, kindUsage, `--result "PAID"`, false},
		{"negative after", s.URL(), []string{"pay", "paid-1", "--after", "-1s"}, exitUsage, kindUsage, "--after -1s is negative", false},
		{"zero amount", s.URL(), []string{"pay", "paid-1", "--amount", "0"}, exitUsage, kindUsage, "--amount must be more than zero", false},
		{"no order", s.URL(), []string{"pay"}, exitUsage, kindUsage, "accepts 1 arg", false},
		{"unknown order", s.URL(), []string{"pay", "nobody"}, exitRefused, "not_found", "HTTP 404): order not found", true},
		{"settled", s.URL(), []string{"pay", "paid-1", "--result", "FAIL"}, exitRefused, kindRefused, "HTTP 409): order already settled", true},
		{"bad utr", s.URL(), []string{"pay", "paid-1", "--utr", "no spaces"}, exitRefused, kindRefused, "HTTP 400)", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.Clear(sandbox.RecordedRequests)
			args := append([]string{"sandbox"}, tt.args...)
			withJSON := append([]string{"sandbox", tt.args[0], "--json"}, tt.args[1:]...)
			r := cli(t, []string{envBaseURL + "=" + tt.base}, "", withJSON...)
			assert.Equal(t, tt.code, r.code, r.output())
			var e cmdutil.ErrorJSON
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &e), r.output())
			assert.Equal(t, tt.kind, e.Error.Kind)
			assert.Contains(t, e.Error.Message, tt.text)
			if tt.base == s.URL() {
				assert.Equal(t, tt.sent, len(s.Requests()) > 0, "request sent")
			}

			r = cli(t, []string{envBaseURL + "=" + tt.base}, "", args...)
			assert.Equal(t, tt.code, r.code, r.output())
			assert.Empty(t, r.stdout)
			assert.Contains(t, r.stderr, tt.text)
		})
	}
	assert.True(t, movable.Now().Equal(time.Date(2025, 1, 15, 10, 0, 0, 0, time.UTC)), "no refused call moved the clock")
}
