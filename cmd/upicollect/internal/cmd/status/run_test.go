package status

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdtest"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/sandbox"
)

// badID is an order ID the SDK refuses before any I/O: too long.
var badID = strings.Repeat("x", upicollect.MaxOrderIDLen+1)

// startSandbox is a sandbox whose answers are the same on every run (a
// fixed clock, seeded IDs) holding three orders: o-pending (a payment
// request the payer has not answered), o-paid (SUCCESS, UTR 123456789012)
// and o-failed (FAIL).
func startSandbox(t *testing.T) (*sandbox.Server, map[string]string) {
	s := sandbox.Start(t, sandbox.WithClock(func() time.Time { return cmdtest.Now }), sandbox.WithSeed(1))
	c := s.Client()
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), cmdtest.RunTimeout)
	defer cancel()
	_, err := c.CreatePaymentRequest(ctx, &upicollect.RequestParams{Amount: upicollect.Rupees(499), OrderID: "o-pending",
		VPA: "ravi@okaxis", Note: "Order 42",
		Customer: upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"}})
	require.NoError(t, err)
	for _, id := range []string{"o-paid", "o-failed"} {
		_, err := c.CreatePaymentIntent(ctx, &upicollect.IntentParams{Amount: upicollect.Rupees(499), OrderID: id,
			RedirectURL: "https://shop.example/thanks", Note: "Order 42",
			Customer: upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"}})
		require.NoError(t, err)
	}
	_, err = s.SettleWith("o-paid", sandbox.Settlement{Result: sandbox.StatusSuccess, UTR: "123456789012"})
	require.NoError(t, err)
	_, err = s.SettleWith("o-failed", sandbox.Settlement{Result: sandbox.StatusFail})
	require.NoError(t, err)
	return s, cmdtest.SandboxEnv(s)
}

// run is one in-process run of `status args` over stdin.
type run struct {
	stdout, stderr bytes.Buffer
	err            error
	code           int
	kind           string
}

// runStatus runs `status args` with env as the whole environment; setup,
// when not nil, adjusts the streams first (terminals, clock).
func runStatus(t *testing.T, ctx context.Context, env map[string]string, stdin io.Reader, setup func(*cmdutil.Factory), args ...string) *run {
	t.Helper()
	r := &run{}
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	f := cmdutil.New(ctx, stdin, &r.stdout, &r.stderr, func(k string) string { return env[k] })
	if setup != nil {
		setup(f)
	}
	cmd := NewCmdStatus(f, nil)
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	bound, cancel := context.WithTimeout(context.Background(), cmdtest.RunTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	select {
	case r.err = <-done:
	case <-bound.Done():
		t.Fatalf("status %v did not end within %s", args, cmdtest.RunTimeout)
	}
	r.code, r.kind = cmdutil.ExitOK, ""
	if r.err != nil {
		r.code, r.kind = cmdutil.Classify(ctx, r.err)
	}
	return r
}

// TestStatusRun checks single orders: what is printed and the exit code.
func TestStatusRun(t *testing.T) {
	s, env := startSandbox(t)
	tests := []struct {
		name   string
		env    map[string]string
		args   []string
		stdout string // {{BASE_URL}} and {{GO}} stand for the sandbox's URL and runtime.Version
		code   int
		kind   string
		errMsg string
	}{
		{name: "pending reads as waiting for the payer, though the service answers not found", args: []string{"o-pending"},
			stdout: "Order   o-pending\nStatus  PENDING, waiting for the payer (no payment started; a mistyped order id reads the same)\n"},
		{name: "paid", args: []string{"o-paid"},
			stdout: "Order    o-paid\nStatus   SUCCESS\nAmount   ₹499.00\nUTR      123456789012\nMessage  Transaction is successful\n"},
		{name: "paid json", args: []string{"o-paid", "--json"},
			stdout: `{"order_id":"o-paid","txn_status":"SUCCESS","amount":"499.00","utr":"123456789012","message":"Transaction is successful"}` + "\n"},
		{name: "failed exits 6 after printing", args: []string{"o-failed"}, code: cmdutil.ExitPaymentFailed, kind: cmdutil.KindPaymentFailed,
			stdout: "Order    o-failed\nStatus   FAIL\nAmount   ₹499.00\nMessage  Transaction failed\n"},
		{name: "not found", args: []string{"o-none"},
			stdout: "Order   o-none\nStatus  PENDING, waiting for the payer (no payment started; a mistyped order id reads the same)\n"},
		{name: "not found json", args: []string{"o-none", "--json"},
			stdout: `{"order_id":"o-none","txn_status":"PENDING","not_found":true,"amount":null,"utr":"","message":"Transaction not found"}` + "\n"},
		{name: "dry run", args: []string{"o-paid", "--dry-run"},
			stdout: "POST {{BASE_URL}}/v1/payments/checkPaymentStatus\nAccept: application/json\nAuthorization: Basic [REDACTED]\n" +
				"Content-Type: application/x-www-form-urlencoded\nUser-Agent: upicollect-go/" + upicollect.Version + " ({{GO}}) upicollect-cli/" +
				cmdutil.Version() + "\n\nmid=SANDBOXMID&order_id=o-paid\n\n(dry run: nothing sent)\n"},
		{name: "bad order ID", args: []string{badID}, code: cmdutil.ExitUsage, kind: cmdutil.KindValidation,
			errMsg: "checkPaymentStatus: invalid parameters: ORDER_ID: must be at most 100 bytes, got 101"},
		{name: "refused", args: []string{"o-paid", "--mid", "NOSUCH"}, code: cmdutil.ExitUnauthorized, kind: cmdutil.KindUnauthorized,
			errMsg: "checkPaymentStatus: HTTP 401: Invalid mid"},
		{name: "missing settings", env: map[string]string{}, args: []string{"o-paid"}, code: cmdutil.ExitUsage, kind: cmdutil.KindUsage,
			errMsg: "missing UPICOLLECT_BASE_URL or --base-url, UPICOLLECT_MID or --mid, UPICOLLECT_PUBLIC_KEY or --public-key, " +
				"UPICOLLECT_SECRET_KEY or --secret-file (see 'upicollect help environment')"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := env
			if tt.env != nil {
				e = tt.env
			}
			r := runStatus(t, context.Background(), e, nil, nil, tt.args...)
			assert.Equal(t, tt.code, r.code, "%v", r.err)
			assert.Equal(t, tt.kind, r.kind)
			assert.Equal(t, strings.NewReplacer("{{BASE_URL}}", s.URL(), "{{GO}}", runtime.Version()).Replace(tt.stdout), r.stdout.String())
			assert.Empty(t, r.stderr.String())
			if tt.errMsg != "" {
				require.Error(t, r.err)
				assert.Equal(t, tt.errMsg, cmdutil.ErrorMessage(NewCmdStatus(cmdutil.New(context.Background(), nil, io.Discard, io.Discard, nil), nil), r.err))
			}
		})
	}
}

// failingWriter refuses every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("stdout closed") }

// TestStatusRunStdoutFails: a status that cannot be printed is an error,
// whatever the payment's state.
func TestStatusRunStdoutFails(t *testing.T) {
	_, env := startSandbox(t)
	for _, id := range []string{"o-paid", "o-failed"} {
		f := cmdutil.New(context.Background(), strings.NewReader(""), failingWriter{}, io.Discard, func(k string) string { return env[k] })
		cmd := NewCmdStatus(f, nil)
		cmd.SetArgs([]string{id})
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		err := cmd.ExecuteContext(context.Background())
		require.Error(t, err, id)
		assert.Equal(t, "stdout closed", err.Error(), id)
	}
}

// TestNewCmdStatusRefuses: argument and flag errors, before any I/O.
func TestNewCmdStatusRefuses(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no order", nil, "missing ORDER_ID"},
		{"two orders", []string{"o-1", "o-2"}, "one ORDER_ID expected, got 2 arguments"},
		{"order and file", []string{"o-1", "--from-file", "ids.txt"}, `unknown command "o-1" for "status"`},
		{"file and dry run", []string{"--from-file", "ids.txt", "--dry-run"}, "[dry-run from-file] were all set"},
		{"bad concurrency names the flag", []string{"o-1", "--concurrency", "many"}, `invalid argument "many" for "--concurrency" flag`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := cmdutil.New(context.Background(), strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" })
			ran := false
			cmd := NewCmdStatus(f, func(*StatusOptions) error { ran = true; return nil })
			cmd.SetArgs(tt.args)
			cmd.SilenceUsage, cmd.SilenceErrors = true, true
			err := cmd.ExecuteContext(context.Background())
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.False(t, ran)
		})
	}
}

// writeIDs writes lines to a file of t's and returns its path.
func writeIDs(t *testing.T, lines ...string) string {
	path := filepath.Join(t.TempDir(), "ids.txt")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	return path
}

const (
	linePending = `{"order_id":"o-pending","txn_status":"PENDING","not_found":true,"amount":null,"utr":"","message":"Transaction not found"}`
	linePaid    = `{"order_id":"o-paid","txn_status":"SUCCESS","amount":"499.00","utr":"123456789012","message":"Transaction is successful"}`
	lineFailed  = `{"order_id":"o-failed","txn_status":"FAIL","amount":"499.00","utr":"","message":"Transaction failed"}`
	lineNone    = `{"order_id":"o-none","txn_status":"PENDING","not_found":true,"amount":null,"utr":"","message":"Transaction not found"}`
	lineBad     = `{"order_id":"` + "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" +
		`","txn_status":"","amount":null,"utr":"","message":"","error":{"kind":"validation",` +
		`"message":"checkPaymentStatus: invalid parameters: ORDER_ID: must be at most 100 bytes, got 101"}}`
)

// TestFromFile checks batches read from a file and from stdin, one at a
// time so that the lines come in the file's order.
func TestFromFile(t *testing.T) {
	_, env := startSandbox(t)
	ids := writeIDs(t, "o-pending", "", "  o-paid  ", "o-failed", "o-none")
	tests := []struct {
		name   string
		env    map[string]string
		stdin  io.Reader
		args   []string
		stdout string
		code   int
		kind   string
		errMsg string
	}{
		{name: "file", args: []string{"--from-file", ids},
			stdout: linePending + "\n" + linePaid + "\n" + lineFailed + "\n" + lineNone + "\n"},
		{name: "stdin", stdin: strings.NewReader("o-paid\n\no-none\n"), args: []string{"--from-file", "-"},
			stdout: linePaid + "\n" + lineNone + "\n"},
		{name: "an order not checked sets the exit code", stdin: strings.NewReader("o-paid\n" + badID + "\no-none\n"), args: []string{"--from-file", "-"},
			stdout: linePaid + "\n" + lineBad + "\n" + lineNone + "\n", code: cmdutil.ExitUsage, kind: cmdutil.KindValidation},
		{name: "unauthorized stops the batch", args: []string{"--from-file", ids, "--mid", "NOSUCH"},
			stdout: `{"order_id":"o-pending","txn_status":"","amount":null,"utr":"","message":"","error":{"kind":"unauthorized",` +
				`"message":"checkPaymentStatus: HTTP 401: Invalid mid"}}` + "\n",
			code: cmdutil.ExitUnauthorized, kind: cmdutil.KindUnauthorized},
		{name: "stdin fails", stdin: io.MultiReader(strings.NewReader("o-paid\n"), iotest.ErrReader(errors.New("disk on fire"))),
			args: []string{"--from-file", "-"}, stdout: linePaid + "\n", code: cmdutil.ExitFailure, kind: cmdutil.KindFailure,
			errMsg: "--from-file: disk on fire"},
		{name: "no such file", args: []string{"--from-file", filepath.Join(t.TempDir(), "none.txt")}, code: cmdutil.ExitUsage,
			kind: cmdutil.KindUsage, errMsg: "--from-file: open "},
		{name: "missing settings", env: map[string]string{}, args: []string{"--from-file", ids}, code: cmdutil.ExitUsage,
			kind: cmdutil.KindUsage, errMsg: "missing UPICOLLECT_BASE_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := env
			if tt.env != nil {
				e = tt.env
			}
			r := runStatus(t, context.Background(), e, tt.stdin, nil, append(tt.args, "--concurrency", "1")...)
			assert.Equal(t, tt.code, r.code, "%v", r.err)
			assert.Equal(t, tt.kind, r.kind)
			assert.Equal(t, tt.stdout, r.stdout.String())
			assert.Empty(t, r.stderr.String(), "no progress drawn on a stderr that is no terminal")
			if tt.errMsg != "" {
				require.Error(t, r.err)
				assert.Contains(t, r.err.Error(), tt.errMsg)
			}
		})
	}
}

// TestFromFileInterrupted: Ctrl-C ends a batch that waits for a line on
// a terminal; it says not every order was checked.
func TestFromFileInterrupted(t *testing.T) {
	_, env := startSandbox(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := runStatus(t, ctx, env, pr, nil, "--from-file", "-")
	assert.Equal(t, cmdutil.ExitInterrupted, r.code)
	assert.Equal(t, cmdutil.KindInterrupted, r.kind)
	require.Error(t, r.err)
	assert.Equal(t, "not every order was checked", r.err.Error())
	assert.Empty(t, r.stdout.String())
}

// stepClock is a clock that moves on by step at every reading.
func stepClock(step time.Duration) func() time.Time {
	t := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	return func() time.Time {
		now := t
		t = t.Add(step)
		return now
	}
}

// TestFromFileProgress: on a terminal, stderr shows the progress of a
// batch, redrawn at most every progressEvery by the streams' clock, and a
// summary line at the end; sharing the terminal with stdout, the bar
// makes way for each JSON line.
func TestFromFileProgress(t *testing.T) {
	_, env := startSandbox(t)
	ids := writeIDs(t, "o-pending", "", badID, "o-paid")
	const cl = clearLine
	tests := []struct {
		name      string
		stdin     io.Reader
		from      string
		stdoutTTY bool
		stderr    string
	}{
		{name: "file", from: ids, stderr: cl + "[--------------------] 0/3 checked, 0 failed, -/s" +
			// +50ms: 1 done, too soon to redraw; +100ms: 2 done, redrawn; +150ms: the last one, always drawn
			cl + "[#############-------] 2/3 checked, 1 failed, 20.0/s" +
			cl + "[####################] 3/3 checked, 1 failed, 20.0/s" +
			cl + "3 checked, 1 failed, 15.0/s\n"},
		{name: "file on stdout's terminal", from: ids, stdoutTTY: true, stderr: cl + "[--------------------] 0/3 checked, 0 failed, -/s" +
			cl + cl + "[######--------------] 1/3 checked, 0 failed, 20.0/s" +
			cl + cl + "[#############-------] 2/3 checked, 1 failed, 20.0/s" +
			cl + cl + "[####################] 3/3 checked, 1 failed, 20.0/s" +
			cl + "3 checked, 1 failed, 15.0/s\n"},
		{name: "stdin: no total", stdin: strings.NewReader("o-pending\n" + badID + "\no-paid\n"), from: "-",
			stderr: cl + "0 checked, 0 failed, -/s" + cl + "2 checked, 1 failed, 20.0/s" + cl + "3 checked, 1 failed, 15.0/s\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runStatus(t, context.Background(), env, tt.stdin, func(f *cmdutil.Factory) {
				f.IOStreams.StderrTTY, f.IOStreams.StdoutTTY = true, tt.stdoutTTY
				f.IOStreams.Now = stepClock(50 * time.Millisecond)
			}, "--from-file", tt.from, "--concurrency", "1")
			assert.Equal(t, cmdutil.ExitUsage, r.code, "%v", r.err)
			assert.Equal(t, linePending+"\n"+lineBad+"\n"+linePaid+"\n", r.stdout.String())
			assert.Equal(t, tt.stderr, r.stderr.String())
		})
	}
}
