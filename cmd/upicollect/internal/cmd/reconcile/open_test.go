package reconcile

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdtest"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
)

// testFactory is cmdtest's Factory with cmdtest.Now as the run's clock.
func testFactory(env map[string]string) (*cmdutil.Factory, *iostreams.SyncBuffer, *iostreams.SyncBuffer) {
	f, stdout, stderr := cmdtest.Factory(env)
	f.IOStreams.Now = func() time.Time { return cmdtest.Now }
	return f, stdout, stderr
}

// testLedger is ledgerOptions over a Factory of testFactory.
func testLedger(env map[string]string) (ledgerOptions, *iostreams.SyncBuffer) {
	f, stdout, _ := testFactory(env)
	lo := newLedgerOptions(f)
	lo.Ctx = context.Background()
	return lo, stdout
}

// exitOf is err's exit code and kind, as the command line reports them.
func exitOf(t *testing.T, err error) (int, string) {
	t.Helper()
	return cmdutil.Classify(context.Background(), err)
}

// TestOpenStore opens real SQLite ledgers: a missing file is refused
// unless --create, a reader refuses a database with no ledger but reads
// an empty one, and the store keeps the run's clock.
func TestOpenStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.db")
	lo, _ := testLedger(nil)

	_, _, err := lo.openStore("sqlite:"+missing, false)
	require.Error(t, err)
	assert.Equal(t, "--dsn sqlite:"+missing+": no such file; add --create to start a new ledger there", err.Error())
	code, kind := exitOf(t, err)
	assert.Equal(t, []any{cmdutil.ExitUsage, cmdutil.KindUsage}, []any{code, kind})
	assert.NoFileExists(t, missing)

	_, _, err = lo.openStore("sqlite:"+missing, true)
	require.Error(t, err, "a reader does not create either")
	assert.NoFileExists(t, missing)

	lo.Create = true
	st, closeDB, err := lo.openStore("sqlite:"+missing, false)
	require.NoError(t, err)
	now, ok, err := st.Now(ctx)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.True(t, now.Equal(cmdtest.Now), "SQLite keeps the run's clock: %v", now)
	closeDB()
	assert.FileExists(t, missing)

	lo.Create = false
	st, closeDB, err = lo.openStore("file:"+missing, true)
	require.NoError(t, err, "an empty ledger is a ledger")
	require.NoError(t, st.Track(ctx, reconcile.Order{ID: "ORD-1", Amount: upicollect.Rupees(499), Created: cmdtest.Now}, cmdtest.Now.Add(time.Minute)))
	closeDB()
	st, closeDB, err = lo.openStore("sqlite:"+missing+"?mode=ro", true)
	require.NoError(t, err, "a ledger with orders")
	l, ok := st.(interface {
		Lookup(context.Context, string) (*reconcile.OrderState, error)
	})
	require.True(t, ok)
	o, err := l.Lookup(ctx, "ORD-1")
	require.NoError(t, err)
	assert.Equal(t, upicollect.Rupees(499), o.Order.Amount)
	closeDB()

	other := filepath.Join(dir, "other.db")
	db, err := sql.Open("sqlite", "file:"+other)
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, "CREATE TABLE notes (x TEXT)")
	require.NoError(t, err)
	require.NoError(t, db.Close())
	_, _, err = lo.openStore("sqlite:"+other, true)
	require.Error(t, err)
	assert.Equal(t, "--dsn sqlite:"+other+" holds no reconcile ledger (no table "+sqlstore.OrdersTable+"); "+
		"it is made by your application's sqlstore.New, or by reconcile run or track", err.Error())
	code, _ = exitOf(t, err)
	assert.Equal(t, cmdutil.ExitUsage, code)
	var tables int
	db, err = sql.Open("sqlite", "file:"+other)
	require.NoError(t, err)
	require.NoError(t, db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table'").Scan(&tables))
	require.NoError(t, db.Close())
	assert.Equal(t, 1, tables, "a reader made no tables")

	_, _, err = lo.openStore("sqlite:"+dir, true)
	require.Error(t, err, "a directory is no database")
	code, _ = exitOf(t, err)
	assert.Equal(t, cmdutil.ExitFailure, code)
	assert.True(t, strings.HasPrefix(err.Error(), "SQLite database sqlite:"+dir+": "), err.Error())

	_, _, err = lo.openStore("mysql://u:hunter2@h/db", false)
	require.Error(t, err)
	assert.Equal(t, "--dsn mysql:…: want postgres://…, postgresql://…, sqlite:PATH or file:PATH", err.Error())
	code, _ = exitOf(t, err)
	assert.Equal(t, cmdutil.ExitUsage, code)
}

