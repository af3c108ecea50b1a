package reconcile

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdtest"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/webhook"
	"github.com/upicollect/upicollect-go/sandbox"
)

// runEnv is a real sandbox and a real SQLite ledger for `reconcile run`.
type runEnv struct {
	s   *sandbox.Server
	dir string
	dsn string
	env map[string]string
}

func newRunEnv(t *testing.T) *runEnv {
	t.Helper()
	s := sandbox.Start(t)
	dir := t.TempDir()
	re := &runEnv{s: s, dir: dir, dsn: "sqlite:" + filepath.Join(dir, "ledger.db"), env: cmdtest.SandboxEnv(s)}
	lo, _ := testLedger(nil)
	lo.Create = true
	_, closeDB, err := lo.openStore(re.dsn, false)
	require.NoError(t, err)
	closeDB()
	return re
}

// order creates an intent of rupees in the sandbox, tracks it in the
// ledger as created an hour before cmdtest.Now (so due now), and settles it
// as result; it returns the order's UTR.
func (re *runEnv) order(t *testing.T, id string, rupees int64, result string) string {
	t.Helper()
	ctx := context.Background()
	_, err := re.s.Client().CreatePaymentIntent(ctx, &upicollect.IntentParams{OrderID: id, Amount: upicollect.Rupees(rupees),
		RedirectURL: "https://shop.example/done", Note: "n", Customer: upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "+91 98765-43210"}})
	require.NoError(t, err)
	if result != "" {
		_, err = re.s.SettleWith(id, sandbox.Settlement{Result: result})
		require.NoError(t, err)
	}
	f, _, _ := testFactory(nil)
	require.NoError(t, cmdtest.ExecuteIn(ctx, NewCmdTrack(f, nil), id, "--amount", strconv.FormatInt(rupees, 10),
		"--created", cmdtest.Now.Add(-time.Hour).Format(time.RFC3339), "--dsn", re.dsn))
	o, _ := re.s.Order(id)
	return o.UTR
}

// run runs `reconcile run` in ctx with the ledger and the sandbox.
func (re *runEnv) run(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	f, out, errOut := testFactory(re.env)
	err = cmdtest.ExecuteIn(ctx, NewCmdRun(f, nil), append([]string{"--dsn", re.dsn}, args...)...)
	return out.String(), errOut.String(), err
}

// TestNewCmdRun: the flags land in RunOptions, with their defaults.
func TestNewCmdRun(t *testing.T) {
	// In a directory of the test's own: a mutant that runs the command
	// instead of runF must not leave a ledger in the package.
	dsnA := "sqlite:" + filepath.Join(t.TempDir(), "a.db")
	f, _, _ := testFactory(map[string]string{envDSN: dsnA})
	var got *RunOptions
	require.NoError(t, cmdtest.ExecuteIn(context.Background(), NewCmdRun(f, func(o *RunOptions) error { got = o; return nil })))
	require.NotNil(t, got)
	assert.Equal(t, defaultDeliverTimeout, got.DeliverTimeout)
	assert.Equal(t, 30*time.Second, got.Interval)
	assert.False(t, got.Once)
	assert.Empty(t, got.Deliver)
	assert.Empty(t, got.DSN, "the environment is read by the run")
	assert.NotNil(t, got.Client)
	assert.NotNil(t, got.ReadSecretFile)
	assert.NotNil(t, got.Ctx)

	f, _, _ = testFactory(nil)
	require.NoError(t, cmdtest.ExecuteIn(context.Background(), NewCmdRun(f, func(o *RunOptions) error { got = o; return nil }),
		"--dsn", dsnA, "--create", "--deliver", "exec:true", "--deliver-timeout", "5s", "--webhook-secret-file", "s.txt",
		"--once", "--interval", "2s", "--json", "--base-url", "http://127.0.0.1:1", "--mid", "M1"))
	assert.Equal(t, dsnA, got.DSN)
	assert.True(t, got.Create)
	assert.Equal(t, "exec:true", got.Deliver)
	assert.Equal(t, 5*time.Second, got.DeliverTimeout)
	assert.Equal(t, "s.txt", got.WebhookSecretFile)
	assert.True(t, got.Once)
	assert.Equal(t, 2*time.Second, got.Interval)
	assert.True(t, got.JSON)
	assert.Equal(t, "http://127.0.0.1:1", got.Conn.BaseURL)
	assert.Equal(t, "M1", got.Conn.MID)
	c, _, err := got.Client()
	require.Error(t, err, "no keys: the client is built from the flags when the run asks")
	assert.Nil(t, c)

	assert.Error(t, cmdtest.ExecuteIn(context.Background(), NewCmdRun(f, func(*RunOptions) error { t.Error("ran"); return nil }), "extra"))
}

