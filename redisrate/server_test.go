package redisrate_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// waitBound bounds every wait of a test (a context's timeout), so that a
// regression fails instead of hanging. It is never a measurement.
const waitBound = 30 * time.Second

// startRedis starts a redis-server of its own on a free loopback port, in a
// temporary directory, with nothing saved; it is stopped at the test's
// cleanup. Without redis-server the test is skipped, except under CI=true,
// where it fails: CI installs it.
func startRedis(t testing.TB) *redis.Client {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redis-server not found (CI installs it: apt-get install redis-server): %v", err)
		}
		t.Skipf("redis-server not found: %v", err)
	}
	port := freePort(t)
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", t.TempDir(), "--logfile", "")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting redis-server: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
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
	select {
	case ok := <-ready:
		if !ok {
			t.Fatalf("redis-server exited on port %d:\n%s", port, log.String())
		}
	case <-time.After(waitBound):
		t.Fatalf("redis-server did not start on port %d", port)
	}
	rdb := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port)})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// freePort returns a loopback TCP port nothing listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
