package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
)

func TestParseRupees(t *testing.T) {
	tests := []struct {
		in   string
		want upicollect.Money
		err  string
	}{
		{"499", 49900, ""},
		{"499.00", 49900, ""},
		{"1.08", 108, ""},
		{"1.5", 150, ""},
		{"0", 0, ""},
		{"1000000000", 100000000000, ""},
		{"1000000001", 0, "too large"},
		{"99999999999", 0, "too large"},
		{"1.005", 0, "two decimals"},
		{"1.", 0, "two decimals"},
		{"", 0, "rupees"},
		{".5", 0, "rupees"},
		{"-1", 0, "rupees"},
		{"+1", 0, "rupees"},
		{"1e3", 0, "rupees"},
		{"1,000", 0, "rupees"},
		{"１", 0, "rupees"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseRupees(tt.in)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func FuzzParseRupees(f *testing.F) {
	for _, s := range []string{"499", "1.08", "1.5", "1.", "-1", "99999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := parseRupees(s)
		if err != nil {
			return
		}
		// What parses prints back to the same amount.
		again, err := parseRupees(m.String())
		require.NoError(t, err)
		assert.Equal(t, m, again)
		assert.GreaterOrEqual(t, int64(m), int64(0))
	})
}

func TestMoneyFlag(t *testing.T) {
	var m upicollect.Money
	f := moneyFlag{&m}
	assert.Equal(t, "", f.String())
	require.NoError(t, f.Set("12.30"))
	assert.Equal(t, upicollect.Money(1230), m)
	assert.Equal(t, "12.30", f.String())
	assert.Equal(t, "RUPEES", f.Type())
	assert.Error(t, f.Set("x"))
	assert.Equal(t, upicollect.Money(1230), m, "a bad value leaves the flag alone")
}

func TestExitFor(t *testing.T) {
	tests := []struct {
		err  error
		code int
		kind string
	}{
		{&upicollect.ValidationError{Op: "x"}, exitUsage, kindValidation},
		{fmt.Errorf("wrapped: %w", upicollect.ErrUnauthorized), exitUnauthorized, kindUnauthorized},
		{upicollect.ErrOutcomeUnknown, exitUnknown, kindOutcome},
		{upicollect.ErrDuplicateOrderID, exitRefused, "duplicate_order_id"},
		{upicollect.ErrInvalidRequest, exitRefused, "invalid_request"},
		{upicollect.ErrNotFound, exitRefused, "not_found"},
		{upicollect.ErrRateLimited, exitRefused, "rate_limited"},
		{upicollect.ErrServer, exitRefused, "server_error"},
		{upicollect.ErrUnexpectedResponse, exitRefused, "unexpected_response"},
		{&upicollect.APIError{HTTPStatus: 418}, exitRefused, kindRefused},
		{&upicollect.APIError{}, exitFailure, kindNetwork},
		{errors.New("disk full"), exitFailure, kindFailure},
	}
	for _, tt := range tests {
		code, kind := exitFor(tt.err)
		assert.Equal(t, tt.code, code, "%v", tt.err)
		assert.Equal(t, tt.kind, kind, "%v", tt.err)
	}
}

func TestClassifyInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	a := newApp(ctx, strings.NewReader(""), envFunc(nil), &bytes.Buffer{}, &bytes.Buffer{})
	err := fmt.Errorf("poll: %w", context.Canceled)
	code, _ := a.classify(err)
	assert.Equal(t, exitFailure, code, "a cancellation the user did not ask for is a failure")
	cancel()
	code, kind := a.classify(err)
	assert.Equal(t, exitInterrupted, code)
	assert.Equal(t, kindInterrupted, kind)
}

func TestStatusExit(t *testing.T) {
	for s, want := range map[upicollect.TxnStatus]int{
		upicollect.TxnSuccess: exitOK, upicollect.TxnPending: exitOK, "": exitOK,
		upicollect.TxnFail: exitPaymentFailed, upicollect.TxnReject: exitPaymentFailed, "EXPIRED": exitPaymentFailed,
	} {
		assert.Equal(t, want, statusExit(s), s)
	}
}

func TestWantsJSON(t *testing.T) {
	for args, want := range map[string]bool{
		"status --json": true, "status --json=true": true, "status --json=false": false,
		"status": false, "qr -- --json": false, "status --jsonx": false,
	} {
		assert.Equal(t, want, wantsJSON(strings.Fields(args)), args)
	}
}

func TestRedactWriter(t *testing.T) {
	var buf bytes.Buffer
	s := &secrets{}
	w := &redactWriter{w: &buf, secrets: s}
	_, err := w.Write([]byte("before any credentials sk_live_abc\n"))
	require.NoError(t, err)
	s.set(upicollect.Credentials{MID: "m", PublicKey: "pk_1", SecretKey: "sk_live_abc"})
	msg := "key sk_live_abc auth " + basicPair("pk_1", "sk_live_abc") + " end"
	n, err := w.Write([]byte(msg))
	require.NoError(t, err)
	assert.Equal(t, len(msg), n, "reports the caller's bytes as written")
	assert.Equal(t, "before any credentials sk_live_abc\nkey [REDACTED] auth [REDACTED] end", buf.String())

	_, err = (&redactWriter{w: failWriter{}, secrets: s}).Write([]byte("x"))
	assert.Error(t, err)
}

func TestShowSpinner(t *testing.T) {
	env := func(term string) func(string) string {
		return func(k string) string {
			if k == "TERM" {
				return term
			}
			return ""
		}
	}
	tests := []struct {
		name      string
		json, tty bool
		term      string
		want      bool
	}{
		{"terminal", false, true, "xterm-256color", true},
		{"terminal without TERM", false, true, "", true},
		{"json", true, true, "xterm", false},
		{"pipe", false, false, "xterm", false},
		{"dumb terminal", false, true, "dumb", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, showSpinner(tt.json, tt.tty, env(tt.term)), tt.name)
	}
}

func TestIsTerminal(t *testing.T) {
	assert.False(t, isTerminal(&bytes.Buffer{}), "not a file")
	f, err := os.CreateTemp(t.TempDir(), "out")
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, isTerminal(f), "a regular file")
}

