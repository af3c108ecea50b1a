package pgtest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestSharedDatabases: the shared server is one server, each database of
// it is empty and apart, and its DSN holds no password.
func TestSharedDatabases(t *testing.T) {
	ctx := testCtx(t)
	s := pgtest.Shared(t)
	assert.Same(t, s, pgtest.Shared(t), "one server per test binary")
	dsn1, db1 := s.NewDB(t)
	dsn2, db2 := s.NewDB(t)
	assert.NotEqual(t, dsn1, dsn2)
	u, err := url.Parse(dsn1)
	require.NoError(t, err)
	_, hasPassword := u.User.Password()
	assert.False(t, hasPassword)
	assert.Equal(t, s.Addr(), u.Host)
	assert.Equal(t, fmt.Sprintf("127.0.0.1:%d", s.Port()), s.Addr())

	_, err = db1.ExecContext(ctx, "CREATE TABLE t (x INT)")
	require.NoError(t, err)
	_, err = db2.ExecContext(ctx, "SELECT 1 FROM t")
	assert.Error(t, err, "the second database does not see the first's table")

	var fsync, syncCommit, fpw string
	require.NoError(t, db1.QueryRowContext(ctx, "SELECT current_setting('fsync'), current_setting('synchronous_commit'), current_setting('full_page_writes')").Scan(&fsync, &syncCommit, &fpw))
	assert.Equal(t, []string{"on", "on", "on"}, []string{fsync, syncCommit, fpw}, "durable settings")
}

// TestKillKeepsCommits: a row committed before Kill is there after
// Restart, and Stop after Kill is fine.
func TestKillKeepsCommits(t *testing.T) {
	ctx := testCtx(t)
	s := pgtest.Start(t)
	dsn, db := s.NewDB(t)
	_, err := db.ExecContext(ctx, "CREATE TABLE t (x INT)")
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, "INSERT INTO t VALUES (42)")
	require.NoError(t, err)

	pid := s.PID()
	require.Positive(t, pid)
	var backend int
	require.NoError(t, db.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&backend))
	if runtime.GOOS == "linux" {
		assert.Equal(t, pid, parentOf(t, backend), "PID is the postmaster, the backends' parent")
	}

	s.Kill(t)
	assert.Error(t, db.PingContext(ctx), "the server is down")
	assert.Zero(t, s.PID(), "no postmaster.pid once killed")
	s.Restart(t)
	assert.Positive(t, s.PID())
	var x int
	again := pgtest.Open(t, dsn)
	require.NoError(t, again.QueryRowContext(ctx, "SELECT x FROM t").Scan(&x))
	assert.Equal(t, 42, x)
	s.Stop()
	assert.Error(t, again.PingContext(ctx), "stopped")
	s.Stop() // twice is fine
}

// parentOf is the parent process id of pid, from /proc.
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(t, err)
	// pid (comm) state ppid ...: comm may hold spaces, so read after its ')'.
	fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	require.GreaterOrEqual(t, len(fields), 2)
	ppid, err := strconv.Atoi(fields[1])
	require.NoError(t, err)
	return ppid
}

// TestRoleDatabase: a role's database is reached with its password, even
// one with every character a URL trips on, and refused with a wrong one;
// the server's command lines hold no password.
func TestRoleDatabase(t *testing.T) {
	ctx := testCtx(t)
	s := pgtest.Shared(t)
	// A part no other process of the machine has on its command line.
	mark := fmt.Sprintf("%x", rand.Uint64())
	pw := "s3cr/et#" + mark + "?x@y%zz&k'"
	dsn := s.NewRoleDatabase(t, "shop", pw)
	db := pgtest.Open(t, dsn)
	var user, dbname string
	require.NoError(t, db.QueryRowContext(ctx, "SELECT current_user, current_database()").Scan(&user, &dbname))
	assert.Equal(t, []string{"shop", "shop"}, []string{user, dbname})

	u, err := url.Parse(dsn)
	require.NoError(t, err)
	u.User = url.UserPassword("shop", pw+"x")
	wrong := pgtest.Open(t, u.String())
	err = wrong.PingContext(ctx)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), pw)
	u.User = url.User("shop")
	none := pgtest.Open(t, u.String())
	assert.Error(t, none.PingContext(ctx), "no password, no entry")

	if runtime.GOOS == "linux" {
		ps, err := exec.CommandContext(ctx, "ps", "-eo", "args").Output()
		if err == nil { // ps may be missing from a minimal image
			assert.NotContains(t, string(ps), mark, "no password on a command line")
		}
	}
}

