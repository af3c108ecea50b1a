package main

import (
	"context"
	"encoding/json"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/root"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
	"github.com/upicollect/upicollect-go/reconcile/webhook"
	"github.com/upicollect/upicollect-go/sandbox"
)

// cliAt runs args in-process as cli does, on a clock that says now: a
// sweeper's steps and a track's default creation time.
func cliAt(t *testing.T, now time.Time, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	var stdout, stderr iostreams.SyncBuffer
	a := newFactory(ctx, strings.NewReader(""), envFunc(env), &stdout, &stderr)
	a.IOStreams.Now = func() time.Time { return now }
	code := root.Execute(a, args)
	require.NoError(t, ctx.Err(), "run %v did not end within %s", args, cliTimeout)
	return result{stdout.String(), stderr.String(), code}
}

// ledger is a SQLite ledger in a test's folder, with orders of a sandbox
// tracked by the CLI's own track command.
type ledger struct {
	path string
	dsn  string
	env  []string // the sandbox's credentials
}

// newLedger tracks each id at 499 rupees, created a minute before now;
// each is created at the sandbox first, as a shop would.
func newLedger(t *testing.T, s *sandbox.Server, now time.Time, ids ...string) *ledger {
	path := filepath.Join(t.TempDir(), "orders.db")
	l := &ledger{path: path, dsn: "sqlite:" + path, env: sandboxEnv(s)}
	created := now.Add(-time.Minute).Format(time.RFC3339)
	for _, id := range ids {
		require.Equal(t, exitOK, cli(t, l.env, "", intentArgs(id)...).code)
		r := cli(t, nil, "", "reconcile", "track", id, "--amount", "499", "--created", created, "--dsn", l.dsn, "--create")
		require.Equal(t, exitOK, r.code, r.output())
	}
	return l
}

// run is `reconcile run --once` over the ledger at now.
func (l *ledger) run(t *testing.T, now time.Time, args ...string) result {
	t.Helper()
	return cliAt(t, now, l.env, append([]string{"reconcile", "run", "--once", "--dsn", l.dsn}, args...)...)
}

// TestReconcileNeedsASubcommand: the old `reconcile --once`, which
// recorded events nobody received, is gone: reconcile alone explains, and
// its old flags are refused.
func TestReconcileNeedsASubcommand(t *testing.T) {
	for _, args := range [][]string{{"reconcile"}, {"reconcile", "--dsn", "sqlite:x.db", "--once"}, {"reconcile", "sweep"}} {
		r := cli(t, nil, "", args...)
		assert.Equal(t, exitUsage, r.code, "%v: %s", args, r.output())
	}
	r := cli(t, nil, "", "reconcile")
	assert.Contains(t, r.stderr, "reconcile needs a command: run, track, show, list, serve or consumers")
}

// TestReconcileRunRefusesWithoutDeliver: run without --deliver exits 2,
// says why, and leaves the ledger as it was: the paid order's event is
// delivered by the next run that has somewhere to deliver it.
func TestReconcileRunRefusesWithoutDeliver(t *testing.T) {
	s := sandbox.Start(t)
	now := time.Now()
	l := newLedger(t, s, now, "rec-paid")
	pay(t, s, "rec-paid", "SUCCESS", "123412341234")
	before := ledgerRows(t, l.path)

	r := l.run(t, now)
	assert.Equal(t, exitUsage, r.code, r.output())
	assert.Contains(t, r.stderr, "run needs --deliver exec:COMMAND or --deliver https://URL")
	assert.Empty(t, r.stdout)
	assert.Equal(t, before, ledgerRows(t, l.path), "the ledger is untouched")

	out := filepath.Join(t.TempDir(), "deliveries")
	r = l.run(t, now, "--deliver", "exec:cat >> "+out)
	require.Equal(t, exitOK, r.code, r.output())
	assert.Len(t, deliveries(t, out), 1, "the event was still there to deliver")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(b), "\n"), "the JSON comes as one line")
}

