package main

// This file drives the CLI through the reconcile tests' in-process entry
// (cli and cliAt, with sandboxEnv, intentArgs and pay) and the envDSN
// name; nothing else of package main. When the reconcile command moves to a
// package of its own, those are what to point it at.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest/pgtest"
	"github.com/upicollect/upicollect-go/sandbox"
)

// pgLedgerPassword is the ledger role's password in the PostgreSQL counts
// test: every character a URL parser trips on.
const pgLedgerPassword = "l3dg/er#K7?q@w%v&z"

// TestReconcilePostgresCounts runs track, run and show on a PostgreSQL
// ledger started by pgtest (a role with a password, as a shop's would be):
// three orders tracked, one paid, one failed, one pending. The first run
// checks 3 and reports 1 paid, 1 failed and 1 pending; the second, a
// minute later, delivers nothing again; show tells each order's state,
// checks and events; list counts 3 orders. No output holds the password.
func TestReconcilePostgresCounts(t *testing.T) {
	pg := pgtest.Start(t)
	dsn := pg.NewRoleDatabase(t, "ledger", pgLedgerPassword)
	s := sandbox.Start(t)
	env := append(sandboxEnv(s), envDSN+"="+dsn)
	var outputs []string
	run := func(r result, want int) result {
		t.Helper()
		outputs = append(outputs, r.output())
		require.Equal(t, want, r.code, r.output())
		return r
	}

	now := time.Now()
	created := now.Add(-time.Minute).Format(time.RFC3339)
	ids := []string{"pg-paid", "pg-failed", "pg-pending"}
	for _, id := range ids {
		run(cli(t, env, "", intentArgs(id)...), exitOK)
		r := run(cli(t, env, "", "reconcile", "track", id, "--amount", "499", "--created", created), exitOK)
		assert.Contains(t, r.stdout, id)
	}
	run(cli(t, env, "", "reconcile", "track", "pg-paid", "--amount", "500"), exitRefused)
	pay(t, s, "pg-paid", "SUCCESS", "123412341234")
	pay(t, s, "pg-failed", "FAIL", "")

	out := filepath.Join(t.TempDir(), "deliveries")
	deliver := "exec:cat >> " + out + "; echo >> " + out
	r := run(cliAt(t, now, env, "reconcile", "run", "--once", "--deliver", deliver), exitOK)
	assert.Regexp(t, `checked 3, paid 1, failed 1, late_paid 0, expired 0, mismatch 0, pending 1, errors 0`, r.stdout)
	assert.Contains(t, r.stdout, "paid      pg-paid")
	r = run(cliAt(t, now.Add(time.Minute), env, "reconcile", "run", "--once", "--deliver", deliver), exitOK)
	assert.Regexp(t, `paid 0, failed 0, late_paid 0, expired 0, mismatch 0, pending \d+, errors 0`, r.stdout)
	assert.NotContains(t, r.stdout, "pg-paid", "delivered once")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(b), `"order_id":`), "two events delivered over two runs: %s", b)
	assert.Equal(t, 1, strings.Count(string(b), `"order_id":"pg-paid","result":"paid"`), "%s", b)
	assert.Equal(t, 1, strings.Count(string(b), `"order_id":"pg-failed","result":"failed"`), "%s", b)

	for id, want := range map[string][]string{
		"pg-paid":    {"state       paid", "amount      ₹499.00", "events      1", "UTR 123412341234"},
		"pg-failed":  {"state       failed", "events      1"},
		"pg-pending": {"state       pending", "events      none"},
	} {
		r := run(cli(t, env, "", "reconcile", "show", id), exitOK)
		for _, w := range want {
			assert.Contains(t, r.stdout, w, id)
		}
		assert.Regexp(t, `checks +[12]\n`, r.stdout, id)
	}
	r = run(cli(t, env, "", "reconcile", "list", "--json"), exitOK)
	assert.Equal(t, 3, strings.Count(r.stdout, "\n"), "three orders in the ledger: %s", r.stdout)

	for _, o := range outputs {
		assert.NotContains(t, o, pgLedgerPassword)
		assert.NotContains(t, o, "l3dg", "no part of the password")
	}
}
