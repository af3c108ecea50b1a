package main

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest/pgtest"
	"github.com/upicollect/upicollect-go/sandbox"
)

// psPassword is the password of the ledger role of the ps test: URL
// syntax in it, so that it is percent-encoded in a URL and not elsewhere.
const psPassword = "ps/Wd#K7?q@w%v&zQ"

// TestReconcileRunPasswordNotInPs runs the upicollect binary's `reconcile
// run` against a real PostgreSQL whose role has a password, given each
// way that keeps it off the command line: the DSN in
// UPICOLLECT_RECONCILE_DSN, in a --dsn-file, or a --dsn without the
// password and the driver's own PGPASSWORD or PGPASSFILE. Once the run
// has done a step (so it logged in), its /proc/PID/cmdline, what ps
// shows, holds no part of the password. The same DSN in --dsn is refused
// (exit 2) and says how to pass it.
func TestReconcileRunPasswordNotInPs(t *testing.T) {
	pg := pgtest.Start(t)
	dsn := pg.NewRoleDatabase(t, "psledger", psPassword)
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	u.User = url.User("psledger")
	bare := u.String() // the DSN without its password
	require.NotContains(t, bare, "ps%2FWd")
	s := sandbox.Start(t)
	dir := t.TempDir()
	dsnFile := filepath.Join(dir, "ledger.dsn")
	require.NoError(t, os.WriteFile(dsnFile, []byte(dsn+"\n"), 0o600))
	pgpass := filepath.Join(dir, "pgpass")
	require.NoError(t, os.WriteFile(pgpass, []byte(fmt.Sprintf("127.0.0.1:%d:psledger:psledger:%s\n", pg.Port(), psPassword)), 0o600))

	run := []string{"reconcile", "run", "--deliver", "exec:cat >/dev/null", "--interval", "1h"}
	tests := []struct {
		name string
		env  []string
		args []string
	}{
		{"UPICOLLECT_RECONCILE_DSN", []string{envDSN + "=" + dsn}, nil},
		{"--dsn-file", nil, []string{"--dsn-file", dsnFile}},
		{"PGPASSWORD", []string{"PGPASSWORD=" + psPassword}, []string{"--dsn", bare}},
		{"PGPASSFILE", []string{"PGPASSFILE=" + pgpass}, []string{"--dsn", bare}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, out, stderr := startCLI(t, append(sandboxEnv(s), tt.env...), append(run, tt.args...)...)
			line, err := out.ReadString('\n')
			require.NoError(t, err, stderr.String())
			assert.Regexp(t, `^step \S+: checked 0, .* errors 0; next due none\n$`, line, "logged in, stepped, and waits")
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", cmd.Process.Pid))
			require.NoError(t, err)
			cmdline := strings.ReplaceAll(string(b), "\x00", " ")
			assert.Contains(t, cmdline, " reconcile run --deliver ", "the run's own command line")
			assertNoPart(t, cmdline, psPassword, "ps")
			assertNoPart(t, cmdline, url.QueryEscape(psPassword), "ps, encoded")

			require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
			rest, err := io.ReadAll(out)
			require.NoError(t, err)
			assert.Equal(t, exitInterrupted, exitCode(t, cmd), "%s", rest)
			assertNoPart(t, line+string(rest)+stderr.String(), psPassword, "output")
		})
	}

	t.Run("--dsn with the password", func(t *testing.T) {
		cmd, out, stderr := startCLI(t, sandboxEnv(s), append(run, "--dsn", dsn)...)
		rest, err := io.ReadAll(out)
		require.NoError(t, err)
		assert.Equal(t, exitUsage, exitCode(t, cmd))
		assert.Empty(t, rest)
		assert.Contains(t, stderr.String(), "holds a password, which ps and shell history would show: give the DSN in "+
			"$UPICOLLECT_RECONCILE_DSN or in a file (--dsn-file FILE), or leave the password out for the PostgreSQL driver "+
			"to read from $PGPASSWORD or $PGPASSFILE (~/.pgpass)")
		assertNoPart(t, stderr.String(), psPassword, "refusal")
		assertNoPart(t, stderr.String(), url.QueryEscape(psPassword), "refusal, encoded")
	})
}
