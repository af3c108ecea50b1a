package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReconcileRunFollowsTheSandboxClock tries a late payment end to end
// through the command line alone: `upicollect sandbox` serves, the payer
// fails, the ledger delivers Failed; the bank's SUCCESS comes three hours
// later in sandbox time, `upicollect sandbox advance 3h` moves there, and
// a sweeper on this machine's clock (the default) finds nothing due while
// one on the sandbox's (--clock sandbox, or auto) delivers LatePaid to the
// command.
func TestReconcileRunFollowsTheSandboxClock(t *testing.T) {
	rs := startSandboxCmd(t, cleanEnv(), "--quiet")
	dir := t.TempDir()
	out := filepath.Join(dir, "delivered.jsonl")
	env := append(rs.env(), envDSN+"=sqlite:"+filepath.Join(dir, "shop.db"))
	deliver := "--deliver=exec:cat >> '" + out + "'"
	ok := func(args ...string) string {
		t.Helper()
		r := cli(t, env, "", args...)
		require.Equal(t, exitOK, r.code, "%v: %s", args, r.output())
		return r.stdout
	}
	delivered := func() []string {
		t.Helper()
		b, err := os.ReadFile(out)
		if os.IsNotExist(err) {
			return nil
		}
		require.NoError(t, err)
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}

	ok(intentArgs("late-ledger-1")...)
	ok("reconcile", "track", "late-ledger-1", "--amount", "499", "--create")
	ok("sandbox", "pay", "late-ledger-1", "--result", "fail")
	ok("sandbox", "advance", "1m")
	ok("reconcile", "run", "--once", "--clock", "sandbox", deliver)
	got := delivered()
	require.Len(t, got, 1)
	assert.Contains(t, got[0], `"result":"failed"`)
	assert.Contains(t, got[0], `"paid":"0.00"`)

	ok("sandbox", "pay", "late-ledger-1", "--after", "3h", "--utr", "LATE0002")
	ok("sandbox", "advance", "3h")
	ok("reconcile", "run", "--once", deliver)
	assert.Len(t, delivered(), 1, "on this machine's clock (the default) the late check is hours away")
	step := ok("reconcile", "run", "--once", "--clock", "auto", deliver)
	got = delivered()
	require.Len(t, got, 2, step)
	assert.Contains(t, got[1], `"result":"late_paid"`)
	assert.Contains(t, got[1], `"paid":"499.00"`)
	assert.Contains(t, got[1], `"utr":"LATE0002"`)

	r := cli(t, env, "", "reconcile", "run", "--once", "--clock", "sandbox", deliver, "--base-url", "https://pay.example.com")
	assert.NotEqual(t, exitOK, r.code, "--clock sandbox against no sandbox: %s", r.output())
	assert.Contains(t, r.stderr, "no sandbox on this machine")
	r = cli(t, env, "", "reconcile", "run", "--once", "--clock", "moon", deliver)
	assert.Equal(t, exitUsage, r.code, r.output())
	assert.Len(t, delivered(), 2, "each event once")
}
