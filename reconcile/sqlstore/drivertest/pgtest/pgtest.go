// Package pgtest starts a throwaway PostgreSQL for tests: the Debian
// package's binaries (the newest /usr/lib/postgresql/*/bin, else initdb on
// the PATH), a cluster in a temporary directory, listening on a free
// loopback port, run as the user nobody when the tests run as root
// (PostgreSQL refuses root), with PostgreSQL's durable settings (fsync,
// synchronous_commit and full_page_writes on), so that a commit that
// returned is a commit even across Kill.
//
// It is a test kit, not part of the store: every module's tests (sqlstore's,
// the CLI's) share it. A missing PostgreSQL fails the test, never skips it:
// a store test that passes without its database proves nothing.
//
// The superuser postgres connects over loopback without a password (the
// DSNs of DSN and NewDatabase hold none); a role made by NewRoleDatabase
// must give its password (scram-sha-256). A password is sent only inside
// a SQL statement on a connection, never on a command line or in a message
// of this package, so neither ps nor a test's output shows it.
//
// A package's tests share one server through Shared, stopped by Main;
// a test that needs a server of its own (to Kill it) calls Start. A server
// left running by a test binary that died (killed, or ended by -timeout,
// where no cleanup runs) is stopped by the next New on the machine.
package pgtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver of database/sql
)

// startTimeout bounds initdb and pg_ctl start; stopTimeout, a stop.
const (
	startTimeout = 2 * time.Minute
	stopTimeout  = time.Minute
)

// ErrNotInstalled is New's error when no PostgreSQL binaries are found.
var ErrNotInstalled = errors.New("pgtest: PostgreSQL is not installed (no initdb in /usr/lib/postgresql/*/bin or PATH): apt-get install postgresql")

// Server is a running PostgreSQL cluster of a test run.
type Server struct {
	dir, bin string
	port     int
	cred     *syscall.Credential // nil: as ourselves
	created  atomic.Int64        // databases made by NewDatabase
	mu       sync.Mutex          // serialises Kill, Restart and Stop
	stopped  bool                // Stop ran: the directory is gone
}

// New initialises a cluster in a new temporary directory and starts it on
// a free loopback port. The caller stops it with Stop; tests use Start or
// Shared, which do.
func New() (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	cred, err := unprivileged()
	if err != nil {
		return nil, err
	}
	reapOrphans(bin, cred)
	// Not t.TempDir: its parent directories are closed to nobody.
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: bin, cred: cred}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if err := s.init(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if err := s.start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// A server's directory is dirPrefix* in the temporary directory, and its
// ownerFile holds the process id of the test binary that started it.
const (
	dirPrefix = "pgtest-"
	ownerFile = "owner"
)

// reapOrphans stops the servers whose test binary is gone without stopping
// them (killed, or ended by -timeout's panic, where no cleanup runs) and
// removes their directories. A directory without an owner yet, or whose
// owner is alive, is left alone.
func reapOrphans(bin string, cred *syscall.Credential) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(string(b))
		if err != nil || pid <= 0 || pid == os.Getpid() || alive(pid) {
			continue
		}
		s := &Server{dir: dir, bin: bin, cred: cred}
		if s.stop() == nil {
			_ = os.RemoveAll(dir)
		}
	}
}

// alive reports whether a process pid exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// hba lets the superuser in over loopback and the unix socket without a
// password, and every other role over loopback with its password only.
const hba = `local all all trust
host all postgres 127.0.0.1/32 trust
host all all 127.0.0.1/32 scram-sha-256
`