// TestRunRefusals: run checks its flags before any I/O; each refusal is
// a usage error saying what to give. Values at the edges pass on to the
// next check (here: the ledger, which is missing).
func TestRunRefusals(t *testing.T) {
	secretFile := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secretFile, []byte("whsec_file\n"), 0o600))
	const noLedger = "missing UPICOLLECT_RECONCILE_DSN, --dsn or --dsn-file"
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"no deliver", nil, nil, "run needs --deliver exec:COMMAND or --deliver https://URL: every event it records must reach your application, never only this terminal"},
		{"zero deliver timeout", nil, []string{"--deliver", "exec:true", "--deliver-timeout", "0s"}, "--deliver-timeout 0s: want more than 0 and at most 10m0s"},
		{"negative deliver timeout", nil, []string{"--deliver", "exec:true", "--deliver-timeout", "-1s"}, "--deliver-timeout -1s: want more than 0 and at most 10m0s"},
		{"deliver timeout too long", nil, []string{"--deliver", "exec:true", "--deliver-timeout", "10m0.001s"}, "--deliver-timeout 10m0.001s: want more than 0 and at most 10m0s"},
		{"longest deliver timeout", nil, []string{"--deliver", "exec:true", "--deliver-timeout", "10m"}, noLedger},
		{"shortest deliver timeout", nil, []string{"--deliver", "exec:true", "--deliver-timeout", "1ns"}, noLedger},
		{"zero interval", nil, []string{"--deliver", "exec:true", "--interval", "0s"}, "--interval 0s: want more than 0"},
		{"negative interval", nil, []string{"--deliver", "exec:true", "--interval", "-1s"}, "--interval -1s: want more than 0"},
		{"shortest interval", nil, []string{"--deliver", "exec:true", "--interval", "1ns"}, noLedger},
		{"empty command", nil, []string{"--deliver", "exec:  "}, "--deliver exec:COMMAND: the command is empty"},
		{"unknown delivery", nil, []string{"--deliver", "ftp://h/x"}, "--deliver: want exec:COMMAND or https://URL"},
		{"upper-case EXEC", nil, []string{"--deliver", "EXEC:true"}, "--deliver: want exec:COMMAND or https://URL"},
		{"webhook without secret", nil, []string{"--deliver", "https://shop.example/hook"},
			"--deliver https://… signs each delivery: set UPICOLLECT_WEBHOOK_SECRET or --webhook-secret-file FILE"},
		{"webhook secret file missing", nil, []string{"--deliver", "https://shop.example/hook", "--webhook-secret-file", secretFile + ".gone"},
			"--webhook-secret-file: open " + secretFile + ".gone: no such file or directory"},
		{"webhook over http elsewhere", map[string]string{envWebhookSecret: "whsec_env"}, []string{"--deliver", "http://shop.example/hook"}, "https"},
		{"webhook, secret from the environment", map[string]string{envWebhookSecret: "whsec_env"}, []string{"--deliver", "HTTPS://shop.example/hook"}, noLedger},
		{"webhook, secret from a file", nil, []string{"--deliver", "https://shop.example/hook", "--webhook-secret-file", secretFile}, noLedger},
		{"loopback http webhook", map[string]string{envWebhookSecret: "whsec_env"}, []string{"--deliver", "http://127.0.0.1:1/hook"}, noLedger},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{cmdutil.EnvBaseURL: "http://127.0.0.1:1", cmdutil.EnvMID: "M", cmdutil.EnvPublicKey: "pk", cmdutil.EnvSecretKey: "sk_secret"}
			for k, v := range tt.env {
				env[k] = v
			}
			f, stdout, _ := testFactory(env)
			err := cmdtest.ExecuteIn(context.Background(), NewCmdRun(f, nil), tt.args...)
			require.Error(t, err)
			if tt.want == "https" {
				assert.Contains(t, err.Error(), tt.want)
			} else {
				assert.Equal(t, tt.want, err.Error())
			}
			code, _ := exitOf(t, err)
			assert.Equal(t, cmdutil.ExitUsage, code)
			assert.Empty(t, stdout.String())
		})
	}
}

