package redistest

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitBound bounds every wait of these tests; none is expected to take it.
const waitBound = 30 * time.Second

// conn is a client connection that speaks just enough RESP to PING.
type conn struct {
	net.Conn
	r *bufio.Reader
}

func dial(t *testing.T, addr string) *conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, waitBound)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.SetDeadline(time.Now().Add(waitBound)))
	return &conn{c, bufio.NewReader(c)}
}

func (c *conn) send(t *testing.T) {
	t.Helper()
	_, err := io.WriteString(c, "PING\r\n")
	require.NoError(t, err)
}

func (c *conn) pong(t *testing.T) {
	t.Helper()
	line, err := c.r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "+PONG\r\n", line)
}

func (c *conn) ping(t *testing.T) {
	t.Helper()
	c.send(t)
	c.pong(t)
}

// TestNewServesUntilClosed: New's server answers on Addr until Close, which
// stops it and removes its directory.
func TestNewServesUntilClosed(t *testing.T) {
	s, err := New()
	if errors.Is(err, ErrNotInstalled) && os.Getenv("CI") != "true" {
		t.Skip(err)
	}
	require.NoError(t, err)
	host, _, err := net.SplitHostPort(s.Addr)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1", host)
	c := dial(t, s.Addr)
	c.ping(t)
	c.ping(t)
	_, err = os.Stat(s.dir)
	require.NoError(t, err)

	s.Close()
	_, err = os.Stat(s.dir)
	assert.True(t, os.IsNotExist(err), "the directory is removed: %v", err)
	_, err = c.r.ReadString('\n')
	assert.Error(t, err, "the server's connection ends with it")
	_, err = net.DialTimeout("tcp", s.Addr, waitBound)
	assert.Error(t, err, "nothing listens on Addr after Close")
}

// fakeTB records what Start does with its testing.TB; Skip and Fatal end
// Start as the real ones would, by unwinding to run.
type fakeTB struct {
	testing.TB
	skipped, fatal []any
	cleanups       []func()
}

type stopped struct{}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Skip(args ...any)  { f.skipped = args; panic(stopped{}) }
func (f *fakeTB) Fatal(args ...any) { f.fatal = args; panic(stopped{}) }
func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) run() (s *Server) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stopped); !ok {
				panic(r)
			}
		}
	}()
	return Start(f)
}

// TestStart: without redis-server Start skips, but fails under CI=true;
// with it, it returns a running server that tb's cleanup stops.
func TestStart(t *testing.T) {
	empty := t.TempDir()
	path := os.Getenv("PATH")
	_, lookErr := exec.LookPath("redis-server")
	installed := lookErr == nil || os.Getenv("CI") == "true" // CI installs it
	for _, tt := range []struct {
		name, path, ci string
		skip, fatal    bool
	}{
		{name: "not installed", path: empty, ci: "", skip: true},
		{name: "not installed, on CI", path: empty, ci: "true", fatal: true},
		{name: "installed", path: path, ci: "true"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.path == path && !installed && os.Getenv("CI") != "true" {
				t.Skip(lookErr) // on CI, where redis-server is installed, the case runs and fails
			}
			t.Setenv("PATH", tt.path)
			t.Setenv("CI", tt.ci)
			f := &fakeTB{TB: t}
			t.Cleanup(func() {
				for _, fn := range f.cleanups {
					fn() // a server a failed check left running
				}
			})
			s := f.run()
			if tt.skip {
				require.Len(t, f.skipped, 1)
				assert.ErrorIs(t, f.skipped[0].(error), ErrNotInstalled)
			} else {
				assert.Nil(t, f.skipped)
			}
			if tt.fatal {
				require.Len(t, f.fatal, 1)
				assert.ErrorIs(t, f.fatal[0].(error), ErrNotInstalled)
			} else {
				assert.Nil(t, f.fatal)
			}
			if tt.skip || tt.fatal {
				assert.Nil(t, s)
				assert.Empty(t, f.cleanups)
				return
			}
			require.NotNil(t, s)
			require.Len(t, f.cleanups, 1)
			dial(t, s.Addr).ping(t)
			stop := f.cleanups[0]
			f.cleanups = nil
			stop()
			_, err := os.Stat(s.dir)
			assert.True(t, os.IsNotExist(err), "the cleanup stopped the server: %v", err)
		})
	}
}

