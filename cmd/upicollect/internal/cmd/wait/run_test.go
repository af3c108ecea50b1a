package wait

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
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

func TestNewCmdWait(t *testing.T) {
	defaults := Limits{Timeout: 15 * time.Minute, Unknown: 10 * time.Minute}
	tests := []struct {
		name    string
		args    []string
		want    WaitOptions
		wantErr string
	}{
		{name: "defaults", args: []string{"o-1"}, want: WaitOptions{OrderID: "o-1", Limits: defaults}},
		{name: "limits", args: []string{"o-1", "--timeout", "0", "--unknown-timeout", "1m", "--poll-interval", "3s", "--amount", "499"},
			want: WaitOptions{OrderID: "o-1", Limits: Limits{Unknown: time.Minute, Poll: 3 * time.Second, Amount: upicollect.Rupees(499)}}},
		{name: "json and connection", args: []string{"o-1", "--json", "--base-url", "http://127.0.0.1:9", "--mid", "M", "--public-key", "P"},
			want: WaitOptions{OrderID: "o-1", Limits: defaults, JSON: true,
				Conn: cmdutil.ConnFlags{BaseURL: "http://127.0.0.1:9", CredFlags: cmdutil.CredFlags{MID: "M", PublicKey: "P"}}}},
		{name: "no order", args: nil, wantErr: "missing ORDER_ID"},
		{name: "two orders", args: []string{"o-1", "o-2"}, wantErr: "one ORDER_ID expected, got 2 arguments"},
		{name: "bad amount names the flag", args: []string{"o-1", "--amount", "4.999"}, wantErr: `invalid argument "4.999" for "--amount" flag`},
		{name: "bad timeout names the flag", args: []string{"o-1", "--timeout", "soon"}, wantErr: `invalid argument "soon" for "--timeout" flag`},
		{name: "no dry run", args: []string{"o-1", "--dry-run"}, wantErr: "unknown flag: --dry-run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, stdout, _ := cmdtest.Factory(nil)
			var got *WaitOptions
			cmd := NewCmdWait(f, func(o *WaitOptions) error { got = o; return nil })
			ctx, err := cmdtest.Execute(t, cmd, tt.args...)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			require.NotNil(t, got, "runF runs instead of waitRun")
			assert.Empty(t, stdout.String(), "waitRun did not run")
			assert.Same(t, f.IOStreams, got.IO)
			assert.Equal(t, ctx, got.Ctx)
			assert.Equal(t, tt.want.OrderID, got.OrderID)
			assert.Equal(t, tt.want.Limits, got.Limits)
			assert.Equal(t, tt.want.JSON, got.JSON)
			assert.Equal(t, tt.want.Conn, got.Conn)
			require.NotNil(t, got.Client)
			_, _, err = got.Client()
			require.Error(t, err, "the client is the Factory's, from the flags: no secret key here")
			assert.Contains(t, err.Error(), "UPICOLLECT_SECRET_KEY or --secret-file")
		})
	}
}