// TestReconcileRunExecOnce: two runs over one ledger deliver the paid
// order's event once: the command's side effect (a line appended to a
// file) happens once, with the Delivery JSON it got on stdin.
func TestReconcileRunExecOnce(t *testing.T) {
	s := sandbox.Start(t)
	now := time.Now()
	l := newLedger(t, s, now, "rec-paid", "rec-pending")
	pay(t, s, "rec-paid", "SUCCESS", "123412341234")
	out := filepath.Join(t.TempDir(), "deliveries")
	deliver := "exec:cat >> " + out + "; echo >> " + out

	r := l.run(t, now, "--deliver", deliver)
	require.Equal(t, exitOK, r.code, r.output())
	assert.Contains(t, r.stdout, "paid      rec-paid  expected ₹499.00  UTR 123412341234\n")
	assert.Regexp(t, `step \S+: checked 2, paid 1, failed 0, late_paid 0, expired 0, mismatch 0, pending 1, errors 0; next due \S+`, r.stdout)
	r = l.run(t, now.Add(time.Minute), "--deliver", deliver)
	require.Equal(t, exitOK, r.code, r.output())
	assert.NotContains(t, r.stdout, "rec-paid", "delivered once")

	got := deliveries(t, out)
	require.Len(t, got, 1, "the command ran once over two runs")
	d := got[0]
	assert.Equal(t, "rec-paid", d["order_id"])
	assert.Equal(t, "paid", d["result"])
	assert.EqualValues(t, 49900, d["expected_paise"])
	assert.Equal(t, "499.00", d["expected"])
	assert.EqualValues(t, 49900, d["paid_paise"])
	assert.Equal(t, "123412341234", d["utr"])
	assert.Regexp(t, `^evt_[0-9a-f]{32}$`, d["id"])
}

// TestReconcileRunExecFails: a command that exits 1 leaves the event
// undelivered, its stderr (escaped) in the log, and run exits 1; the next
// run delivers it, with the same delivery id.
func TestReconcileRunExecFails(t *testing.T) {
	s := sandbox.Start(t)
	now := time.Now()
	l := newLedger(t, s, now, "rec-paid")
	pay(t, s, "rec-paid", "SUCCESS", "123412341234")
	dir := t.TempDir()
	tried, out := filepath.Join(dir, "tried"), filepath.Join(dir, "deliveries")

	r := l.run(t, now, "--deliver", `exec:cat >> `+tried+`; echo >> `+tried+`; printf 'database is down\033[2J\n' >&2; exit 1`)
	assert.Equal(t, exitFailure, r.code, r.output())
	assert.Contains(t, r.stderr, `exec delivery failed (exit status 1; stderr: "database is down\x1b[2J")`)
	assert.NotContains(t, r.stderr, "\033", "the command's stderr is escaped")
	assert.Contains(t, r.stdout, "errors 1")
	assert.NotContains(t, r.stdout, "paid      rec-paid", "not delivered, not printed as delivered")

	r = l.run(t, now.Add(10*time.Minute), "--deliver", "exec:cat >> "+out+"; echo >> "+out)
	require.Equal(t, exitOK, r.code, r.output())
	assert.Contains(t, r.stdout, "paid      rec-paid")
	first, second := deliveries(t, tried), deliveries(t, out)
	require.Len(t, first, 1)
	require.Len(t, second, 1, "the event came again, and was delivered")
	assert.Equal(t, first[0]["id"], second[0]["id"], "every delivery of one event has the same id")
}

// TestReconcileRunsUntilInterrupted: without --once run steps until
// Ctrl-C, which exits 130 as every command does.
func TestReconcileRunsUntilInterrupted(t *testing.T) {
	s := sandbox.Start(t)
	l := newLedger(t, s, time.Now(), "rec-paid", "rec-pending")
	pay(t, s, "rec-paid", "SUCCESS", "123412341234")
	bg := runInBackground(l.env, strings.NewReader(""), "reconcile", "run", "--dsn", l.dsn, "--deliver", "exec:cat > /dev/null", "--interval", "1h")
	line := ""
	for !strings.HasPrefix(line, "step ") {
		var err error
		line, err = bg.stdout.ReadString('\n')
		require.NoError(t, err, bg.stderr.String())
	}
	assert.Contains(t, line, "checked 2, paid 1", "the first step ran and delivered")
	code, _ := bg.interrupt(t)
	assert.Equal(t, exitInterrupted, code)
	assert.Contains(t, bg.stderr.String(), "upicollect: interrupted: sweeper stopped")
}