// TestNewReportsAServerThatExits: a redis-server that exits before it
// accepts connections is an error that carries what it printed.
func TestNewReportsAServerThatExits(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho 'Bad directive or wrong number of arguments'\nexit 1\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "redis-server"), []byte(script), 0o755))
	t.Setenv("PATH", dir)
	s, err := New()
	require.Error(t, err)
	assert.Nil(t, s)
	assert.Contains(t, err.Error(), "redis-server exited on port")
	assert.Contains(t, err.Error(), "Bad directive or wrong number of arguments")
}

// startServer is Start for these tests, which need a real server.
func startServer(t *testing.T) *Server {
	t.Helper()
	return Start(t)
}

// TestProxyForwards: a proxy without a delay passes every request and
// answer through, on every connection, until Close ends them.
func TestProxyForwards(t *testing.T) {
	s := startServer(t)
	p, err := NewProxy(s.Addr, 0)
	require.NoError(t, err)
	a, b := dial(t, p.Addr), dial(t, p.Addr)
	for range 3 {
		a.ping(t)
		b.ping(t)
	}
	p.Close()
	_, err = a.r.ReadString('\n')
	assert.Error(t, err, "Close ends the proxy's connections")
	_, err = net.DialTimeout("tcp", p.Addr, waitBound)
	assert.Error(t, err, "nothing listens on Addr after Close")
}

// TestProxyWithoutTarget: a connection to a proxy whose target refuses is
// closed, and the proxy goes on accepting.
func TestProxyWithoutTarget(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := ln.Addr().String()
	require.NoError(t, ln.Close())
	p, err := NewProxy(closed, 0)
	require.NoError(t, err)
	defer p.Close()
	for range 2 {
		_, err := dial(t, p.Addr).r.ReadString('\n')
		assert.ErrorIs(t, err, io.EOF)
	}
}

// TestProxyPauseHoldsUntilResume: while paused the proxy holds what it is
// sent, and says so on Held; Resume lets it through. A second Pause or
// Resume changes nothing.
func TestProxyPauseHoldsUntilResume(t *testing.T) {
	s := startServer(t)
	p, err := NewProxy(s.Addr, 0)
	require.NoError(t, err)
	defer p.Close()
	c := dial(t, p.Addr)
	c.ping(t)

	p.Pause()
	p.Pause()
	c.send(t)
	select {
	case <-p.Held():
	case <-time.After(waitBound):
		t.Fatal("a PING sent while paused was not held")
	}
	p.Resume()
	p.Resume()
	c.pong(t)
	c.ping(t)
}

// TestProxyDelaysEachWay: each chunk waits for its due time, the delay
// after it was read, once on the way in and once on the way out; nothing
// else waits, not even the connection's end.
func TestProxyDelaysEachWay(t *testing.T) {
	s := startServer(t)
	var (
		mu    sync.Mutex
		waits []time.Duration
	)
	p, err := newProxy(s.Addr, time.Hour, func(d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		waits = append(waits, d)
	})
	require.NoError(t, err)
	c := dial(t, p.Addr)
	c.ping(t)
	require.NoError(t, c.Close())
	p.Close() // returns once both pipes are done
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, waits, 2)
	for _, d := range waits {
		assert.Greater(t, d, time.Duration(0))
		assert.LessOrEqual(t, d, time.Hour)
	}
}

// TestNewProxyDelays: NewProxy's delay is real: a PING through a proxy
// that delays each way still gets its PONG.
func TestNewProxyDelays(t *testing.T) {
	s := startServer(t)
	p, err := NewProxy(s.Addr, time.Millisecond)
	require.NoError(t, err)
	defer p.Close()
	dial(t, p.Addr).ping(t)
}
