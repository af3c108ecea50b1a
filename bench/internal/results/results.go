// Package results is the shape of the load program's JSON output, which the
// budget and chart programs read.
package results

import (
	"encoding/json"
	"os"
)

// Load is one run of the load program.
type Load struct {
	Machine  Machine   `json:"machine"`
	Duration string    `json:"duration"` // of each concurrency run
	Runs     []Run     `json:"runs"`
	Waiters  []Waiters `json:"waiters"`
}

// Machine describes where the figures were measured.
type Machine struct {
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	CPUModel   string `json:"cpu_model"`
	GoVersion  string `json:"go_version"`
	OS         string `json:"os"`
}

// Run is one implementation at one number of concurrent callers, making
// status checks for a fixed time against the fixed-answer server.
type Run struct {
	Impl        string  `json:"impl"`
	Callers     int     `json:"callers"`
	Calls       int64   `json:"calls"`
	Errors      int64   `json:"errors"`
	FirstError  string  `json:"first_error,omitempty"`
	Seconds     float64 `json:"seconds"`
	PerSecond   float64 `json:"calls_per_second"`
	P50Micros   float64 `json:"p50_us"`
	P99Micros   float64 `json:"p99_us"`
	ConnsOpened int64   `json:"conns_opened"` // counted by the server
	// CPU time per call, in microseconds, of the calling process and of
	// the server process.
	ClientCPUMicros float64 `json:"client_cpu_us_per_call"`
	ServerCPUMicros float64 `json:"server_cpu_us_per_call"`
}

// Waiters is many concurrent WaitForPayment calls on one pending order of
// an in-process sandbox.
type Waiters struct {
	RateLimit    string `json:"rate_limit"` // "none" or "<n>/s burst <b>"
	Waiters      int    `json:"waiters"`
	PollInterval string `json:"poll_interval"`
	// Heap and stack per waiting call, while all wait: the live heap
	// objects (runtime.MemStats.HeapAlloc after a collection) and the
	// goroutine stacks (StackInuse).
	HeapPerWaiter  float64 `json:"heap_bytes_per_waiter"`
	StackPerWaiter float64 `json:"stack_bytes_per_waiter"`
	BytesPerWaiter float64 `json:"bytes_per_waiter"` // heap + stack
	// HeapSpansPerWaiter is the heap spans in use (HeapInuse) per waiting
	// call: the live objects plus the free slots around them that the
	// start-up burst's garbage left in its spans, which later allocations
	// reuse. Shown, not budgeted: it depends on the process's history more
	// than on what a wait holds.
	HeapSpansPerWaiter float64 `json:"heap_spans_bytes_per_waiter"`
	// StartupBurst is the requests the server saw in the first poll interval.
	StartupBurst int64 `json:"startup_burst"`
	// RequestsPerSecond is the server's rate after the first interval.
	RequestsPerSecond float64 `json:"requests_per_second"`
	ConnsOpened       int64   `json:"conns_opened"`
	// AcceptErrors counts the server's failures to accept a connection
	// (such as running out of file descriptors).
	AcceptErrors int64 `json:"accept_errors"`
	Paid         int   `json:"paid"`   // waits that returned the payment
	Errors       int   `json:"errors"` // waits that ended otherwise
}

// Read reads a Load from path.
func Read(path string) (*Load, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var l Load
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// Write writes l to path, indented.
func (l *Load) Write(path string) error {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
