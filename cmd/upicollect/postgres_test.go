package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/sandbox"
)

// pgPassword is the ledger role's password: every character a URL parser
// trips on.
const pgPassword = "s3cr/et#Q9?x@y%zz&k"

// startPostgres starts a PostgreSQL server (the Debian package's binaries)
// in a temporary directory, on a free loopback port, with password
// authentication over TCP, and a database shop owned by the role shop
// (password pgPassword). It returns the server's port; the server stops at
// t's end. Run as root, the server runs as nobody.
func startPostgres(t *testing.T) int {
	t.Helper()
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Strings(dirs)
	require.NotEmpty(t, dirs, "PostgreSQL is not installed (apt-get install postgresql): the ledger's PostgreSQL tests need it")
	bin := filepath.Dir(dirs[len(dirs)-1])
	dir, err := os.MkdirTemp("", "upicollect-cli-pg-") // not t.TempDir: its parent is closed to nobody
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		require.NoError(t, err)
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		require.NoError(t, os.Chown(dir, uid, gid))
	}
	l, err := net.Listen("tcp", "127.0.0.1:0") // a free port
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pg := func(name string, args ...string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, filepath.Join(bin, name), args...)
		cmd.Dir = dir
		if cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", name, out)
	}
	data := filepath.Join(dir, "data")
	pg("initdb", "-D", data, "-U", "postgres", "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync", "--no-locale")
	pg("pg_ctl", "-D", data, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start",
		"-o", fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c fsync=off -c synchronous_commit=off", port, dir))
	t.Cleanup(func() {
		cmd := exec.Command(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop")
		if cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
		_ = cmd.Run()
	})
	admin, err := sql.Open("pgx", fmt.Sprintf("host=%s port=%d user=postgres dbname=postgres", dir, port))
	require.NoError(t, err)
	defer admin.Close()
	for _, q := range []string{"CREATE ROLE shop LOGIN PASSWORD '" + pgPassword + "'", "CREATE DATABASE shop OWNER shop"} {
		_, err := admin.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	return port
}

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
	port := startPostgres(t)
	s := sandbox.Start(t)
	dsn := pgDSN(port, pgPassword)
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
		r := cli(t, nil, "", "reconcile", "list", "--dsn", pgDSN(port, pw))
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
