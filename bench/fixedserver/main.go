// Command fixedserver answers the Payment Collection Service's four
// operations with fixed, realistic success bodies, so that a benchmark in
// another process measures its client alone.
//
// It listens on two loopback ports and prints one JSON line on stdout:
// {"addr":"127.0.0.1:…","control":"127.0.0.1:…"}. The API port serves
// POST /v1/payments/{op}; the control port serves GET /stats, the count of
// TCP connections the API port accepted (http.Server.ConnState StateNew),
// the requests it answered and the CPU time this process used. It exits
// when stdin closes.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"

	"github.com/upicollect/upicollect-go/bench/internal/answers"
)

// Stats is the answer of GET /stats.
type Stats struct {
	ConnsOpened int64 `json:"conns_opened"`
	Requests    int64 `json:"requests"`
	CPUNanos    int64 `json:"cpu_ns"` // user + system time of this process
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "fixedserver:", err)
		os.Exit(1)
	}
}

func run() error {
	byPath := answers.ByPath()
	var conns, requests atomic.Int64
	api := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			// Read the form as the service must; the answer is fixed.
			_, _ = io.Copy(io.Discard, r.Body)
			body, ok := byPath[r.URL.Path]
			if !ok || r.Method != http.MethodPost {
				http.NotFound(w, r)
				return
			}
			h := w.Header()
			h["Content-Type"] = []string{"application/json"}
			h["Content-Length"] = []string{strconv.Itoa(len(body))}
			_, _ = w.Write(body)
		}),
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		},
	}
	control := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/stats" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(Stats{ConnsOpened: conns.Load(), Requests: requests.Load(), CPUNanos: cpuNanos()})
	})}
	apiLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	controlLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() { _ = api.Serve(apiLn) }()
	go func() { _ = control.Serve(controlLn) }()
	if err := json.NewEncoder(os.Stdout).Encode(map[string]string{
		"addr": apiLn.Addr().String(), "control": controlLn.Addr().String(),
	}); err != nil {
		return err
	}
	// The parent holds stdin open; when it exits or closes it, so do we.
	_, _ = io.Copy(io.Discard, os.Stdin)
	return nil
}

func cpuNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