// TestReconcileRunExecTimeout: a command still running at
// --deliver-timeout is killed, with its children, and the event is left
// for later.
func TestReconcileRunExecTimeout(t *testing.T) {
	s := sandbox.Start(t)
	now := time.Now()
	l := newLedger(t, s, now, "rec-paid")
	pay(t, s, "rec-paid", "SUCCESS", "123412341234")
	r := l.run(t, now, "--deliver", "exec:sleep 600 & wait", "--deliver-timeout", "100ms")
	assert.Equal(t, exitFailure, r.code, r.output())
	assert.Contains(t, r.stderr, "killed after --deliver-timeout 100ms")
}

// TestReconcileRunUsage: flags are checked before anything is opened.
func TestReconcileRunUsage(t *testing.T) {
	tests := []struct {
		args []string
		env  string // added to the environment
		want string
	}{
		{[]string{"--deliver", "exec:"}, "", "the command is empty"},
		{[]string{"--deliver", "ftp://x"}, "", "want exec:COMMAND or https://URL"},
		{[]string{"--deliver", "exec:true", "--deliver-timeout", "0s"}, "", "--deliver-timeout 0s"},
		{[]string{"--deliver", "https://127.0.0.1:1/hook"}, "", "set UPICOLLECT_WEBHOOK_SECRET or --webhook-secret-file"},
		{[]string{"--deliver", "http://shop.example/hook"}, envWebhookSecret + "=whsec-usage", "endpoint"},
		{[]string{"--deliver", "exec:true"}, "", "missing UPICOLLECT_RECONCILE_DSN, --dsn or --dsn-file"},
	}
	env := []string{envBaseURL + "=http://127.0.0.1:1", envMID + "=m", envPublicKey + "=pk", envSecretKey + "=sk"}
	for _, tt := range tests {
		r := cli(t, append(env, tt.env), "", append([]string{"reconcile", "run", "--once"}, tt.args...)...)
		assert.Equal(t, exitUsage, r.code, "%v: %s", tt.args, r.output())
		assert.Contains(t, r.stderr, tt.want, tt.args)
	}
}

// TestSQLiteNeedsCreate: a SQLite ledger that does not exist is refused
// (a typo must not start an empty ledger) unless --create; the readers
// never create one.
func TestSQLiteNeedsCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "typo.db")
	for _, args := range [][]string{
		{"reconcile", "track", "o-1", "--amount", "1"},
		{"reconcile", "show", "o-1"},
		{"reconcile", "list"},
		{"reconcile", "serve", "--addr", "127.0.0.1:0"},
	} {
		r := cli(t, nil, "", append(args, "--dsn", "sqlite:"+path)...)
		assert.Equal(t, exitUsage, r.code, "%v: %s", args, r.output())
		assert.Contains(t, r.stderr, "no such file; add --create to start a new ledger there", args)
		assert.NoFileExists(t, path)
	}
	r := cli(t, nil, "", "reconcile", "track", "o-1", "--amount", "1", "--dsn", "sqlite:"+path, "--create")
	assert.Equal(t, exitOK, r.code, r.output())
	assert.FileExists(t, path)
}

// ledgerRows is every row of the ledger's tables, as text: a test
// compares it before and after a command that must change nothing.
func ledgerRows(t *testing.T, path string) string {
	t.Helper()
	db, err := sqlOpen(path)
	require.NoError(t, err)
	defer db.Close()
	var b strings.Builder
	for _, table := range []string{sqlstore.OrdersTable, sqlstore.EventsTable} {
		rows, err := db.Query("SELECT * FROM " + table + " ORDER BY 1, 2")
		require.NoError(t, err)
		cols, err := rows.Columns()
		require.NoError(t, err)
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			require.NoError(t, rows.Scan(ptrs...))
			b.WriteString(table)
			for _, v := range vals {
				b.WriteString(" | ")
				b.WriteString(strings.TrimSpace(strings.ReplaceAll(jsonText(v), "\n", " ")))
			}
			b.WriteString("\n")
		}
		require.NoError(t, rows.Err())
		rows.Close()
	}
	return b.String()
}

func jsonText(v any) string {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	j, _ := json.Marshal(v)
	return string(j)
}

// deliveries reads the Delivery JSON documents a delivery command
// appended to path, one a line.
func deliveries(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var d map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &d), line)
		out = append(out, d)
	}
	return out
}

// ledgerCreated is the creation time of the golden files' orders.
var ledgerCreated = time.Date(2026, 11, 20, 10, 0, 0, 0, time.FixedZone("IST", 5*3600+1800))