func TestSpinnerFrame(t *testing.T) {
	got := spinnerFrame(0, "ORD1", 65*time.Second, "PENDING", false)
	assert.Equal(t, "\r\x1b[2K⠋ waiting for ORD1  1:05  PENDING", got)
	assert.NotContains(t, got, "\x1b[3", "NO_COLOR: no colour codes")
	got = spinnerFrame(11, "ORD1", 0, "PENDING", true)
	assert.Equal(t, "\r\x1b[2K⠙ waiting for ORD1  0:00  \x1b[33mPENDING\x1b[0m", got)
	assert.Contains(t, spinnerFrame(0, "O", 0, "", true), "checking")
	assert.Contains(t, spinnerFrame(0, "O", 0, "ODD", true), "  ODD", "unknown states uncoloured")
}

func TestFormatElapsed(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0:00", 999 * time.Millisecond: "0:00", 61 * time.Second: "1:01",
		time.Hour + 2*time.Minute + 3*time.Second: "1:02:03", -time.Second: "0:00",
		59*time.Minute + 59*time.Second: "59:59", time.Hour: "1:00:00",
	} {
		assert.Equal(t, want, formatElapsed(d), d)
	}
}

// TestSpinnerStops draws at least one frame, takes status updates and
// clears its line on stop.
func TestSpinnerStops(t *testing.T) {
	var buf syncBuffer
	sp := startSpinner(&buf, "ORD9", false)
	sp.setStatus("PENDING")
	done := make(chan struct{})
	go func() { sp.stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("spinner did not stop")
	}
	out := buf.String()
	assert.Contains(t, out, "waiting for ORD9")
	assert.True(t, strings.HasSuffix(out, clearLine), "line cleared: %q", out)
}

// TestReadStdinInterrupted: Ctrl-C ends a read of a terminal that never
// sends anything.
func TestReadStdinInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	a := newApp(ctx, strings.NewReader(""), envFunc(nil), &bytes.Buffer{}, &bytes.Buffer{})
	r, w := io.Pipe()
	defer w.Close()
	a.stdin = r
	cancel()
	_, err := a.readStdin(10)
	assert.ErrorIs(t, err, context.Canceled)
	code, kind := a.classify(err)
	assert.Equal(t, exitInterrupted, code)
	assert.Equal(t, kindInterrupted, kind)
}

