package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// The tests start one PostgreSQL server for the whole package run, from
// the Debian package's binaries, in a temporary directory, on loopback, as
// an unprivileged user when they run as root; each test gets a database of
// its own. Under CI=true a missing PostgreSQL fails the tests; elsewhere
// they skip.

// postgres is the package's server, started at the first test that needs
// it and stopped by TestMain.
var postgres struct {
	once    sync.Once
	srv     *pgServer
	err     error
	created atomic.Int64
}

// pgServer is a running PostgreSQL.
type pgServer struct {
	dir, bin string
	port     int
	cred     *syscall.Credential // nil: as ourselves
}

// pgBinDir finds the newest /usr/lib/postgresql/*/bin holding initdb.
func pgBinDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errNoPostgres
}

var errNoPostgres = errors.New("PostgreSQL is not installed (no initdb in /usr/lib/postgresql/*/bin or PATH): apt-get install postgresql")

func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// unprivileged returns the credential to run PostgreSQL with when we are
// root (it refuses to run as root): the user nobody.
func unprivileged() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, fmt.Errorf("running as root and no user nobody to run PostgreSQL as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// freePort returns a loopback port nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *pgServer) run(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", name, err, out)
	}
	return nil
}

// startPostgres initialises a cluster in a new temporary directory and
// starts it on a free loopback port, durable as PostgreSQL is by default.
func startPostgres() (*pgServer, error) {
	bin, err := pgBinDir()
	if err != nil {
		return nil, err
	}
	cred, err := unprivileged()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "sqlstore-pg-")
	if err != nil {
		return nil, err
	}
	s := &pgServer{dir: dir, bin: bin, cred: cred}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, err
		}
	}
	if s.port, err = freePort(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	data := filepath.Join(dir, "data")
	if err := s.run(ctx, "initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-locale"); err != nil {
		return nil, err
	}
	// PostgreSQL's durable defaults (fsync, synchronous_commit and
	// full_page_writes on): the crash tests count on a commit that
	// returned being a commit.
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c fsync=on -c synchronous_commit=on -c full_page_writes=on -c max_connections=200", s.port, dir)
	if err := s.run(ctx, "pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start"); err != nil {
		return nil, err
	}
	return s, nil
}

// stop shuts the server down at once and removes its directory.
func (s *pgServer) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_ = s.run(ctx, "pg_ctl", "-D", filepath.Join(s.dir, "data"), "-m", "immediate", "-w", "stop")
	_ = os.RemoveAll(s.dir)
}

// addr is the server's TCP address.
func (s *pgServer) addr() string { return fmt.Sprintf("127.0.0.1:%d", s.port) }

// dsn is the address of database name on s.
func (s *pgServer) dsn(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, name)
}

// needPostgres returns the package's server, starting it on first use. It
// skips t when PostgreSQL is not installed, unless CI=true: then it fails.
func needPostgres(t testing.TB) *pgServer {
	t.Helper()
	postgres.once.Do(func() { postgres.srv, postgres.err = startPostgres() })
	if postgres.err != nil {
		// Never a skip: a store test that passes without its database
		// proves nothing (.ci/run installs postgresql).
		t.Fatalf("PostgreSQL: %v", postgres.err)
	}
	return postgres.srv
}

// newPostgresDB creates an empty database for t and returns its DSN and a
// handle closed at t's end.
func newPostgresDB(t testing.TB) (string, *sql.DB) {
	t.Helper()
	srv := needPostgres(t)
	admin, err := sql.Open("pgx", srv.dsn("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := fmt.Sprintf("test_%d", postgres.created.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", srv.dsn(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return srv.dsn(name), db
}

func TestMain(m *testing.M) {
	code := m.Run()
	if postgres.srv != nil {
		postgres.srv.stop()
	}
	os.Exit(code)
}