// TestRunOnce sweeps a real ledger against a real sandbox with one step:
// each event is delivered to the command, with its JSON on stdin and its
// names in the environment, then printed; a summary line ends the step.
func TestRunOnce(t *testing.T) {
	re := newRunEnv(t)
	utr := re.order(t, "ORD-PAID", 499, sandbox.StatusSuccess)
	re.order(t, "ORD-FAIL", 10, sandbox.StatusFail)
	out := filepath.Join(re.dir, "ORD-PAID")
	stdout, stderr, err := re.run(context.Background(), "--once", "--deliver",
		`exec:cat > `+re.dir+`/$UPICOLLECT_ORDER_ID.json; echo "$UPICOLLECT_ORDER_ID $UPICOLLECT_RESULT $UPICOLLECT_DELIVERY_ID ${UPICOLLECT_SECRET_KEY:-none}" > `+re.dir+`/$UPICOLLECT_ORDER_ID.env`)
	require.NoError(t, err, stderr)
	lines := strings.SplitAfter(stdout, "\n")
	require.Len(t, lines, 4, stdout) // three lines and the empty rest
	assert.ElementsMatch(t, []string{"failed    ORD-FAIL  expected ₹10.00\n", "paid      ORD-PAID  expected ₹499.00  UTR " + utr + "\n"}, lines[:2],
		"the events, in the order their deliveries ended")
	assert.Equal(t, "step 2026-11-26T10:00:00Z: checked 2, paid 1, failed 1, late_paid 0, expired 0, mismatch 0, pending 0, errors 0; next due 2026-11-26T11:00:00Z\n", lines[2])
	assert.Empty(t, stderr)

	body, err := os.ReadFile(out + ".json")
	require.NoError(t, err)
	id := webhook.DeliveryID("ORD-PAID", reconcile.Paid)
	var d webhook.Delivery
	require.NoError(t, json.Unmarshal(body, &d))
	assert.Equal(t, webhook.Delivery{ID: id, OrderID: "ORD-PAID", Result: reconcile.Paid, Expected: upicollect.Rupees(499),
		Paid: upicollect.Rupees(499), UTR: utr, At: cmdtest.Now}, d)
	assert.Equal(t, 1, strings.Count(string(body), "\n"), "one line")
	env, err := os.ReadFile(out + ".env")
	require.NoError(t, err)
	assert.Equal(t, "ORD-PAID paid "+id+" none\n", string(env), "no secret of this process reaches the command")

	stdout, _, err = re.run(context.Background(), "--once", "--json", "--deliver", "exec:false")
	require.NoError(t, err, "nothing due: nothing to deliver")
	assert.Equal(t, `{"step":"2026-11-26T10:00:00Z","checked":0,"paid":0,"failed":0,"late_paid":0,"expired":0,"mismatch":0,"pending":0,"errors":0,"next_due":"2026-11-26T11:00:00Z"}`+"\n", stdout)
}

// TestRunDeliveryFails: an event whose command fails is not recorded:
// run --once exits 1 quoting the command's stderr, and the event comes
// again at the next run, which delivers it.
func TestRunDeliveryFails(t *testing.T) {
	re := newRunEnv(t)
	utr := re.order(t, "ORD-1", 499, sandbox.StatusSuccess)
	stdout, _, err := re.run(context.Background(), "--once", "--deliver", "exec:echo '  no\tdatabase  ' >&2; exit 3")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `exec delivery failed (exit status 3; stderr: "no\tdatabase")`)
	code, _ := exitOf(t, err)
	assert.Equal(t, cmdutil.ExitFailure, code)
	assert.Regexp(t, `^step 2026-11-26T10:00:00Z: checked 1, paid 0, .* errors 1; next due `, stdout)

	re.order(t, "ORD-2", 10, sandbox.StatusFail)
	_, _, err = re.run(context.Background(), "--once", "--deliver", "exec:exit 4")
	require.Error(t, err, "ORD-2 is due, ORD-1 waits for its backoff")
	assert.Contains(t, err.Error(), "exec delivery failed (exit status 4)")
	assert.NotContains(t, err.Error(), "stderr")

	f, _, _ := testFactory(re.env)
	f.IOStreams.Now = func() time.Time { return cmdtest.Now.Add(time.Hour) } // past the ledger's backoff
	out := &strings.Builder{}
	f.IOStreams.Out = out
	require.NoError(t, cmdtest.ExecuteIn(context.Background(), NewCmdRun(f, nil), "--dsn", re.dsn, "--once", "--deliver", "exec:cat >/dev/null"))
	assert.Contains(t, out.String(), "paid      ORD-1  expected ₹499.00  UTR "+utr+"\n", "delivered at last")
}

