// Package redistest starts a throwaway redis-server on loopback, for tests
// and benchmarks of code that shares state through Redis: its own process,
// on a free port, in a temporary directory, saving nothing.
package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// startTimeout bounds the wait for the server to accept connections.
const startTimeout = 30 * time.Second

// Server is a running redis-server.
type Server struct {
	// Addr is the server's host:port on 127.0.0.1.
	Addr string
	cmd  *exec.Cmd
	dir  string
}

// ErrNotInstalled is New's error when no redis-server is on the PATH.
var ErrNotInstalled = errors.New("redistest: redis-server not found (Debian: apt-get install redis-server)")

// New starts a redis-server on a free loopback port and returns once it
// accepts connections. Close stops it.
func New() (*Server, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotInstalled, err)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "redistest-")
	if err != nil {
		return nil, err
	}
	s := &Server{Addr: fmt.Sprintf("127.0.0.1:%d", port), dir: dir}
	s.cmd = exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--logfile", "")
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("redistest: starting redis-server: %w", err)
	}
	// The server says when it accepts connections; its log is kept for a
	// failure's message.
	ready := make(chan bool, 1)
	var log strings.Builder
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "Ready to accept connections") {
				ready <- true
				_, _ = io.Copy(io.Discard, out)
				return
			}
		}
		ready <- false // it exited first
	}()
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case ok := <-ready:
		if ok {
			return s, nil
		}
		s.Close()
		return nil, fmt.Errorf("redistest: redis-server exited on port %d:\n%s", port, log.String())
	case <-timer.C:
		s.Close()
		return nil, fmt.Errorf("redistest: redis-server did not start on port %d within %v", port, startTimeout)
	}
}

// Close stops the server and removes its directory.
func (s *Server) Close() {
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	_ = os.RemoveAll(s.dir)
}

// Start starts a server for tb and stops it at tb's cleanup. Without
// redis-server, tb is skipped, except under CI=true, where it fails: CI
// installs redis-server.
func Start(tb testing.TB) *Server {
	tb.Helper()
	s, err := New()
	switch {
	case errors.Is(err, ErrNotInstalled) && os.Getenv("CI") != "true":
		tb.Skip(err)
	case err != nil:
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// freePort returns a loopback TCP port nothing listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