var reUpdated = regexp.MustCompile(`(updated\s+)\d{4}-\d\d-\d\d \d\d:\d\d:\d\d IST`)

// TestReconcileTrackShowList pins track, show and list, human and JSON:
// an order paid and delivered, one pending, in India time.
func TestReconcileTrackShowList(t *testing.T) {
	s := sandbox.Start(t)
	env := sandboxEnv(s)
	n := newNormaliser(s)
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "shop.db")
	created := ledgerCreated.Format(time.RFC3339)
	for _, id := range []string{"cli-ledger-1", "cli-ledger-2"} {
		require.Equal(t, exitOK, cli(t, env, "", intentArgs(id)...).code)
	}
	r := cli(t, nil, "", "reconcile", "track", "cli-ledger-1", "--amount", "499", "--created", created, "--dsn", dsn, "--create")
	require.Equal(t, exitOK, r.code, r.output())
	golden(t, "reconcile_track.txt", n, r.stdout)
	r = cli(t, nil, "", "reconcile", "track", "cli-ledger-2", "--amount", "250.50", "--created", created, "--dsn", dsn, "--json")
	require.Equal(t, exitOK, r.code, r.output())
	golden(t, "reconcile_track.json", n, r.stdout)
	var tracked map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &tracked))
	assert.EqualValues(t, 25050, tracked["amount_paise"], "rupees read exactly")

	pay(t, s, "cli-ledger-1", "SUCCESS", "123412341234")
	r = cliAt(t, ledgerCreated.Add(time.Minute), env, "reconcile", "run", "--once", "--dsn", dsn, "--deliver", "exec:cat > /dev/null")
	require.Equal(t, exitOK, r.code, r.output())

	show := func(args ...string) string {
		r := cli(t, nil, "", append([]string{"reconcile", "show", "--dsn", dsn}, args...)...)
		require.Equal(t, exitOK, r.code, r.output())
		return reUpdated.ReplaceAllString(r.stdout, "${1}{{TIME}}")
	}
	golden(t, "reconcile_show_paid.txt", n, show("cli-ledger-1"))
	golden(t, "reconcile_show_pending.txt", n, show("cli-ledger-2"))
	golden(t, "reconcile_show_paid.json", n, show("cli-ledger-1", "--json"))

	list := func(args ...string) string {
		r := cli(t, nil, "", append([]string{"reconcile", "list", "--dsn", dsn}, args...)...)
		require.Equal(t, exitOK, r.code, r.output())
		return r.stdout
	}
	golden(t, "reconcile_list.txt", n, list())
	golden(t, "reconcile_list.jsonl", n, list("--json"))
	assert.Equal(t, 1, strings.Count(list("--state", "paid", "--json"), "\n"))
	assert.Contains(t, list("--state", "PENDING"), "cli-ledger-2")
	assert.NotContains(t, list("--state", "pending"), "cli-ledger-1")
	for _, line := range strings.Split(strings.TrimSpace(list("--json")), "\n") {
		var o map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &o))
		for k := range o {
			assert.Regexp(t, `^[a-z]+(_[a-z]+)*$`, k, "snake_case keys")
		}
	}

	r = cli(t, nil, "", "reconcile", "show", "no-such-order", "--dsn", dsn, "--json")
	assert.Equal(t, exitRefused, r.code, r.output())
	assert.Contains(t, r.stdout, `"kind":"not_tracked"`)
	r = cli(t, nil, "", "reconcile", "track", "cli-ledger-1", "--amount", "500", "--dsn", dsn)
	assert.Equal(t, exitRefused, r.code, r.output())
	assert.Contains(t, r.stderr, "already tracked with another amount")
}

// TestReconcileTrackUsage: bad input is refused before the ledger is
// opened, naming the flag.
func TestReconcileTrackUsage(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "shop.db")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"o-1"}, "--amount: must be a positive amount in rupees"},
		{[]string{"o-1", "--amount", "0"}, "--amount: must be a positive amount"},
		{[]string{"o-1", "--amount", "4.999"}, "more than two decimals"},
		{[]string{"o-1", "--amount", "1e3"}, "amount must be rupees"},
		{[]string{"o-1", "--amount", "1", "--created", "yesterday"}, "--created: want RFC 3339"},
		{[]string{"bad id!", "--amount", "1"}, "ORDER_ID"},
	}
	for _, tt := range tests {
		r := cli(t, nil, "", append(append([]string{"reconcile", "track"}, tt.args...), "--dsn", dsn, "--create")...)
		assert.Equal(t, exitUsage, r.code, "%v: %s", tt.args, r.output())
		assert.Contains(t, r.stderr, tt.want, tt.args)
	}
	assert.NoFileExists(t, strings.TrimPrefix(dsn, "sqlite:"), "nothing was opened")
	r := cli(t, nil, "", "reconcile", "list", "--state", "paid_late", "--dsn", dsn)
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "want one of pending, paid, failed, expired, late_paid, mismatch, untracked")
}

