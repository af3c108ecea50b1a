// Package harness holds what the benchmarks and the load program share: the
// fixed-answer server in its own process and the four ways of calling it
// (the SDK, the hand-written floor, naive code and resty).
package harness

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"
)

// Server is a running fixedserver process.
type Server struct {
	URL     string // base URL of the API port, "http://127.0.0.1:…"
	control string
	cmd     *exec.Cmd
	stdin   io.Closer
	dir     string
}

// Stats is what the server counted since it started.
type Stats struct {
	ConnsOpened int64 `json:"conns_opened"`
	Requests    int64 `json:"requests"`
	CPUNanos    int64 `json:"cpu_ns"`
}

// moduleDir is the bench module's root, found from this file's place in it.
func moduleDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// StartServer builds fixedserver and starts it in its own process.
func StartServer() (*Server, error) {
	dir, err := os.MkdirTemp("", "fixedserver")
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "fixedserver")
	build := exec.Command("go", "build", "-o", bin, "./fixedserver")
	build.Dir = moduleDir()
	if out, err := build.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("go build fixedserver: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &Server{cmd: cmd, stdin: stdin, dir: dir}
	var addrs struct{ Addr, Control string }
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &addrs)
	}
	if err != nil || addrs.Addr == "" {
		s.Close()
		return nil, fmt.Errorf("fixedserver did not print its addresses: %v (%q)", err, line)
	}
	s.URL, s.control = "http://"+addrs.Addr, "http://"+addrs.Control
	return s, nil
}

// statsClient is a plain client for the control port, apart from every
// client measured.
var statsClient = &http.Client{Timeout: 10 * time.Second}

// Stats reads the server's counters.
func (s *Server) Stats() (Stats, error) {
	var st Stats
	res, err := statsClient.Get(s.control + "/stats")
	if err != nil {
		return st, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return st, errors.New("stats: " + res.Status)
	}
	return st, json.NewDecoder(res.Body).Decode(&st)
}

// Close stops the server and waits for it.
func (s *Server) Close() {
	s.stdin.Close()
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
	os.RemoveAll(s.dir)
}