// TestRunDeliveryTimeout: a command that runs past --deliver-timeout is
// killed with its whole process group, and says so.
func TestRunDeliveryTimeout(t *testing.T) {
	re := newRunEnv(t)
	re.order(t, "ORD-1", 499, sandbox.StatusSuccess)
	pidFile := filepath.Join(re.dir, "child.pid")
	_, _, err := re.run(context.Background(), "--once", "--deliver-timeout", "200ms", "--deliver",
		"exec:sleep 60 & echo $! > "+pidFile+"; echo started >&2; wait")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `exec delivery failed (killed after --deliver-timeout 200ms; stderr: "started")`)
	pid := readPID(t, pidFile)
	assert.True(t, awaitGone(t, pid), "the shell's child %d was killed too", pid)
}

// gone reports whether process pid has ended (a zombie has).
func gone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X")
}

// TestRunWebhook delivers an event as a signed webhook to a receiver on
// loopback, signed with the secret of the file over the environment's,
// which the run never prints.
func TestRunWebhook(t *testing.T) {
	re := newRunEnv(t)
	utr := re.order(t, "ORD-1", 499, sandbox.StatusSuccess)
	var mu sync.Mutex
	var got []*webhook.Delivery
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, err := webhook.Receive(r, []byte("whsec_from_file"), time.Hour)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		mu.Lock()
		got = append(got, d)
		mu.Unlock()
	}))
	defer hook.Close()
	secretFile := filepath.Join(re.dir, "secret")
	require.NoError(t, os.WriteFile(secretFile, []byte("whsec_from_file\n"), 0o600))
	re.env[envWebhookSecret] = "whsec_from_env"

	stdout, stderr, err := re.run(context.Background(), "--once", "--json", "--deliver", hook.URL+"/hook", "--webhook-secret-file", secretFile)
	require.NoError(t, err, stderr)
	mu.Lock()
	require.Len(t, got, 1)
	assert.Equal(t, "ORD-1", got[0].OrderID)
	assert.Equal(t, utr, got[0].UTR)
	mu.Unlock()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 2, stdout)
	assert.Equal(t, `{"event":"paid","order_id":"ORD-1","expected":"499.00","paid":"499.00","txn_status":"SUCCESS","utr":"`+utr+`","at":"2026-11-26T10:00:00Z"}`, lines[0])
	assert.True(t, strings.HasPrefix(lines[1], `{"step":"2026-11-26T10:00:00Z","checked":1,"paid":1,`), lines[1])

	f, stdout2, _ := testFactory(map[string]string{envWebhookSecret: "whsec_from_env"})
	rf := &RunOptions{ledgerOptions: newLedgerOptions(f)}
	secret, err := rf.webhookSecret()
	require.NoError(t, err)
	assert.Equal(t, "whsec_from_env", string(secret))
	_, err = rf.IO.Out.Write([]byte("whsec_from_env"))
	require.NoError(t, err)
	assert.Equal(t, "[REDACTED]", stdout2.String(), "the secret is one of the run's secrets")
}

