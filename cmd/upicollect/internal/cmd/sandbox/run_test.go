package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
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

// sandboxStart is the sandbox time of the tests' movable sandboxes:
// 10:00 UTC, 15:30 in India.
var sandboxStart = time.Date(2025, 1, 15, 10, 0, 0, 0, time.UTC)

var customer = upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "+91 98765-43210"}

// exitOf is err's exit code and kind, as the command line reports them.
func exitOf(t *testing.T, err error) (int, string) {
	t.Helper()
	var ee *cmdutil.ExitError
	require.True(t, errors.As(err, &ee), "%v is not an exit error", err)
	return ee.Code, ee.Kind
}

// goneURL is the base URL of a loopback port nothing listens on.
func goneURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	u := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())
	return u
}

// TestAdvanceBody: the clock request is checked before any I/O; each
// refusal is a usage error (exit 2) that names what was wrong.
func TestAdvanceBody(t *testing.T) {
	tests := []struct {
		name string
		args []string
		to   string
		want string // the body, or the error's text
		bad  bool
	}{
		{"duration", []string{"2h"}, "", `{"advance":"2h"}`, false},
		{"zero", []string{"0s"}, "", `{"advance":"0s"}`, false},
		{"to", nil, "2026-03-01T10:00:00+05:30", `{"set":"2026-03-01T10:00:00+05:30"}`, false},
		{"to with nanoseconds", nil, "2026-03-01T10:00:00.123456789Z", `{"set":"2026-03-01T10:00:00.123456789Z"}`, false},
		{"nothing", nil, "", "give a DURATION (such as 2h) or --to TIME", true},
		{"both", []string{"1h"}, "2026-03-01T10:00:00Z", "give a DURATION or --to TIME, not both", true},
		{"bad to", nil, "noon", `--to "noon" is not an RFC 3339 time`, true},
		{"not a duration", []string{"tomorrow"}, "", `DURATION "tomorrow" is not a duration`, true},
		{"negative", []string{"-1ns"}, "", "DURATION -1ns is negative: the sandbox's clock only moves forward", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := advanceBody(tt.args, tt.to)
			if tt.bad {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.want)
				code, kind := exitOf(t, err)
				assert.Equal(t, cmdutil.ExitUsage, code)
				assert.Equal(t, cmdutil.KindUsage, kind)
				assert.Nil(t, b)
				return
			}
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(b))
		})
	}
}

// TestPayForm: the pay form is checked before any I/O; --after and
// --amount are sent only when given, and refused when out of range.
func TestPayForm(t *testing.T) {
	tests := []struct {
		name string
		opts PayOptions
		want string // the encoded form, or the error's text
		bad  bool
	}{
		{"default", PayOptions{result: "SUCCESS"}, "result=SUCCESS", false},
		{"lower case", PayOptions{result: "reject"}, "result=REJECT", false},
		{"fail with utr", PayOptions{result: "Fail", utr: "UTR123"}, "result=FAIL&utr=UTR123", false},
		{"after unset", PayOptions{result: "SUCCESS", after: time.Hour, amount: 5}, "result=SUCCESS", false},
		{"after zero", PayOptions{result: "SUCCESS", afterSet: true}, "after=0s&result=SUCCESS", false},
		{"after", PayOptions{result: "SUCCESS", after: 3 * time.Hour, afterSet: true}, "after=3h0m0s&result=SUCCESS", false},
		{"one paisa", PayOptions{result: "SUCCESS", amount: 1, amountSet: true}, "amount=0.01&result=SUCCESS", false},
		{"amount", PayOptions{result: "SUCCESS", amount: 49850, amountSet: true}, "amount=498.50&result=SUCCESS", false},
		{"bad result", PayOptions{result: "PAID"}, `--result "PAID": want SUCCESS, FAIL or REJECT`, true},
		{"pending is no result", PayOptions{result: "PENDING"}, `--result "PENDING"`, true},
		{"negative after", PayOptions{result: "SUCCESS", after: -time.Nanosecond, afterSet: true}, "--after -1ns is negative", true},
		{"zero amount", PayOptions{result: "SUCCESS", amountSet: true}, "--amount must be more than zero", true},
		{"negative amount", PayOptions{result: "SUCCESS", amount: -1, amountSet: true}, "--amount must be more than zero", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			form, err := tt.opts.form()
			if tt.bad {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.want)
				code, _ := exitOf(t, err)
				assert.Equal(t, cmdutil.ExitUsage, code)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, form.Encode())
		})
	}
}