// TestReadersChangeNothing runs show, list and serve (every page) on a
// ledger with a paid order whose event was never delivered: no row
// changes and nothing is delivered; only run delivers it.
func TestReadersChangeNothing(t *testing.T) {
	s := sandbox.Start(t)
	now := time.Now()
	l := newLedger(t, s, now, "rec-paid", "rec-pending")
	pay(t, s, "rec-paid", "SUCCESS", "123412341234")
	before := ledgerRows(t, l.path)
	env := append(l.env, envDSN+"="+l.dsn)

	for _, args := range [][]string{{"show", "rec-paid"}, {"show", "rec-paid", "--json"}, {"list"}, {"list", "--json", "--state", "pending"}} {
		r := cli(t, env, "", append([]string{"reconcile"}, args...)...)
		require.Equal(t, exitOK, r.code, "%v: %s", args, r.output())
		assert.Contains(t, r.stdout, "pending", "the paid order is still pending in the ledger")
	}
	bg := runInBackground(env, strings.NewReader(""), "reconcile", "serve", "--addr", "127.0.0.1:0", "--json")
	line, err := bg.stdout.ReadString('\n')
	require.NoError(t, err, bg.stderr.String())
	var info struct{ URL string }
	require.NoError(t, json.Unmarshal([]byte(line), &info))
	for _, path := range []string{"", "orders", "orders?state=pending", "orders/rec-paid", "orders/rec-pending"} {
		res, err := http.Get(info.URL + path)
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode, "%s: %s", path, body)
		if path == "" {
			assert.Regexp(t, `data-state="total"><span class="name">[^<]*</span><span class="count" data-count>2<`, string(body))
			assert.Regexp(t, `data-state="pending"><span class="name">[^<]*</span><span class="count" data-count>2<`, string(body),
				"the SQLite ledger's counts, on the page")
		}
	}
	req, _ := http.NewRequest(http.MethodGet, info.URL, nil)
	req.Host = "rebound.example"
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusForbidden, res.StatusCode, "a Host that is not this machine")
	code, _ := bg.interrupt(t)
	assert.Equal(t, exitInterrupted, code)

	assert.Equal(t, before, ledgerRows(t, l.path), "no row changed")
	out := filepath.Join(t.TempDir(), "deliveries")
	r := l.run(t, now, "--deliver", "exec:cat >> "+out+"; echo >> "+out)
	require.Equal(t, exitOK, r.code, r.output())
	assert.Len(t, deliveries(t, out), 1, "the event was never delivered before: run delivers it now")
}

// TestServeAddr: a non-loopback --addr is refused unless --allow-remote.
func TestServeAddr(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "shop.db")
	require.Equal(t, exitOK, cli(t, nil, "", "reconcile", "track", "o-1", "--amount", "1", "--dsn", dsn, "--create").code)
	for _, addr := range []string{"0.0.0.0:8790", "192.0.2.1:8790", ":8790", "[::]:8790"} {
		r := cli(t, nil, "", "reconcile", "serve", "--addr", addr, "--dsn", dsn)
		assert.Equal(t, exitUsage, r.code, "%s: %s", addr, r.output())
		assert.Contains(t, r.stderr, "is not a loopback address", addr)
	}
	r := cli(t, nil, "", "reconcile", "serve", "--addr", "nope", "--dsn", dsn)
	assert.Equal(t, exitUsage, r.code)
	bg := runInBackground([]string{envDSN + "=" + dsn}, strings.NewReader(""), "reconcile", "serve", "--addr", "0.0.0.0:0", "--allow-remote")
	line, err := bg.stdout.ReadString('\n')
	require.NoError(t, err, bg.stderr.String())
	assert.Contains(t, line, "Serving the ledger's dashboard at http://")
	code, _ := bg.interrupt(t)
	assert.Equal(t, exitInterrupted, code)
}