// TestRunUntilInterrupted: without --once run steps until its context
// ends, printing each step's errors on stderr and going on; the end is an
// interruption (exit 130).
func TestRunUntilInterrupted(t *testing.T) {
	re := newRunEnv(t)
	re.order(t, "ORD-1", 499, sandbox.StatusSuccess)
	pr, pw := io.Pipe()
	errOut := &iostreams.SyncBuffer{}
	f, _, _ := testFactory(re.env)
	f.IOStreams.Out, f.IOStreams.ErrOut = pw, errOut
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- cmdtest.ExecuteIn(ctx, NewCmdRun(f, nil), "--dsn", re.dsn, "--deliver", "exec:echo refused >&2; exit 1", "--interval", "1h")
		_ = pw.Close()
	}()
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(pr).ReadString('\n')
		lines <- line
		_, _ = io.Copy(io.Discard, pr)
	}()
	select {
	case line := <-lines:
		assert.True(t, strings.HasPrefix(line, "step 2026-11-26T10:00:00Z: checked 1, paid 0,"), line)
	case err := <-done:
		t.Fatalf("run ended: %v", err)
	case <-time.After(cmdtest.RunTimeout):
		t.Fatal("no step within 30s")
	}
	require.Eventually(t, func() bool { return strings.Contains(errOut.String(), "refused") }, 10*time.Second, 10*time.Millisecond)
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(cmdtest.RunTimeout):
		t.Fatal("run did not stop within 30s")
	}
	require.Error(t, err)
	assert.Equal(t, "sweeper stopped", err.Error())
	code, kind := exitOf(t, err)
	assert.Equal(t, []any{cmdutil.ExitInterrupted, cmdutil.KindInterrupted}, []any{code, kind})
	assert.True(t, strings.HasPrefix(errOut.String(), "upicollect: "), errOut.String())
	assert.Contains(t, errOut.String(), `exec delivery failed (exit status 1; stderr: "refused")`)
}

// TestPrintStep: a step's summary for a person, and as JSON; "none" when
// nothing will be due.
func TestPrintStep(t *testing.T) {
	stats := reconcile.Stats{Checked: 9, Paid: 1, Failed: 2, LatePaid: 3, Expired: 4, Mismatch: 5, Pending: 6, Errors: 7}
	tests := []struct {
		json bool
		next time.Time
		want string
	}{
		{false, time.Time{}, "step 2026-11-26T10:00:00Z: checked 9, paid 1, failed 2, late_paid 3, expired 4, mismatch 5, pending 6, errors 7; next due none\n"},
		{false, cmdtest.Now.Add(time.Minute), "step 2026-11-26T10:00:00Z: checked 9, paid 1, failed 2, late_paid 3, expired 4, mismatch 5, pending 6, errors 7; next due 2026-11-26T10:01:00Z\n"},
		{true, time.Time{}, `{"step":"2026-11-26T10:00:00Z","checked":9,"paid":1,"failed":2,"late_paid":3,"expired":4,"mismatch":5,"pending":6,"errors":7,"next_due":null}` + "\n"},
	}
	for _, tt := range tests {
		f, stdout, _ := testFactory(nil)
		o := &RunOptions{ledgerOptions: newLedgerOptions(f)}
		o.JSON = tt.json
		s := stats
		s.NextDue = tt.next
		require.NoError(t, o.printStep(cmdtest.Now, s))
		assert.Equal(t, tt.want, stdout.String())
	}
}

// TestBoundedBufferEdges: what a delivery command's stderr adds to the
// log: nothing for blanks, the count of what was dropped even when
// nothing was kept.
func TestBoundedBufferEdges(t *testing.T) {
	tests := []struct {
		max    int
		writes []string
		want   string
	}{
		{4, []string{" \n\t"}, ""},
		{4, []string{"abcd"}, `"abcd"`},
		{4, []string{"ab", "cd"}, `"abcd"`},
		{4, []string{"ab", "cde"}, `"abcd" (1 more bytes)`},
		{0, []string{"abc"}, `"" (3 more bytes)`},
		{2, []string{"\x1b[2J"}, `"\x1b[" (2 more bytes)`},
	}
	for _, tt := range tests {
		b := &boundedBuffer{max: tt.max}
		for _, w := range tt.writes {
			n, err := b.Write([]byte(w))
			require.NoError(t, err)
			assert.Equal(t, len(w), n)
		}
		assert.Equal(t, tt.want, b.String(), "%q", tt.writes)
	}
}

// TestRunDeliveryMayTakeItsTimeout: a delivery may use the whole of
// --deliver-timeout: the sweeper's own bound on it is longer.
func TestRunDeliveryMayTakeItsTimeout(t *testing.T) {
	re := newRunEnv(t)
	re.order(t, "ORD-1", 499, sandbox.StatusSuccess)
	stdout, stderr, err := re.run(context.Background(), "--once", "--deliver-timeout", "5.1s", "--deliver", "exec:sleep 1")
	require.NoError(t, err, stderr)
	assert.True(t, strings.HasPrefix(stdout, "paid      ORD-1  expected ₹499.00"), stdout)
}