// TestRoleMustBePlain: a role name that would need quoting is refused
// before any statement.
func TestRoleMustBePlain(t *testing.T) {
	s := pgtest.Shared(t)
	for _, role := range []string{"", "Shop", "1shop", "shop; DROP", "shop-1"} {
		ft := &fatalTB{TB: t}
		ft.run(func() { s.NewRoleDatabase(ft, role, "pw") })
		assert.True(t, ft.failed, "%q", role)
		assert.Contains(t, ft.msg, "not a plain identifier", "%q", role)
	}
}

// fatalTB is a testing.TB whose Fatal ends only the goroutine run starts,
// recording the message.
type fatalTB struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatal(args ...any) {
	f.failed, f.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.failed, f.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fatalTB) run(fn func()) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		fn()
	}()
	wg.Wait()
}

// TestQuotedPassword: a password with a quote is stored as given, not cut
// at the quote.
func TestQuotedPassword(t *testing.T) {
	ctx := testCtx(t)
	s := pgtest.Shared(t)
	dsn := s.NewRoleDatabase(t, "quoted", "it''s'")
	require.NoError(t, pgtest.Open(t, dsn).PingContext(ctx))
	assert.True(t, strings.Contains(dsn, "quoted:"), "the role is the URL's user")
}

// TestOrphanReaped: a server whose test binary died without stopping it
// (here: its owner file names a process that has ended) is stopped and its
// directory removed by the next New.
func TestOrphanReaped(t *testing.T) {
	ctx := testCtx(t)
	orphan := pgtest.Start(t)
	_, db := orphan.NewDB(t)
	require.NoError(t, db.PingContext(ctx))
	ended := exec.Command("true")
	require.NoError(t, ended.Run())
	pgtest.SetOwner(t, orphan, ended.Process.Pid)

	pgtest.Start(t)
	db.SetMaxIdleConns(0) // a new connection, to the stopped server
	assert.Error(t, db.PingContext(ctx), "the orphan was stopped")
	assert.NoDirExists(t, pgtest.Dir(orphan))
}

// helperEnv makes the test binary a helper of TestMainRunsAndStops: its
// value says what the helper does.
const helperEnv = "PGTEST_MAIN_HELPER"

// dirMark precedes the shared server's directory in the helper's output.
const dirMark = "shared server directory: "

// TestMainRunsAndStops runs this test binary again as a helper: Main
// stops the shared server a test started, removing its directory, and
// exits with the tests' code.
func TestMainRunsAndStops(t *testing.T) {
	switch os.Getenv(helperEnv) {
	case "shared":
		fmt.Println(dirMark + pgtest.Dir(pgtest.Shared(t)))
		return
	case "fail":
		t.Error("failing on purpose")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	helper := func(mode string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestMainRunsAndStops$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperEnv+"="+mode)
		return cmd
	}

	out, err := helper("shared").CombinedOutput()
	require.NoError(t, err, "%s", out)
	_, dir, found := strings.Cut(string(out), dirMark)
	require.True(t, found, "%s", out)
	dir, _, _ = strings.Cut(dir, "\n")
	require.DirExists(t, filepath.Dir(dir))
	assert.NoDirExists(t, dir, "Main stopped the shared server and removed its directory")

	out, err = helper("fail").CombinedOutput()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "%v: %s", err, out)
	assert.Equal(t, 1, exit.ExitCode(), "the tests' code")
}