// TestControlBase: the base URL is --base-url, else the environment's,
// else the default address; one that is not an absolute http or https
// URL is a usage error.
func TestControlBase(t *testing.T) {
	tests := []struct {
		name, flag, env, want string
	}{
		{"default", "", "", "http://127.0.0.1:8787"},
		{"environment", "", "http://127.0.0.1:9/", "http://127.0.0.1:9"},
		{"flag over environment", "https://laptop.lan:8787", "http://127.0.0.1:9", "https://laptop.lan:8787"},
		{"http", "http://h", "", "http://h"},
		{"https", "https://h/", "", "https://h"},
		{"other scheme", "ftp://h", "", ""},
		{"no scheme", "127.0.0.1:8787", "", ""},
		{"no host", "http://", "", ""},
		{"no host, https", "https:///x", "", ""},
		{"unparsable", "http://h/%zz", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, _ := cmdtest.Factory(map[string]string{cmdutil.EnvBaseURL: tt.env})
			cf := control{IO: f.IOStreams, Config: f.Config, BaseURL: tt.flag}
			got, err := cf.base()
			if tt.want == "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "is not an absolute http or https URL")
				assert.Contains(t, err.Error(), cmdutil.EnvBaseURL)
				code, _ := exitOf(t, err)
				assert.Equal(t, cmdutil.ExitUsage, code)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestAdvanceRun moves a real sandbox's clock through the command and
// prints the new time, for a person and as JSON.
func TestAdvanceRun(t *testing.T) {
	clock := sandbox.NewManualClock(sandboxStart)
	s := sandbox.Start(t, sandbox.WithMovableClock(clock))

	tests := []struct {
		name string
		args []string
		out  string
		now  time.Time
	}{
		{"duration", []string{"2h"},
			"sandbox time  2025-01-15T12:00:00.000000000Z\nIndia time    2025-01-15 17:30:00 IST\n", sandboxStart.Add(2 * time.Hour)},
		{"zero", []string{"0s"},
			"sandbox time  2025-01-15T12:00:00.000000000Z\nIndia time    2025-01-15 17:30:00 IST\n", sandboxStart.Add(2 * time.Hour)},
		{"json", []string{"30m", "--json"}, `{"now":"2025-01-15T12:30:00.000000000Z"}` + "\n", sandboxStart.Add(150 * time.Minute)},
		{"to", []string{"--to", "2025-01-16T09:00:00+05:30"},
			"sandbox time  2025-01-16T03:30:00.000000000Z\nIndia time    2025-01-16 09:00:00 IST\n", time.Date(2025, 1, 16, 3, 30, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, stdout, stderr := cmdtest.Factory(map[string]string{cmdutil.EnvBaseURL: s.URL()})
			require.NoError(t, cmdtest.ExecuteIn(context.Background(), NewCmdAdvance(f, nil), tt.args...))
			assert.Equal(t, tt.out, stdout.String())
			assert.Empty(t, stderr.String())
			assert.True(t, clock.Now().Equal(tt.now), "sandbox time %v, want %v", clock.Now(), tt.now)
		})
	}

	last := s.Requests()[len(s.Requests())-1]
	assert.Equal(t, http.MethodPost, last.Method)
	assert.Equal(t, "/sandbox/clock", last.Path)
	assert.Equal(t, "application/json", last.Header.Get("Content-Type"))
	assert.Equal(t, cmdutil.UserAgent(), last.Header.Get("User-Agent"))
}

// TestPayRun settles orders of a real sandbox through the command and
// prints the order as the sandbox then holds it.
func TestPayRun(t *testing.T) {
	clock := sandbox.NewManualClock(sandboxStart)
	s := sandbox.Start(t, sandbox.WithMovableClock(clock))
	ctx := context.Background()
	intent := func(t *testing.T) string {
		in, err := s.Client().CreatePaymentIntent(ctx, &upicollect.IntentParams{Amount: upicollect.Rupees(499), RedirectURL: "https://shop.example/done", Note: "n", Customer: customer})
		require.NoError(t, err)
		return in.OrderID
	}

	tests := []struct {
		name  string
		flags []string
		out   string // with ORDER for the order's id, UTR for a generated UTR
		state string
	}{
		{"success", nil, "order_id  ORDER\nstatus    SUCCESS\nutr       UTR\n", sandbox.StatusSuccess},
		{"fail with utr", []string{"--result", "fail", "--utr", "BANK0001"}, "order_id  ORDER\nstatus    FAIL\nutr       BANK0001\n", sandbox.StatusFail},
		{"another amount", []string{"--amount", "498.50", "--utr", "BANK0002"},
			"order_id  ORDER\nstatus    SUCCESS\nutr       BANK0002\npaid      ₹498.50\n", sandbox.StatusSuccess},
		{"the order's amount", []string{"--amount", "499", "--utr", "BANK0003"},
			"order_id  ORDER\nstatus    SUCCESS\nutr       BANK0003\n", sandbox.StatusSuccess},
		{"later", []string{"--after", "3h", "--utr", "BANK0004"},
			"order_id   ORDER\nstatus     PENDING\nscheduled  SUCCESS at 2025-01-15 18:30:00 IST\n", sandbox.StatusPending},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := intent(t)
			f, stdout, stderr := cmdtest.Factory(map[string]string{cmdutil.EnvBaseURL: s.URL()})
			require.NoError(t, cmdtest.ExecuteIn(ctx, NewCmdPay(f, nil), append([]string{id}, tt.flags...)...))
			o, ok := s.Order(id)
			require.True(t, ok)
			assert.Equal(t, tt.state, o.Status)
			want := strings.ReplaceAll(strings.ReplaceAll(tt.out, "ORDER", id), "UTR\n", o.UTR+"\n")
			assert.Equal(t, want, stdout.String())
			assert.Empty(t, stderr.String())
		})
	}

	t.Run("json", func(t *testing.T) {
		id := intent(t)
		f, stdout, _ := cmdtest.Factory(map[string]string{cmdutil.EnvBaseURL: s.URL()})
		require.NoError(t, cmdtest.ExecuteIn(ctx, NewCmdPay(f, nil), id, "--json", "--utr", "BANK0005"))
		assert.Equal(t, 1, strings.Count(stdout.String(), "\n"), "one JSON line: %s", stdout)
		var o sandbox.Order
		require.NoError(t, json.Unmarshal([]byte(stdout.String()), &o))
		assert.Equal(t, id, o.OrderID)
		assert.Equal(t, "BANK0005", o.UTR)
		assert.Equal(t, sandbox.StatusSuccess, o.Status)
	})

	t.Run("path escaped", func(t *testing.T) {
		f, _, _ := cmdtest.Factory(map[string]string{cmdutil.EnvBaseURL: s.URL()})
		err := cmdtest.ExecuteIn(ctx, NewCmdPay(f, nil), "a/b?c")
		assert.EqualError(t, err, "the sandbox refused (HTTP 404): order not found", "the id is one path segment")
		last := s.Requests()[len(s.Requests())-1]
		assert.Equal(t, "/sandbox/orders/a/b?c/pay", last.Path)
		assert.Equal(t, "application/x-www-form-urlencoded", last.Header.Get("Content-Type"))
	})
}

// TestControlRefusals: the sandbox's refusals carry its own words and
// exit 3 (an unknown order is not_found); bad input sends nothing (exit
// 2); no sandbox at the address is a transport failure (exit 1); a run
// whose context ended is interrupted (exit 130).
func TestControlRefusals(t *testing.T) {
	clock := sandbox.NewManualClock(sandboxStart)
	s := sandbox.Start(t, sandbox.WithMovableClock(clock))
	fixed := sandbox.Start(t) // real time: its clock cannot be moved
	ctx := context.Background()
	in, err := s.Client().CreatePaymentIntent(ctx, &upicollect.IntentParams{Amount: upicollect.Rupees(10), RedirectURL: "https://shop.example/done", Note: "n", Customer: customer})
	require.NoError(t, err)
	_, err = s.Pay(in.OrderID)
	require.NoError(t, err)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	gone := goneURL(t)

	tests := []struct {
		name string
		ctx  context.Context
		base string
		pay  bool // pay, else advance
		args []string
		code int
		kind string
		msg  string // the whole message, or its start when it ends in "…"
		sent bool
	}{
		{"settled", ctx, s.URL(), true, []string{in.OrderID, "--result", "FAIL"}, cmdutil.ExitRefused, cmdutil.KindRefused,
			"the sandbox refused (HTTP 409): order already settled", true},
		{"unknown order", ctx, s.URL(), true, []string{"nobody"}, cmdutil.ExitRefused, cmdutil.KindNotFound,
			"the sandbox refused (HTTP 404): order not found", true},
		{"back in time", ctx, s.URL(), false, []string{"--to", "2025-01-14T00:00:00Z"}, cmdutil.ExitRefused, cmdutil.KindRefused,
			"the sandbox refused (HTTP 409): set 2025-01-14T00:00:00.000000000Z is before the sandbox's time 2025-01-15T10:00:00.000000000Z: the clock only moves forward", true},
		{"not movable", ctx, fixed.URL(), false, []string{"1h"}, cmdutil.ExitRefused, cmdutil.KindRefused,
			"the sandbox refused (HTTP 409): this sandbox's clock cannot be moved: start it with sandbox.WithMovableClock (upicollect sandbox always can)", false},
		{"bad result", ctx, s.URL(), true, []string{in.OrderID, "--result", "PAID"}, cmdutil.ExitUsage, cmdutil.KindUsage,
			`--result "PAID": want SUCCESS, FAIL or REJECT`, false},
		{"no duration", ctx, s.URL(), false, nil, cmdutil.ExitUsage, cmdutil.KindUsage, "give a DURATION (such as 2h) or --to TIME", false},
		{"bad base", ctx, "ftp://h", false, []string{"1h"}, cmdutil.ExitUsage, cmdutil.KindUsage,
			`base URL (--base-url or UPICOLLECT_BASE_URL) "ftp://h" is not an absolute http or https URL`, false},
		{"bad base, pay", ctx, "ftp://h", true, []string{in.OrderID}, cmdutil.ExitUsage, cmdutil.KindUsage,
			`base URL (--base-url or UPICOLLECT_BASE_URL) "ftp://h" is not an absolute http or https URL`, false},
		{"no sandbox", ctx, gone, false, []string{"1h"}, cmdutil.ExitFailure, cmdutil.KindTransport,
			"no sandbox answered at " + gone + " (is `upicollect sandbox` running?): …", false},
		{"no sandbox, pay", ctx, gone, true, []string{"x"}, cmdutil.ExitFailure, cmdutil.KindTransport,
			"no sandbox answered at " + gone + " (is `upicollect sandbox` running?): …", false},
		{"interrupted", cancelled, s.URL(), false, []string{"1h"}, cmdutil.ExitInterrupted, cmdutil.KindInterrupted, "Post …", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.Clear(sandbox.RecordedRequests)
			f, stdout, _ := cmdtest.Factory(map[string]string{cmdutil.EnvBaseURL: tt.base})
			cmd := NewCmdAdvance(f, nil)
			if tt.pay {
				cmd = NewCmdPay(f, nil)
			}
			err := cmdtest.ExecuteIn(tt.ctx, cmd, tt.args...)
			require.Error(t, err)
			code, kind := exitOf(t, err)
			assert.Equal(t, tt.code, code)
			assert.Equal(t, tt.kind, kind)
			if start, cut := strings.CutSuffix(tt.msg, "…"); cut {
				assert.True(t, strings.HasPrefix(err.Error(), start), "%q does not start with %q", err.Error(), start)
			} else {
				assert.Equal(t, tt.msg, err.Error())
			}
			assert.Empty(t, stdout.String())
			if tt.base == s.URL() {
				assert.Equal(t, tt.sent, len(s.Requests()) > 0, "request sent")
			}
		})
	}
	assert.True(t, clock.Now().Equal(sandboxStart), "no refused call moved the clock")
}