func (s *Server) init() error {
	if s.cred != nil {
		if err := os.Chown(s.dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if err := s.run(ctx, "initdb", "-D", s.data(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-locale"); err != nil {
		return err
	}
	// initdb wrote pg_hba.conf as the server's user: writing over it
	// keeps that owner, and its mode.
	return os.WriteFile(filepath.Join(s.data(), "pg_hba.conf"), []byte(hba), 0o600)
}

// start starts the cluster on a free port (the one it had, on a restart).
func (s *Server) start() error {
	if s.port == 0 {
		p, err := freePort()
		if err != nil {
			return err
		}
		s.port = p
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	// PostgreSQL's durable defaults, said out loud: the crash tests count
	// on a commit that returned being a commit.
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c fsync=on -c synchronous_commit=on -c full_page_writes=on -c max_connections=200", s.port, s.dir)
	return s.run(ctx, "pg_ctl", "-D", s.data(), "-o", opts, "-l", filepath.Join(s.dir, "log"), "-w", "-t", "60", "start")
}

// Start starts a server for tb and stops it at tb's cleanup; it fails tb
// if PostgreSQL is not installed or does not start.
func Start(tb testing.TB) *Server {
	tb.Helper()
	s, err := New()
	if err != nil {
		tb.Fatalf("PostgreSQL: %v", err)
	}
	tb.Cleanup(s.Stop)
	return s
}

// shared is the server of Shared, started at its first call and stopped
// by Main.
var shared struct {
	once sync.Once
	srv  *Server
	err  error
	main atomic.Bool // Main is running the tests
}

// Shared returns the test binary's shared server, starting it at the first
// call. The package's TestMain must be Main (or call it), which stops the
// server when the tests end; without it Shared fails tb rather than leave
// a server running.
func Shared(tb testing.TB) *Server {
	tb.Helper()
	if !shared.main.Load() {
		tb.Fatal("pgtest.Shared needs the package's TestMain to run pgtest.Main, which stops the server")
	}
	shared.once.Do(func() { shared.srv, shared.err = New() })
	if shared.err != nil {
		tb.Fatalf("PostgreSQL: %v", shared.err)
	}
	return shared.srv
}

// Main runs the tests of m, stops the shared server if one was started,
// and exits with m's code: a package's TestMain is
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
func Main(m *testing.M) {
	shared.main.Store(true)
	code := m.Run()
	if shared.srv != nil {
		shared.srv.Stop()
	}
	os.Exit(code)
}

// PID is the process id of the server's postmaster, the parent of its
// backends, from its postmaster.pid; 0 when that cannot be read.
func (s *Server) PID() int {
	b, err := os.ReadFile(filepath.Join(s.data(), "postmaster.pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	return pid
}

// Addr is the server's TCP address, 127.0.0.1:port.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Port is the server's loopback TCP port.
func (s *Server) Port() int { return s.port }

// DSN is the URL of database name on s as the superuser, which needs no
// password.
func (s *Server) DSN(name string) string {
	return "postgres://postgres@" + s.Addr() + "/" + url.PathEscape(name) + "?sslmode=disable"
}

// NewDatabase creates an empty database for tb, owned by the superuser,
// and returns its DSN.
func (s *Server) NewDatabase(tb testing.TB) string {
	tb.Helper()
	name := fmt.Sprintf("test_%d", s.created.Add(1))
	s.exec(tb, "CREATE DATABASE "+name)
	return s.DSN(name)
}

// NewDB creates an empty database for tb and returns its DSN and a handle
// of it, closed at tb's end.
func (s *Server) NewDB(tb testing.TB) (string, *sql.DB) {
	tb.Helper()
	dsn := s.NewDatabase(tb)
	return dsn, Open(tb, dsn)
}

// NewRoleDatabase creates a login role named role whose password is
// password and a database of the same name owned by it, and returns the
// database's URL with the password percent-encoded. Neither the password
// nor the URL is printed, even when a statement fails. role must be a
// plain SQL identifier (lower-case letters, digits, _).
func (s *Server) NewRoleDatabase(tb testing.TB, role, password string) string {
	tb.Helper()
	if !plainIdent(role) {
		tb.Fatalf("pgtest: role %q is not a plain identifier", role)
	}
	s.exec(tb, "CREATE ROLE "+role+" LOGIN PASSWORD '"+strings.ReplaceAll(password, "'", "''")+"'")
	s.exec(tb, "CREATE DATABASE "+role+" OWNER "+role)
	u := url.URL{Scheme: "postgres", User: url.UserPassword(role, password), Host: s.Addr(), Path: "/" + role, RawQuery: "sslmode=disable"}
	return u.String()
}

// Open opens dsn with the pgx driver and closes the handle at tb's end.
func Open(tb testing.TB, dsn string) *sql.DB {
	tb.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		tb.Fatalf("pgtest: opening a database: %v", err) // pgx does not echo the DSN
	}
	tb.Cleanup(func() { _ = db.Close() })
	return db
}

// exec runs query as the superuser over the unix socket. Its failure names
// the statement's first word, never the statement: it may hold a password.
func (s *Server) exec(tb testing.TB, query string) {
	tb.Helper()
	admin, err := sql.Open("pgx", fmt.Sprintf("host=%s port=%d user=postgres dbname=postgres", s.dir, s.port))
	if err != nil {
		tb.Fatal(err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := admin.ExecContext(ctx, query); err != nil {
		verb, _, _ := strings.Cut(query, " ")
		tb.Fatalf("pgtest: %s: %v", verb, err)
	}
}

// Kill stops the server as a crash would (pg_ctl stop -m immediate: no
// checkpoint, every connection cut); Restart starts it again on the same
// port and data, where what was committed before Kill is found again.
func (s *Server) Kill(tb testing.TB) {
	tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.stop(); err != nil {
		tb.Fatalf("pgtest: kill: %v", err)
	}
}

// Restart starts a killed server again on its port and data.
func (s *Server) Restart(tb testing.TB) {
	tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.start(); err != nil {
		tb.Fatalf("pgtest: restart: %v", err)
	}
}

// Stop shuts the server down at once and removes its directory. It may be
// called more than once, and after Kill.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	s.stopped = true
	_ = s.stop()
	_ = os.RemoveAll(s.dir)
}

func (s *Server) stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	if _, err := os.Stat(filepath.Join(s.data(), "postmaster.pid")); errors.Is(err, os.ErrNotExist) {
		return nil // not running
	}
	return s.run(ctx, "pg_ctl", "-D", s.data(), "-m", "immediate", "-w", "stop")
}

func (s *Server) data() string { return filepath.Join(s.dir, "data") }

// run runs a PostgreSQL program as the server's user; its error holds the
// program's output (its arguments hold no secrets).
func (s *Server) run(ctx context.Context, name string, args ...string) error {
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

// unprivileged returns the credential to run PostgreSQL with when we are
// root: the user nobody's.
func unprivileged() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, fmt.Errorf("pgtest: running as root and no user nobody to run PostgreSQL as: %w", err)
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
