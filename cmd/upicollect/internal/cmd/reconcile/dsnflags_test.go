package reconcile

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdtest"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
)

// TestDSNPassword: which DSNs hold a password --dsn refuses.
func TestDSNPassword(t *testing.T) {
	tests := []struct {
		dsn  string
		want bool
	}{
		{"postgres://shop:pw@db.example/shop", true},
		{"POSTGRESQL://shop:pw@db.example/shop", true},
		{"postgres://shop:p%40w@db.example/shop?sslmode=require", true},
		{"postgres://shop@db.example/shop?sslmode=require&password=pw", true},
		{"postgres://db.example/shop?PASSWORD=pw&user=shop", true},
		{"postgres://shop@db.example/shop?sslpassword=pw", true},
		{"host=db.example user=shop password=pw dbname=shop", true},
		{"password=pw host=db.example", true},
		{"sqlite:shop.db?_auth_user=a&_auth_pass=pw", true},
		{"postgres://shop@db.example/shop?token=abc", true},
		{"postgres://shop@db.example/shop", false},
		{"postgres://shop:@db.example/shop", false}, // an empty password is none
		{"postgres://db.example/shop?sslmode=verify-full&sslkey=/etc/shop/client.key", false},
		{"sqlite:/var/lib/shop/ledger.db", false},
		{"file:shop.db?mode=rwc", false},
		{"sqlite:passwords.db", false}, // a file's name is no parameter
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, dsnPassword(tt.dsn), tt.dsn)
	}
	for _, pw := range nastyPasswords {
		assert.True(t, dsnPassword("postgres://shop:"+pw+"@db.example/shop"), "%q", pw)
		assert.True(t, dsnPassword("postgres://shop@db.example/shop?password="+pw), "%q", pw)
	}
}

// countingListener accepts connections on loopback and counts them: a
// command that refuses its flags before any I/O connects to it never.
type countingListener struct {
	ln       net.Listener
	accepted atomic.Int64
	done     chan struct{}
}

func newCountingListener(t *testing.T) *countingListener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	c := &countingListener{ln: ln, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.accepted.Add(1)
			conn.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-c.done })
	return c
}