// startSandbox is a sandbox whose answers are the same on every run (a
// fixed clock) holding three intents of ₹499: o-pending, o-paid (SUCCESS,
// UTR 123456789012) and o-failed (FAIL).
func startSandbox(t *testing.T) (*sandbox.Server, map[string]string) {
	s := sandbox.Start(t, sandbox.WithClock(func() time.Time { return cmdtest.Now }), sandbox.WithSeed(1))
	c := s.Client()
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), cmdtest.RunTimeout)
	defer cancel()
	for _, id := range []string{"o-pending", "o-paid", "o-failed"} {
		_, err := c.CreatePaymentIntent(ctx, &upicollect.IntentParams{Amount: upicollect.Rupees(499), OrderID: id,
			RedirectURL: "https://shop.example/thanks", Note: "Order 42",
			Customer: upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"}})
		require.NoError(t, err)
	}
	_, err := s.SettleWith("o-paid", sandbox.Settlement{Result: sandbox.StatusSuccess, UTR: "123456789012"})
	require.NoError(t, err)
	_, err = s.SettleWith("o-failed", sandbox.Settlement{Result: sandbox.StatusFail})
	require.NoError(t, err)
	return s, cmdtest.SandboxEnv(s)
}

// run is one in-process run of `wait args`.
type run struct {
	stdout, stderr iostreams.SyncBuffer
	err            error
	code           int
	kind           string
}

// runWait runs `wait args` with env as the whole environment; setup, when
// not nil, adjusts the streams first (terminals).
func runWait(t *testing.T, ctx context.Context, env map[string]string, setup func(*iostreams.IOStreams), args ...string) *run {
	t.Helper()
	r := &run{}
	f := cmdutil.New(ctx, strings.NewReader(""), &r.stdout, &r.stderr, func(k string) string { return env[k] })
	if setup != nil {
		setup(f.IOStreams)
	}
	cmd := NewCmdWait(f, nil)
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	select {
	case r.err = <-done:
	case <-time.After(cmdtest.RunTimeout):
		t.Fatalf("wait %v did not end within %s", args, cmdtest.RunTimeout)
	}
	if r.err != nil {
		r.code, r.kind = cmdutil.Classify(ctx, r.err)
	}
	return r
}

const (
	humanPaid   = "Order    o-paid\nStatus   SUCCESS\nAmount   ₹499.00\nUTR      123456789012\nMessage  Transaction is successful\n"
	humanFailed = "Order    o-failed\nStatus   FAIL\nAmount   ₹499.00\nMessage  Transaction failed\n"
	jsonPaid    = `{"order_id":"o-paid","txn_status":"SUCCESS","amount":"499.00","utr":"123456789012","message":"Transaction is successful"}` + "\n"
)

// TestWaitRun waits for orders on a sandbox: what is printed, the exit
// code and kind, and the error's words.
func TestWaitRun(t *testing.T) {
	_, env := startSandbox(t)
	closed := closedURL(t)
	tests := []struct {
		name   string
		env    map[string]string
		args   []string
		stdout string
		code   int
		kind   string
		errMsg string // a regular expression
	}{
		{name: "paid", args: []string{"o-paid"}, stdout: humanPaid},
		{name: "paid json", args: []string{"o-paid", "--json"}, stdout: jsonPaid},
		{name: "no timeout", args: []string{"o-paid", "--timeout", "0"}, stdout: humanPaid},
		{name: "paid as ordered", args: []string{"o-paid", "--amount", "499", "--poll-interval", "1ms"}, stdout: humanPaid},
		{name: "failed exits 6", args: []string{"o-failed"}, stdout: humanFailed, code: cmdutil.ExitPaymentFailed, kind: cmdutil.KindPaymentFailed},
		{name: "paid another amount", args: []string{"o-paid", "--amount", "500"}, stdout: humanPaid,
			code: cmdutil.ExitPaymentFailed, kind: cmdutil.KindAmountMismatch,
			errMsg: `^order o-paid: paid 499\.00, but --amount is 500\.00: not paid as ordered; do not ship it$`},
		{name: "paid another amount json", args: []string{"o-paid", "--amount", "500", "--json"}, stdout: jsonPaid,
			code: cmdutil.ExitPaymentFailed, kind: cmdutil.KindAmountMismatch, errMsg: `^order o-paid: paid 499\.00, but --amount is 500\.00`},
		{name: "unknown order", args: []string{"o-none", "--unknown-timeout", "50ms"}, code: cmdutil.ExitRefused, kind: cmdutil.KindNotFound,
			errMsg: `^order o-none: not found: the service still does not know this order after 50ms \(--unknown-timeout\): a typo, or an order never created$`},
		{name: "timed out", args: []string{"o-pending", "--timeout", "1s", "--unknown-timeout", "0"}, code: cmdutil.ExitUnknown, kind: cmdutil.KindTimeout,
			errMsg: `^order o-pending: (still PENDING, waiting for the payer|no status seen) after 1s$`},
		{name: "timed out, the last check failed", env: withBase(env, closed), args: []string{"o-paid", "--timeout", "1s"},
			code: cmdutil.ExitUnknown, kind: cmdutil.KindTimeout,
			errMsg: `^order o-paid: no status seen; the last check failed: dial tcp [0-9.:]+: connect: connection refused after 1s$`},
		{name: "unauthorized", args: []string{"o-paid", "--mid", "NOSUCH"}, code: cmdutil.ExitUnauthorized, kind: cmdutil.KindUnauthorized,
			errMsg: `^upicollect: checkPaymentStatus: HTTP 401: Invalid mid$`},
		{name: "missing settings", env: map[string]string{}, args: []string{"o-paid"}, code: cmdutil.ExitUsage, kind: cmdutil.KindUsage,
			errMsg: `^missing UPICOLLECT_BASE_URL or --base-url, UPICOLLECT_MID or --mid, UPICOLLECT_PUBLIC_KEY or --public-key, ` +
				`UPICOLLECT_SECRET_KEY or --secret-file \(see 'upicollect help environment'\)$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := env
			if tt.env != nil {
				e = tt.env
			}
			r := runWait(t, context.Background(), e, nil, tt.args...)
			assert.Equal(t, tt.code, r.code, "%v", r.err)
			assert.Equal(t, tt.kind, r.kind)
			assert.Equal(t, tt.stdout, r.stdout.String())
			assert.Empty(t, r.stderr.String(), "no spinner on a stderr that is no terminal")
			if tt.errMsg != "" {
				require.Error(t, r.err)
				assert.Regexp(t, tt.errMsg, r.err.Error())
			}
		})
	}
}

// closedURL is the URL of a loopback port nothing listens on.
func closedURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	u := "http://" + l.Addr().String()
	require.NoError(t, l.Close())
	return u
}

// withBase is env with base as the service's URL.
func withBase(env map[string]string, base string) map[string]string {
	e := map[string]string{}
	for k, v := range env {
		e[k] = v
	}
	e[cmdutil.EnvBaseURL] = base
	return e
}

// TestWaitInterrupted: Ctrl-C ends a wait with what it saw so far.
func TestWaitInterrupted(t *testing.T) {
	_, env := startSandbox(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := runWait(t, ctx, env, nil, "o-pending")
	assert.Equal(t, cmdutil.ExitInterrupted, r.code)
	assert.Equal(t, cmdutil.KindInterrupted, r.kind)
	require.Error(t, r.err)
	assert.Equal(t, "order o-pending: no status seen", r.err.Error())
	assert.Empty(t, r.stdout.String())
}

// TestWaitSpinner: on a terminal, stderr shows the spinner while the wait
// runs and is cleared at its end; stdout holds the status alone.
func TestWaitSpinner(t *testing.T) {
	_, env := startSandbox(t)
	for _, id := range []string{"o-paid", "o-failed"} {
		r := runWait(t, context.Background(), env, func(ios *iostreams.IOStreams) { ios.StderrTTY = true }, id, "--poll-interval", "1ms")
		assert.Contains(t, r.stderr.String(), clearLine+"⠋ waiting for "+id+"  0:00  ")
		assert.True(t, strings.HasSuffix(r.stderr.String(), clearLine), "the spinner's line is cleared: %q", r.stderr.String())
		assert.NotEmpty(t, r.stdout.String())
	}
	r := runWait(t, context.Background(), env, func(ios *iostreams.IOStreams) { ios.StderrTTY = true }, "o-paid", "--json")
	assert.Empty(t, r.stderr.String(), "no spinner with --json")
	assert.Equal(t, jsonPaid, r.stdout.String())
}

// failingWriter refuses every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("stdout closed") }

// TestWaitStdoutFails: a final status that cannot be printed is an error.
func TestWaitStdoutFails(t *testing.T) {
	_, env := startSandbox(t)
	for _, args := range [][]string{{"o-paid"}, {"o-failed"}, {"o-paid", "--amount", "500"}} {
		f := cmdutil.New(context.Background(), strings.NewReader(""), failingWriter{}, io.Discard, func(k string) string { return env[k] })
		cmd := NewCmdWait(f, nil)
		cmd.SetArgs(args)
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		err := cmd.ExecuteContext(context.Background())
		require.Error(t, err, "%v", args)
		assert.Equal(t, "stdout closed", err.Error(), "%v", args)
	}
}

// TestStatusPrinter: with --json, a line is printed for each status that
// prints differently from the one before, and only then.
func TestStatusPrinter(t *testing.T) {
	base := upicollect.PaymentStatus{OrderID: "o-1", TxnStatus: upicollect.TxnPending, Amount: 49900, UTR: "", Message: "m"}
	changes := map[string]func(*upicollect.PaymentStatus){
		"order":   func(s *upicollect.PaymentStatus) { s.OrderID = "o-2" },
		"state":   func(s *upicollect.PaymentStatus) { s.TxnStatus = upicollect.TxnSuccess },
		"amount":  func(s *upicollect.PaymentStatus) { s.Amount = 50000 },
		"utr":     func(s *upicollect.PaymentStatus) { s.UTR = "123456789012" },
		"message": func(s *upicollect.PaymentStatus) { s.Message = "n" },
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			p := &statusPrinter{io: iostreams.New(strings.NewReader(""), &out, io.Discard, func(string) string { return "" }), jsonOut: true}
			first, same, other := base, base, base
			change(&other)
			p.seen(&first)
			p.seen(&same)
			p.seen(&other)
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			assert.Len(t, lines, 2, "the same status once, a change again: %q", out.String())
		})
	}
	var out bytes.Buffer
	p := &statusPrinter{io: iostreams.New(strings.NewReader(""), &out, io.Discard, func(string) string { return "" })}
	p.seen(&base)
	assert.Empty(t, out.String(), "without --json the poller prints nothing")
}

// TestLastCheckFailure: why the last check of a failed wait failed, from
// the network or the service; nothing when it did not fail.
func TestLastCheckFailure(t *testing.T) {
	refused := &url.Error{Op: "Post", URL: "http://127.0.0.1:9/x", Err: errors.New("dial tcp 127.0.0.1:9: connect: connection refused")}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"network", fmt.Errorf("wait: %w", refused), "dial tcp 127.0.0.1:9: connect: connection refused"},
		{"cancelled request", &url.Error{Op: "Post", URL: "u", Err: context.Canceled}, ""},
		{"request past its deadline", &url.Error{Op: "Post", URL: "u", Err: context.DeadlineExceeded}, ""},
		{"answer with a message", &upicollect.APIError{HTTPStatus: 503, Message: "down for maintenance"}, "HTTP 503: down for maintenance"},
		{"answer without a message", &upicollect.APIError{HTTPStatus: 502}, "HTTP 502"},
		{"no answer", &upicollect.APIError{Message: "context deadline exceeded"}, ""},
		{"other", errors.New("boom"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, lastCheckFailure(tt.err))
		})
	}
}

// signalWriter sends on wrote after each write.
type signalWriter struct {
	iostreams.SyncBuffer
	wrote chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	n, err := w.SyncBuffer.Write(p)
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return n, err
}

// TestSpinnerFrames: the spinner moves on to the next glyph at each tick.
func TestSpinnerFrames(t *testing.T) {
	w := &signalWriter{wrote: make(chan struct{}, 1)}
	sp := startSpinner(w, "ORD9", false)
	sp.setStatus("PENDING")
	for i := 0; i < 3; i++ { // the first frame, then two ticks
		select {
		case <-w.wrote:
		case <-time.After(cmdtest.RunTimeout):
			t.Fatal("the spinner stopped drawing")
		}
	}
	sp.stop()
	out := w.String()
	assert.Contains(t, out, clearLine+"⠙ waiting for ORD9  ")
	assert.Contains(t, out, clearLine+"⠹ waiting for ORD9  ")
}
