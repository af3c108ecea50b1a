package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
	"github.com/upicollect/upicollect-go/sandbox"
)

// trackedDB is a SQLite reconcile database in which an application has
// tracked three orders of s: one paid, one rejected, one not yet paid.
func trackedDB(t *testing.T, s *sandbox.Server, created time.Time) string {
	path := filepath.Join(t.TempDir(), "orders.db")
	db, err := sql.Open("sqlite", "file:"+path+"?"+sqliteBusyTimeout)
	require.NoError(t, err)
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	st, err := sqlstore.New(ctx, db, sqlstore.SQLite)
	require.NoError(t, err)
	sw, err := reconcile.New(s.Client(), st, func(context.Context, reconcile.Event) error { return nil })
	require.NoError(t, err)
	env := sandboxEnv(s)
	for _, id := range []string{"rec-paid", "rec-rejected", "rec-pending"} {
		require.Equal(t, exitOK, cli(t, env, "", intentArgs(id)...).code)
		require.NoError(t, sw.Track(ctx, reconcile.Order{ID: id, Amount: upicollect.Rupees(499), Created: created}))
	}
	pay(t, s, "rec-paid", "SUCCESS", "123412341234")
	pay(t, s, "rec-rejected", "REJECT", "")
	return path
}

// TestReconcileOnce: one step over a SQLite database finds each tracked
// order's state, prints each event and one summary line, and records the
// events so that the next step does not report them again.
func TestReconcileOnce(t *testing.T) {
	s := sandbox.Start(t)
	created := time.Now().Add(-time.Minute)
	path := trackedDB(t, s, created)
	env := sandboxEnv(s)

	r := cli(t, env, "", "reconcile", "--dsn", "sqlite:"+path, "--once")
	require.Equal(t, exitOK, r.code, r.output())
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 3, r.stdout)
	assert.Contains(t, r.stdout, "paid      rec-paid  expected ₹499.00  UTR 123412341234\n")
	assert.Contains(t, r.stdout, "failed    rec-rejected  expected ₹499.00\n")
	assert.Regexp(t, `^step \S+: checked 3, paid 1, failed 1, late_paid 0, expired 0, mismatch 0, pending 1, errors 0; next due \S+$`, lines[2])
	assert.Empty(t, r.stderr)

	r = cli(t, append(env, envDSN+"=sqlite:"+path), "", "reconcile", "--once", "--json")
	require.Equal(t, exitOK, r.code, r.output())
	assert.NotContains(t, r.stdout, `"event"`, "each event once: recorded in the database")
	assert.Contains(t, r.stdout, `"step":"`)
}

func TestReconcileUsage(t *testing.T) {
	env := []string{envBaseURL + "=http://127.0.0.1:1", envMID + "=m", envPublicKey + "=pk", envSecretKey + "=sk"}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"reconcile", "--once"}, "missing " + envDSN + " or --dsn"},
		{[]string{"reconcile", "--dsn", "mysql://u:hunter2@h/db", "--once"}, "want postgres://"},
		{[]string{"reconcile", "--dsn", "sqlite:", "--once"}, "want postgres://"},
	}
	for _, tt := range tests {
		r := cli(t, env, "", tt.args...)
		assert.Equal(t, exitUsage, r.code, r.output())
		assert.Contains(t, r.stderr, tt.want)
		assert.NotContains(t, r.output(), "hunter2", "a DSN's password is never printed")
	}
}

func TestParseDSN(t *testing.T) {
	tests := []struct {
		dsn, driver, source string
		d                   sqlstore.Dialect
	}{
		{"postgres://u@127.0.0.1/db", "pgx", "postgres://u@127.0.0.1/db", sqlstore.Postgres},
		{"postgresql://u@h/db?sslmode=disable", "pgx", "postgresql://u@h/db?sslmode=disable", sqlstore.Postgres},
		{"sqlite:orders.db", "sqlite", "file:orders.db?" + sqliteBusyTimeout, sqlstore.SQLite},
		{"file:/tmp/o.db?mode=rwc", "sqlite", "file:/tmp/o.db?mode=rwc&" + sqliteBusyTimeout, sqlstore.SQLite},
		{"sqlite:o.db?_pragma=busy_timeout(5)", "sqlite", "file:o.db?_pragma=busy_timeout(5)", sqlstore.SQLite},
	}
	for _, tt := range tests {
		driver, source, d, err := parseDSN(tt.dsn)
		require.NoError(t, err, tt.dsn)
		assert.Equal(t, []any{tt.driver, tt.source, tt.d}, []any{driver, source, d}, tt.dsn)
	}
	assert.Equal(t, "postgres://u:xxxxx@h/db", redactDSN("postgres://u:secret@h/db"))
}

// TestReconcileRunsUntilInterrupted: without --once the sweeper steps
// until Ctrl-C, which exits 130 as every command does.
func TestReconcileRunsUntilInterrupted(t *testing.T) {
	s := sandbox.Start(t)
	path := trackedDB(t, s, time.Now().Add(-time.Minute))
	run := runInBackground(sandboxEnv(s), strings.NewReader(""), "reconcile", "--dsn", "sqlite:"+path, "--interval", "1h")
	defer run.cancel()
	line := ""
	for !strings.HasPrefix(line, "step ") {
		var err error
		line, err = run.stdout.ReadString('\n')
		require.NoError(t, err, run.stderr.String())
	}
	assert.Contains(t, line, "checked 3", "the first step ran")
	code, _ := run.interrupt(t)
	assert.Equal(t, exitInterrupted, code)
	assert.Contains(t, run.stderr.String(), "upicollect: interrupted: sweeper stopped")
}