// TestReconcileRunWebhook: --deliver https:// (http on loopback) signs
// each delivery with the secret of --webhook-secret-file, which beats the
// environment's; a receiver's 500 leaves the event for the next run, which
// delivers it with the same id; the secret is never printed.
func TestReconcileRunWebhook(t *testing.T) {
	s := sandbox.Start(t)
	now := time.Now()
	l := newLedger(t, s, now, "rec-paid")
	pay(t, s, "rec-paid", "SUCCESS", "123412341234")
	const secret = "whsec-file-3f9a7c21d4"
	file := filepath.Join(t.TempDir(), "webhook.secret")
	require.NoError(t, os.WriteFile(file, []byte(secret+"\n"), 0o600))

	var (
		mu       sync.Mutex
		received []*webhook.Delivery
		refuse   = true
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, err := webhook.Receive(r, []byte(secret), webhook.DefaultTolerance)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		received = append(received, d)
		if refuse {
			http.Error(w, "try later", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	env := append(l.env, envWebhookSecret+"=whsec-env-wrong-88c1")
	run := func(at time.Time) result {
		return cliAt(t, at, env, "reconcile", "run", "--once", "--dsn", l.dsn, "--deliver", srv.URL+"/hook", "--webhook-secret-file", file)
	}

	r := run(now)
	assert.Equal(t, exitFailure, r.code, r.output())
	assert.Contains(t, r.stderr, "500")
	mu.Lock()
	refuse = false
	mu.Unlock()
	r = run(now.Add(10 * time.Minute))
	require.Equal(t, exitOK, r.code, r.output())
	assert.Contains(t, r.stdout, "paid      rec-paid")
	r2 := run(now.Add(20 * time.Minute))
	require.Equal(t, exitOK, r2.code, r2.output())

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, received, 2, "refused once, delivered once, never again")
	assert.Equal(t, received[0].ID, received[1].ID, "the same id every time")
	assert.Equal(t, "rec-paid", received[1].OrderID)
	assert.Equal(t, upicollect.Rupees(499), received[1].Paid)
	for _, out := range []string{r.output(), r2.output()} {
		assert.NotContains(t, out, secret)
		assert.NotContains(t, out, "whsec-env")
	}
}

// TestReadersNeedALedger: show, list and serve on a database that holds
// no ledger (an application's own) refuse, and create nothing there.
func TestReadersNeedALedger(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	db, err := sqlOpen(path)
	require.NoError(t, err)
	_, err = db.Exec("CREATE TABLE orders (id TEXT PRIMARY KEY)")
	require.NoError(t, err)
	require.NoError(t, db.Close())
	for _, args := range [][]string{{"show", "o-1"}, {"list"}, {"serve", "--addr", "127.0.0.1:0"}} {
		r := cli(t, []string{envDSN + "=sqlite:" + path}, "", append([]string{"reconcile"}, args...)...)
		assert.Equal(t, exitUsage, r.code, "%v: %s", args, r.output())
		assert.Contains(t, r.stderr, "holds no reconcile ledger", args)
	}
	db, err = sqlOpen(path)
	require.NoError(t, err)
	defer db.Close()
	var tables int
	require.NoError(t, db.QueryRow("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'").Scan(&tables))
	assert.Equal(t, 1, tables, "only the application's table")
}

// TestReconcileRunExecEnvironment: the command gets the delivery's id,
// order and result in its environment, and none of this process's
// secrets.
func TestReconcileRunExecEnvironment(t *testing.T) {
	s := sandbox.Start(t)
	now := time.Now()
	l := newLedger(t, s, now, "rec-paid")
	pay(t, s, "rec-paid", "SUCCESS", "123412341234")
	t.Setenv(envSecretKey, "sk-of-this-process")
	t.Setenv(envWebhookSecret, "whsec-of-this-process")
	out := filepath.Join(t.TempDir(), "env")
	r := l.run(t, now, "--deliver", `exec:echo "$UPICOLLECT_DELIVERY_ID $UPICOLLECT_ORDER_ID $UPICOLLECT_RESULT [$`+envSecretKey+`] [$`+envWebhookSecret+`]" > `+out)
	require.Equal(t, exitOK, r.code, r.output())
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Regexp(t, `^evt_[0-9a-f]{32} rec-paid paid \[\] \[\]\n$`, string(b))
}