// others counts the connections made before it was called: it connects
// once itself and waits until that connection was accepted, after every
// one made before (a listener accepts in order).
func (c *countingListener) others(t *testing.T) int64 {
	t.Helper()
	conn, err := net.Dial("tcp", c.ln.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Read(make([]byte, 1)) // EOF once accepted and closed
	require.Error(t, err)
	return c.accepted.Load() - 1
}

// TestDSNWithPasswordRefused: every reconcile command refuses a --dsn
// that holds a password, before any I/O (no connection to the database,
// no file read: run refuses it before reading a webhook secret file that
// is not there), with a usage error that says how to give it instead and
// shows no part of it.
func TestDSNWithPasswordRefused(t *testing.T) {
	db := newCountingListener(t)
	addr := db.ln.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	dir := t.TempDir()
	commands := []struct {
		name string
		cmd  func(f *cmdutil.Factory) *cobra.Command
		args []string
	}{
		{"run", func(f *cmdutil.Factory) *cobra.Command { return NewCmdRun(f, nil) },
			[]string{"--deliver", "https://shop.example/hook", "--webhook-secret-file", filepath.Join(dir, "no-such-secret"), "--once"}},
		{"track", func(f *cmdutil.Factory) *cobra.Command { return NewCmdTrack(f, nil) }, []string{"ORD-1", "--amount", "499", "--create"}},
		{"show", func(f *cmdutil.Factory) *cobra.Command { return NewCmdShow(f, nil) }, []string{"ORD-1"}},
		{"list", func(f *cmdutil.Factory) *cobra.Command { return NewCmdList(f, nil) }, nil},
		{"serve", func(f *cmdutil.Factory) *cobra.Command { return NewCmdServe(f, nil) }, []string{"--addr", "127.0.0.1:0"}},
	}
	const pw = "hunter2Q9x"
	sqlitePath := filepath.Join(dir, "ledger.db")
	dsns := []struct{ dsn, shown string }{
		{"postgres://shop:" + pw + "@" + addr + "/shop?connect_timeout=2", "postgres://shop:xxxxx@" + addr + "/shop?connect_timeout=2"},
		{"postgres://shop@" + addr + "/shop?connect_timeout=2&password=" + pw, "postgres://shop@" + addr + "/shop?connect_timeout=2&password=xxxxx"},
		{"host=127.0.0.1 port=" + port + " password=" + pw, "host=127.0.0.1 port=" + port + " password=xxxxx"},
		{"sqlite:" + sqlitePath + "?_auth_pass=" + pw, "sqlite:" + sqlitePath + "?_auth_pass=xxxxx"},
	}
	for _, c := range commands {
		for _, d := range dsns {
			t.Run(c.name+" "+d.shown, func(t *testing.T) {
				f, stdout, stderr := testFactory(map[string]string{cmdutil.EnvBaseURL: "http://" + addr, cmdutil.EnvMID: "M",
					cmdutil.EnvPublicKey: "pk", cmdutil.EnvSecretKey: "sk_secret"})
				err := cmdtest.ExecuteIn(context.Background(), c.cmd(f), append(c.args, "--dsn", d.dsn)...)
				require.Error(t, err)
				assert.True(t, strings.HasPrefix(err.Error(), "--dsn "+d.shown), err.Error())
				assert.True(t, strings.HasSuffix(err.Error(), " holds a password, which ps and shell history would show: "+
					"give the DSN in $UPICOLLECT_RECONCILE_DSN or in a file (--dsn-file FILE), or leave the password out "+
					"for the PostgreSQL driver to read from $PGPASSWORD or $PGPASSFILE (~/.pgpass)"), err.Error())
				code, kind := exitOf(t, err)
				assert.Equal(t, []any{cmdutil.ExitUsage, cmdutil.KindUsage}, []any{code, kind})
				for _, out := range []string{err.Error(), stdout.String(), stderr.String()} {
					assert.NotContains(t, out, "hunt")
					assert.NotContains(t, out, "Q9x")
				}
				assert.Empty(t, stdout.String())
			})
		}
	}
	assert.Zero(t, db.others(t), "no command connected to the database")
	assert.NoFileExists(t, sqlitePath, "nor created the SQLite file")
}

// TestDSNFile: --dsn-file's first line is the DSN, for every command;
// a file missing or empty, or given with --dsn, is a usage error; the
// environment's DSN is the last resort.
func TestDSNFile(t *testing.T) {
	dir := t.TempDir()
	ledger := "sqlite:" + filepath.Join(dir, "ledger.db")
	dsnFile := filepath.Join(dir, "ledger.dsn")
	require.NoError(t, os.WriteFile(dsnFile, []byte(ledger+"\n# the ledger of the shop\n"), 0o600))
	empty := filepath.Join(dir, "empty.dsn")
	require.NoError(t, os.WriteFile(empty, []byte("\nsqlite:x.db\n"), 0o600))
	cut := filepath.Join(dir, "cut.dsn") // a password's line break cut the DSN
	require.NoError(t, os.WriteFile(cut, []byte("postgres://shop:hunter\n2Q9x@db.example/shop\n"), 0o600))
	envLedger := "sqlite:" + filepath.Join(dir, "env.db")

	tests := []struct {
		name    string
		env     map[string]string
		dsn     string
		dsnFile string
		want    string // the DSN opened, or the usage error
	}{
		{"file", nil, "", dsnFile, ledger},
		{"file over the environment", map[string]string{envDSN: envLedger}, "", dsnFile, ledger},
		{"flag over the environment", map[string]string{envDSN: envLedger}, ledger, "", ledger},
		{"environment", map[string]string{envDSN: envLedger}, "", "", envLedger},
		{"none", nil, "", "", "missing UPICOLLECT_RECONCILE_DSN, --dsn or --dsn-file"},
		{"both flags", nil, ledger, dsnFile, "--dsn and --dsn-file: give one of them"},
		{"missing file", nil, "", dsnFile + ".gone", "--dsn-file: open " + dsnFile + ".gone: no such file or directory"},
		{"empty first line", nil, "", empty, "--dsn-file " + empty + ": the first line is empty; want the DSN there"},
		{"no DSN", nil, "", cut, "--dsn-file " + cut + ": the first line is no DSN: want postgres://…, postgresql://…, " +
			"sqlite:PATH or file:PATH on one line (percent-encode a password's / # ? @ % and spaces)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, _ := testLedger(tt.env)
			lo.DSN, lo.DSNFile = tt.dsn, tt.dsnFile
			got, err := lo.dsnSource()
			if strings.HasPrefix(tt.want, "sqlite:") {
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			code, _ := exitOf(t, err)
			assert.Equal(t, cmdutil.ExitUsage, code)
		})
	}

	// Every command reads it: track creates the ledger there, list reads it.
	f, _, _ := testFactory(nil)
	require.NoError(t, cmdtest.ExecuteIn(context.Background(), NewCmdTrack(f, nil), "ORD-1", "--amount", "499", "--create", "--dsn-file", dsnFile))
	f, stdout, _ := testFactory(nil)
	require.NoError(t, cmdtest.ExecuteIn(context.Background(), NewCmdList(f, nil), "--json", "--dsn-file", dsnFile))
	assert.Contains(t, stdout.String(), `"order_id":"ORD-1"`)
	assert.FileExists(t, filepath.Join(dir, "ledger.db"))
}