// TestOpenStoreHidesPassword: a PostgreSQL DSN's password goes into the
// run's output filter, and an error of the driver names the DSN without
// it.
func TestOpenStoreHidesPassword(t *testing.T) {
	lo, stdout := testLedger(nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // no connection is tried: the driver's error is the context's
	lo.Ctx = ctx
	dsn := "postgres://shop:hunter2pw@127.0.0.1:1/shop?sslmode=disable"
	_, _, err := lo.openStore(dsn, true)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "PostgreSQL database postgres://shop:xxxxx@127.0.0.1:1/shop?sslmode=disable: "), err.Error())
	assert.NotContains(t, err.Error(), "hunter2pw")
	_, werr := lo.IO.Out.Write([]byte("said: hunter2pw\n"))
	require.NoError(t, werr)
	assert.Equal(t, "said: [REDACTED]\n", stdout.String(), "the password is one of the run's secrets")
}

// TestOpen: the ledger is --dsn, else $UPICOLLECT_RECONCILE_DSN; neither
// is a usage error naming both.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	fromEnv, fromFlag := filepath.Join(dir, "env.db"), filepath.Join(dir, "flag.db")

	lo, _ := testLedger(nil)
	_, _, err := lo.open(false)
	require.Error(t, err)
	assert.Equal(t, "missing UPICOLLECT_RECONCILE_DSN, --dsn or --dsn-file", err.Error())
	code, _ := exitOf(t, err)
	assert.Equal(t, cmdutil.ExitUsage, code)

	lo, _ = testLedger(map[string]string{envDSN: "sqlite:" + fromEnv})
	lo.Create = true
	_, closeDB, err := lo.open(false)
	require.NoError(t, err)
	closeDB()
	assert.FileExists(t, fromEnv)

	lo.DSN = "sqlite:" + fromFlag
	_, closeDB, err = lo.open(false)
	require.NoError(t, err)
	closeDB()
	assert.FileExists(t, fromFlag, "--dsn over the environment")

	r, closeDB, err := lo.openReader()
	require.NoError(t, err)
	counts, err := r.Counts(context.Background())
	require.NoError(t, err)
	assert.Empty(t, counts)
	closeDB()

	lo.DSN, lo.Create = "sqlite:"+filepath.Join(dir, "none.db"), false
	_, _, err = lo.openReader()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no such file")
}

// TestScrub: a driver's error loses the DSN, which is written redacted,
// and every secret of it.
func TestScrub(t *testing.T) {
	tests := []struct {
		dsn, msg, want string
	}{
		{"postgres://u@h/db?password=abc&sslmode=disable", "cannot connect to %s", "cannot connect to postgres://u@h/db?password=xxxxx…"},
		{"postgres://u:s3cret@h/db", "cannot connect to %s", "cannot connect to postgres://u:xxxxx@h/db"},
		{"postgres://u:s3cret@h/db", "bad password s3cret for u", "bad password xxxxx for u"},
		{"sqlite:shop.db", "no %s", "no sqlite:shop.db"},
	}
	for _, tt := range tests {
		d, err := parseDSN(tt.dsn)
		require.NoError(t, err)
		msg := tt.msg
		if strings.Contains(msg, "%s") {
			msg = fmt.Sprintf(msg, tt.dsn)
		}
		assert.Equal(t, tt.want, d.scrub(errors.New(msg)), tt.dsn)
	}
}

