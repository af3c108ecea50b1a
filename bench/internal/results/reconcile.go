package results

import (
	"encoding/json"
	"os"
)

// Reconcile is one run of the reconcile program: the reconciliation
// sweeper's memory, its status checks over the order mix, and its pace on
// a backlog under a rate limit.
type Reconcile struct {
	Machine Machine `json:"machine"`
	// Memory: the heap a memory store holds per tracked order.
	Tracked       int     `json:"tracked"`
	BytesPerOrder float64 `json:"bytes_per_order"`
	// The mix, walked in sandbox time through one sweeper on a memory
	// store: its status checks and how its events compare with the plan.
	Mix MixRun `json:"mix"`
	// The backlog: Orders due at once, checked by one Step with the
	// client's WithRateLimit(Rate, Burst) against a sandbox with the same
	// quota.
	Backlog BacklogRun `json:"backlog"`
	// Sweeps: Orders due at once, a tenth of them paid, checked by one
	// Step against the sandbox over loopback, on each store in turn
	// (interleaved rounds).
	Sweeps []SweepRun `json:"sweeps,omitempty"`
	// StoreMixes: the mix on the database stores (Mix is the memory
	// store's), each with its Store set.
	StoreMixes []MixRun `json:"store_mixes,omitempty"`
}

// MixRun is the mix through a sweeper.
type MixRun struct {
	Store          string  `json:"store,omitempty"` // "" for the memory store
	Orders         int     `json:"orders"`
	Steps          int     `json:"steps"`
	Checks         int     `json:"checks"`
	ChecksPerOrder float64 `json:"checks_per_order"`
	Events         int     `json:"events"`
	Twice          int     `json:"twice"`
	Lost           int     `json:"lost"`
	Wrong          int     `json:"wrong"`
	// EarlyPaid counts the payments of the first 15 minutes; SlowPaid,
	// those reported more than 30 s after; MaxDelaySeconds, the longest
	// delay (sandbox time).
	EarlyPaid       int     `json:"early_paid"`
	SlowPaid        int     `json:"slow_paid"`
	MaxDelaySeconds float64 `json:"max_delay_seconds"`
}

// SweepRun is one Step over Orders due orders, Paid of them paid, on
// Store ("memory", "postgres"), against the sandbox over loopback HTTP.
type SweepRun struct {
	Store  string `json:"store"`
	Round  int    `json:"round"`
	Orders int    `json:"orders"`
	Paid   int    `json:"paid"`
	// Sweepers is how many sweepers stepped over the orders at once, on
	// one store (0 in results written before it was kept: one).
	Sweepers int `json:"sweepers,omitempty"`
	// The counts: checks the step answered (Stats.Checked), status
	// requests the sandbox saw, events the handler got (Delivered, of
	// which Twice a second time for their order, Wrong for an order not
	// paid), and paid orders whose event never came (Lost).
	Checked   int   `json:"checked"`
	Requests  int64 `json:"requests"`
	Delivered int   `json:"delivered"`
	Twice     int   `json:"twice"`
	Wrong     int   `json:"wrong"`
	Lost      int   `json:"lost"`
	Errors    int   `json:"errors"` // Stats.Errors
	// Wall time: the step's, and the time inside the store's calls (in
	// all and by method, handlers left out).
	Seconds      float64            `json:"seconds"`
	PerSecond    float64            `json:"checks_per_second"`
	StoreSeconds float64            `json:"store_seconds"`
	StoreShare   float64            `json:"store_share"`
	ByMethod     map[string]float64 `json:"store_seconds_by_method"`
	// The time the step waited for the store alone: a store call in
	// flight and no check (the store's calls run beside the checks, so
	// their sum says less), and its share of the wall time.
	StoreAloneSeconds float64 `json:"store_alone_seconds"`
	StoreWaitShare    float64 `json:"store_wait_share"`
	// CPU per check, in µs: this process (the sweeper, the client and the
	// in-process sandbox), the database's processes in all and its client
	// backends' part (0 on the memory store).
	GoMicros       float64 `json:"go_cpu_us_per_check"`
	DBMicros       float64 `json:"db_cpu_us_per_check"`
	BackendsMicros float64 `json:"db_backends_cpu_us_per_check"`
	Load           string  `json:"load"` // the one-minute load average at the end
	// The database's active client backends, sampled while the step ran
	// (every pgtest.WaitEvery), and how many of the samples were waiting
	// for a lock (none on the memory store).
	BackendSamples int `json:"backend_samples,omitempty"`
	LockWaits      int `json:"lock_waits,omitempty"`
}

// Count is r's sweepers: one when it was not kept.
func (r SweepRun) Count() int { return max(r.Sweepers, 1) }

// BacklogRun is a due backlog checked under a rate limit.
type BacklogRun struct {
	Orders  int     `json:"orders"`
	Rate    float64 `json:"rate_per_second"`
	Burst   int     `json:"burst"`
	Checked int     `json:"checked"`
	Seconds float64 `json:"seconds"`
	// PerSecond is Checked over Seconds.
	PerSecond float64 `json:"checked_per_second"`
	// From the sandbox's statistics: status requests and the quota's 429s.
	Requests    int64 `json:"requests"`
	RateLimited int64 `json:"rate_limited"`
}

// ReadReconcile reads a Reconcile from path.
func ReadReconcile(path string) (*Reconcile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Reconcile
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// WriteReconcile writes r to path, indented.
func WriteReconcile(path string, r *Reconcile) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
