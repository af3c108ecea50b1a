package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest/pgtest"
	"github.com/upicollect/upicollect-go/sandbox"
)

// pgPassword is the ledger role's password: every character a URL parser
// trips on.
const pgPassword = "s3cr/et#Q9?x@y%zz&k"

// pgDSN is the DSN of the shop database with password pw, percent-encoded
// as a URL requires.
func pgDSN(port int, pw string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword("shop", pw), Host: "127.0.0.1:" + strconv.Itoa(port), Path: "/shop", RawQuery: "sslmode=disable"}
	return u.String()
}

// TestReconcilePostgres runs the ledger's commands on a real PostgreSQL
// whose password holds / # ? @ % and &: track, run (an exec delivery,
// once), show and list work, and no output of any of them, nor of a
// connection refused for a wrong password, holds a password or a part of
// one.
func TestReconcilePostgres(t *testing.T) {
	pg := pgtest.Start(t)
	port := pg.Port()
	dsn := pg.NewRoleDatabase(t, "shop", pgPassword)
	require.Equal(t, pgDSN(port, pgPassword), dsn, "the DSN the wrong passwords below vary")
	s := sandbox.Start(t)
	env := append(sandboxEnv(s), envDSN+"="+dsn)
	var outputs []string
	ok := func(r result) result {
		t.Helper()
		outputs = append(outputs, r.output())
		require.Equal(t, exitOK, r.code, r.output())
		return r
	}
	now := time.Now()
	ok(cli(t, env, "", intentArgs("pg-paid")...))
	ok(cli(t, env, "", "reconcile", "track", "pg-paid", "--amount", "499", "--created", now.Add(-time.Minute).Format(time.RFC3339)))
	pay(t, s, "pg-paid", "SUCCESS", "123412341234")
	out := filepath.Join(t.TempDir(), "deliveries")
	deliver := "exec:cat >> " + out + "; echo >> " + out
	r := ok(cliAt(t, now, env, "reconcile", "run", "--once", "--deliver", deliver))
	assert.Contains(t, r.stdout, "paid      pg-paid")
	ok(cliAt(t, now.Add(time.Minute), env, "reconcile", "run", "--once", "--deliver", deliver))
	assert.Len(t, deliveries(t, out), 1, "delivered once over two runs")
	assert.Contains(t, ok(cli(t, env, "", "reconcile", "show", "pg-paid")).stdout, "state       paid")
	assert.Contains(t, ok(cli(t, env, "", "reconcile", "list", "--state", "paid", "--json")).stdout, `"order_id":"pg-paid"`)

	bg := runInBackground(env, strings.NewReader(""), "reconcile", "serve", "--addr", "127.0.0.1:0", "--json")
	line, err := bg.stdout.ReadString('\n')
	require.NoError(t, err, bg.stderr.String())
	var info struct{ URL string }
	require.NoError(t, json.Unmarshal([]byte(line), &info))
	for path, want := range map[string]string{
		"":                  `data-state="paid"><span class="name">paid</span><span class="count" data-count>1</span>`,
		"orders/pg-paid":    `data-event="paid"`,
		"orders?state=paid": `data-order="pg-paid"`,
	} {
		res, err := http.Get(info.URL + path)
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode, path)
		assert.Contains(t, string(body), want, "the dashboard of the PostgreSQL ledger: %s", path)
	}
	code, _ := bg.interrupt(t)
	assert.Equal(t, exitInterrupted, code)
	outputs = append(outputs, bg.stderr.String())

	for _, pw := range append([]string{pgPassword + "x"}, nastyPasswords...) {
		r := cli(t, []string{envDSN + "=" + pgDSN(port, pw)}, "", "reconcile", "list")
		assert.Equal(t, exitFailure, r.code, r.output())
		assert.Contains(t, r.stderr, "postgres://shop:xxxxx@127.0.0.1:"+strconv.Itoa(port)+"/shop")
		outputs = append(outputs, r.output())
		assertNoPart(t, r.output(), pw, "wrong password")
	}
	for _, o := range outputs {
		assertNoPart(t, o, pgPassword, "PostgreSQL ledger")
		assertNoPart(t, o, url.QueryEscape(pgPassword), "PostgreSQL ledger, encoded")
	}
}