// TestRedactDSNExact: what redactDSN keeps, to the character.
func TestRedactDSNExact(t *testing.T) {
	tests := []struct{ dsn, want string }{
		{"postgres://u@h/db", "postgres://u@h/db"},
		{"postgres://u:pw1@h/db", "postgres://u:xxxxx@h/db"},
		{"postgres://u:@h/db", "postgres://u:xxxxx@h/db"},
		{"postgres://@h/db", "postgres://@h/db"},
		{"://u:secretpw@h/db", "://u:xxxxx@h/db"},
		{"postgres://u@h/db?password=", "postgres://u@h/db?password=xxxxx"},
		{"postgres://u@h/db?password=abc", "postgres://u@h/db?password=xxxxx…"},
		{"postgres://u@h/db?password=abc&sslmode=disable", "postgres://u@h/db?password=xxxxx…"},
		{"host=h password=pw dbname=x", "host=h password=xxxxx…"},
		{"user:pw@h", "user:pw@h"}, // no "://": no user information to find
		{"sqlite:a\x1b[2Jb.db", `sqlite:a\x1b[2Jb.db`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, redactDSN(tt.dsn), "%q", tt.dsn)
	}
}

// TestDSNSecrets: the output filter learns the password and the secret
// parameter's value, as written and decoded, and each prefix of the value
// that ends at a separator; nothing shorter than 3 characters.
func TestDSNSecrets(t *testing.T) {
	tests := []struct {
		dsn  string
		want []string
	}{
		{"postgres://u@h/db", nil},
		{"postgres://u:ab@h/db", nil},
		{"postgres://u:abc@h/db", []string{"abc"}},
		{"postgres://u:abcd@h/db", []string{"abcd"}},
		{"postgres://u:a%2Fbc@h/db", []string{"a%2Fbc", "a/bc", "a/bc"}},
		{"postgres://u:a+bc@h/db", []string{"a+bc", "a bc"}},
		{"postgres://u:%41bc@h/db", []string{"%41bc", "Abc", "Abc"}},
		{"postgres://u:%41b@h/db", []string{"%41b"}},
		{"postgres://u:a%zzb@h/db", []string{"a%zzb"}},
		{"postgres://u@h/db?password='abc'", []string{"abc"}},
		{"postgres://u@h/db?password=abc&x=1 y\tz\nw", []string{"abc&x=1 y\tz\nw", "abc", "abc&x=1", "abc&x=1 y", "abc&x=1 y\tz"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, dsnSecrets(tt.dsn), "%q", tt.dsn)
	}
}

// TestEventLine: an event for a person and as JSON: the paid amount only
// when it differs from the expected one, the UTR and the reason when
// there are.
func TestEventLine(t *testing.T) {
	order := reconcile.Order{ID: "ORD-1", Amount: upicollect.Rupees(499), Created: cmdtest.Now}
	at := cmdtest.Now.Add(time.Hour)
	paid := &upicollect.PaymentStatus{TxnStatus: upicollect.TxnSuccess, Amount: upicollect.Rupees(499), UTR: "UTR0001"}
	less := &upicollect.PaymentStatus{TxnStatus: upicollect.TxnSuccess, Amount: upicollect.Rupees(400)}
	tests := []struct {
		name string
		e    reconcile.Event
		line string
		json string
	}{
		{"paid", reconcile.NewEvent(order, reconcile.Paid, paid, at, ""),
			"paid      ORD-1  expected ₹499.00  UTR UTR0001",
			`{"event":"paid","order_id":"ORD-1","expected":"499.00","paid":"499.00","txn_status":"SUCCESS","utr":"UTR0001","at":"2026-11-26T11:00:00Z"}`},
		{"mismatch", reconcile.NewEvent(order, reconcile.Mismatch, less, at, ""),
			"mismatch  ORD-1  expected ₹499.00, paid ₹400.00",
			`{"event":"mismatch","order_id":"ORD-1","expected":"499.00","paid":"400.00","txn_status":"SUCCESS","utr":"","at":"2026-11-26T11:00:00Z"}`},
		{"expired", reconcile.NewEvent(order, reconcile.Expired, nil, at, reconcile.ReasonNotFound),
			"expired   ORD-1  expected ₹499.00  (" + reconcile.ReasonNotFound + ")",
			`{"event":"expired","order_id":"ORD-1","expected":"499.00","paid":"0.00","txn_status":"","utr":"","reason":"` + reconcile.ReasonNotFound + `","at":"2026-11-26T11:00:00Z"}`},
		{"no amount in the answer", reconcile.NewEvent(order, reconcile.Failed, &upicollect.PaymentStatus{TxnStatus: upicollect.TxnFail}, at, ""),
			"failed    ORD-1  expected ₹499.00",
			`{"event":"failed","order_id":"ORD-1","expected":"499.00","paid":"0.00","txn_status":"FAIL","utr":"","at":"2026-11-26T11:00:00Z"}`},
		{"a failed answer's amount is not paid", reconcile.NewEvent(order, reconcile.Failed, &upicollect.PaymentStatus{TxnStatus: upicollect.TxnFail, Amount: upicollect.Rupees(200)}, at, ""),
			"failed    ORD-1  expected ₹499.00",
			`{"event":"failed","order_id":"ORD-1","expected":"499.00","paid":"0.00","txn_status":"FAIL","utr":"","at":"2026-11-26T11:00:00Z"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.line, eventLine(tt.e))
			var buf bytes.Buffer
			f := cmdutil.New(context.Background(), strings.NewReader(""), &buf, io.Discard, func(string) string { return "" })
			require.NoError(t, f.IOStreams.PrintJSON(newEventJSON(tt.e)))
			assert.Equal(t, tt.json+"\n", buf.String())
		})
	}
	assert.Equal(t, `paid      ORD\x1b[2J  expected ₹499.00`, eventLine(reconcile.NewEvent(reconcile.Order{ID: "ORD\x1b[2J", Amount: upicollect.Rupees(499)}, reconcile.Paid, nil, at, "")),
		"escaped for the terminal")
}

// TestLedgerError: the ledger's refusals exit 3 with their own kinds,
// found through wrapping; other errors pass as they are.
func TestLedgerError(t *testing.T) {
	tests := []struct {
		err  error
		code int
		kind string
	}{
		{fmt.Errorf("track X: %w", reconcile.ErrNotTracked), cmdutil.ExitRefused, "not_tracked"},
		{fmt.Errorf("track X: %w", reconcile.ErrTrackedDifferently), cmdutil.ExitRefused, "tracked_differently"},
	}
	for _, tt := range tests {
		got := ledgerError(tt.err)
		assert.ErrorIs(t, got, tt.err)
		assert.Equal(t, tt.err.Error(), got.Error())
		code, kind := exitOf(t, got)
		assert.Equal(t, []any{tt.code, tt.kind}, []any{code, kind}, tt.err.Error())
	}
	other := errors.New("disk full")
	assert.Same(t, other, ledgerError(other))
}

// TestNewCmdReconcile: reconcile alone, or with a word that is no
// command, is a usage error saying what to type.
func TestNewCmdReconcile(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "reconcile needs a command: run, track, show, list, serve or consumers (the sweeper is 'reconcile run --deliver …': it never consumes events without delivering them)"},
		{[]string{"sweep"}, `unknown reconcile command "sweep": want run, track, show, list, serve or consumers`},
	}
	for _, tt := range tests {
		f, stdout, _ := testFactory(nil)
		cmd := NewCmdReconcile(f)
		cmd.SetArgs(tt.args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.ExecuteContext(context.Background())
		require.Error(t, err)
		assert.Equal(t, tt.want, err.Error())
		code, _ := exitOf(t, err)
		assert.Equal(t, cmdutil.ExitUsage, code)
		assert.Empty(t, stdout.String())
	}
	var names []string
	f, _, _ := testFactory(nil)
	for _, c := range NewCmdReconcile(f).Commands() {
		names = append(names, c.Name())
	}
	assert.Equal(t, []string{"consumers", "list", "run", "serve", "show", "track"}, names)
}