// TestControlForeignAnswers: what answers at the base URL may not be a
// sandbox (another program on the port): its refusal is quoted, cut at
// 300 bytes, and an answer that is not the sandbox's is an error.
func TestControlForeignAnswers(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		name   string
		status int
		body   string
		pay    bool
		code   int
		kind   string
		msg    string
	}{
		{"300 bytes whole", http.StatusBadGateway, long, false, cmdutil.ExitRefused, cmdutil.KindRefused, "the sandbox refused (HTTP 502): " + long},
		{"301 bytes cut", http.StatusBadGateway, long + "y", false, cmdutil.ExitRefused, cmdutil.KindRefused, "the sandbox refused (HTTP 502): " + long + "…"},
		{"text, trimmed", http.StatusForbidden, "  sandbox: go away\n", false, cmdutil.ExitRefused, cmdutil.KindRefused, "the sandbox refused (HTTP 403): go away"},
		{"JSON without error", http.StatusBadRequest, `{"error":""}`, false, cmdutil.ExitRefused, cmdutil.KindRefused, `the sandbox refused (HTTP 400): {"error":""}`},
		{"JSON error", http.StatusBadRequest, `{"error":"sandbox: no"}`, true, cmdutil.ExitRefused, cmdutil.KindRefused, `the sandbox refused (HTTP 400): no`},
		{"not found", http.StatusNotFound, "404 page not found", false, cmdutil.ExitRefused, cmdutil.KindNotFound, "the sandbox refused (HTTP 404): 404 page not found"},
		{"redirect not followed", http.StatusFound, "", false, cmdutil.ExitRefused, cmdutil.KindRefused, "the sandbox refused (HTTP 302): "},
		{"no time", http.StatusOK, "<html>", false, cmdutil.ExitFailure, "", `the sandbox's answer is not a time: "<html>"`},
		{"a time that is none", http.StatusOK, `{"now":"noon"}`, false, cmdutil.ExitFailure, "", `the sandbox's answer is not a time: "{\"now\":\"noon\"}"`},
		{"no order", http.StatusOK, "<html>", true, cmdutil.ExitFailure, "", "the sandbox's answer is not an order: invalid character '<' looking for beginning of value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.status == http.StatusFound {
					http.Redirect(w, r, "/elsewhere", tt.status)
					return
				}
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			f, stdout, _ := cmdtest.Factory(map[string]string{cmdutil.EnvBaseURL: srv.URL})
			cmd, args := NewCmdAdvance(f, nil), []string{"1h"}
			if tt.pay {
				cmd, args = NewCmdPay(f, nil), []string{"ORD-1"}
			}
			err := cmdtest.ExecuteIn(context.Background(), cmd, args...)
			require.Error(t, err)
			assert.Equal(t, tt.msg, err.Error())
			if tt.kind != "" {
				code, kind := exitOf(t, err)
				assert.Equal(t, tt.code, code)
				assert.Equal(t, tt.kind, kind)
			} else {
				code, _ := cmdutil.Classify(context.Background(), err)
				assert.Equal(t, tt.code, code)
			}
			assert.Empty(t, stdout.String())
		})
	}
}