// TestReportDryRunMasksAuthorization masks the header itself, not only
// through the output's redaction of known secrets.
func TestReportDryRunMasksAuthorization(t *testing.T) {
	for _, jsonOut := range []bool{false, true} {
		var out bytes.Buffer
		a := newApp(context.Background(), strings.NewReader(""), envFunc(nil), &out, &bytes.Buffer{})
		a.json = jsonOut
		req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/v1/payments/checkPaymentStatus", strings.NewReader("mid=m&order_id=o"))
		require.NoError(t, err)
		req.SetBasicAuth("pk", "unregistered-secret")
		d := &dryRun{}
		_, err = d.RoundTrip(req)
		require.ErrorIs(t, err, errDryRun)
		require.NoError(t, a.reportDryRun(d, err))
		assert.NotContains(t, out.String(), basicPair("pk", "unregistered-secret"))
		assert.Contains(t, out.String(), "Basic [REDACTED]")
		assert.Contains(t, out.String(), "order_id")
	}
	a := newApp(context.Background(), strings.NewReader(""), envFunc(nil), &bytes.Buffer{}, &bytes.Buffer{})
	assert.Error(t, a.reportDryRun(&dryRun{}, nil), "no request built and no error: still a failure")
}

// TestPrintIntentSparse: an answer without app links, expiry or amount
// still prints every key, with {} and null.
func TestPrintIntentSparse(t *testing.T) {
	var out bytes.Buffer
	a := newApp(context.Background(), strings.NewReader(""), envFunc(nil), &out, &bytes.Buffer{})
	a.json = true
	require.NoError(t, a.printIntent(&upicollect.Intent{OrderID: "o1", Link: "upi://pay?pa=a@b"}, false))
	assert.Equal(t, `{"order_id":"o1","amount":null,"link":"upi://pay?pa=a@b","app_links":{},"dynamic_qr":"","expires_at":null,"message":""}`+"\n", out.String())

	out.Reset()
	a.json = false
	require.NoError(t, a.printIntent(&upicollect.Intent{OrderID: "o1", DynamicQR: "data:image/png;base64," + strings.Repeat("A", 200)}, true))
	assert.Contains(t, out.String(), "… (222 bytes)", "image data is not dumped on the terminal")
	assert.NotContains(t, out.String(), "\n\n", "no link, no QR drawn")
}

func TestQRSummary(t *testing.T) {
	short := strings.Repeat("a", 120)
	assert.Equal(t, short, qrSummary(short))
	long := strings.Repeat("a", 121)
	assert.Equal(t, strings.Repeat("a", 60)+"… (121 bytes)", qrSummary(long))
}

func TestBuildCommit(t *testing.T) {
	bi := func(kv ...string) *debug.BuildInfo {
		b := &debug.BuildInfo{}
		for i := 0; i < len(kv); i += 2 {
			b.Settings = append(b.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return b
	}
	assert.Equal(t, "", buildCommit(nil, false))
	assert.Equal(t, "", buildCommit(bi("vcs.modified", "true"), true), "no revision, no commit")
	assert.Equal(t, "abc123", buildCommit(bi("vcs", "git", "vcs.revision", "abc123", "vcs.modified", "false"), true))
	assert.Equal(t, "abc123-dirty", buildCommit(bi("vcs.revision", "abc123", "vcs.modified", "true"), true))
	assert.Equal(t, "upicollect 0.1.0 (go1.23.4 linux/amd64, commit abc123)",
		versionLine(versionJSON{Version: "0.1.0", GoVersion: "go1.23.4", Platform: "linux/amd64", Commit: "abc123"}))
	assert.Equal(t, "upicollect 0.1.0 (go1.23.4 linux/amd64)",
		versionLine(versionJSON{Version: "0.1.0", GoVersion: "go1.23.4", Platform: "linux/amd64"}))
}

// TestVersionOneSource: the CLI's version is the SDK's, and the binary
// built from a clone names its commit.
func TestVersionOneSource(t *testing.T) {
	r := cli(t, nil, "", "version", "--json")
	require.Equal(t, exitOK, r.code, r.output())
	assert.Contains(t, r.stdout, `"version":"`+upicollect.Version+`"`)
	assert.Equal(t, upicollect.Version, cliVersion())
}

// TestMaxWaitFor: --timeout is the SDK's bound too, beyond its 15-minute
// default, and 0 is as good as no bound.
func TestMaxWaitFor(t *testing.T) {
	assert.Equal(t, time.Hour, maxWaitFor(time.Hour))
	assert.Equal(t, time.Second, maxWaitFor(time.Second))
	assert.Equal(t, untilInterrupted, maxWaitFor(0))
	assert.Greater(t, maxWaitFor(0), 50*365*24*time.Hour)
	assert.True(t, time.Now().Add(maxWaitFor(0)).After(time.Now()), "no overflow")
}
