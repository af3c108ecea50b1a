package results

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
)

// Fleet is one run of the fleet program: processes sharing one quota, once
// with redisrate and once with WithRateLimit in each process.
type Fleet struct {
	Machine   Machine `json:"machine"`
	Processes int     `json:"processes"`
	Callers   int     `json:"callers_per_process"`
	// Limit is the sandbox's quota and the fleet's limit, requests a
	// second; Burst is the limiters' burst, QuotaBurst the quota's.
	Limit      float64       `json:"limit_per_second"`
	Burst      int           `json:"burst"`
	QuotaBurst int           `json:"quota_burst"`
	Duration   string        `json:"duration"` // of each run
	Cost       []LimiterCost `json:"limiter_cost"`
	Runs       []FleetRun    `json:"runs"`
}

// LimiterCost is a status check's cost with one limiter, at a rate that
// never makes a caller wait (against an in-process sandbox without quota).
type LimiterCost struct {
	Limiter       string  `json:"limiter"` // "none", "WithRateLimit", "redisrate"
	NsPerCall     float64 `json:"ns_per_call"`
	AllocsPerCall float64 `json:"allocs_per_call"`
}

// FleetRun is the fleet with one limiter.
type FleetRun struct {
	Limiter string        `json:"limiter"` // "redisrate" or "WithRateLimit"
	Members []FleetMember `json:"members"`
	// From the sandbox's statistics: status answers 200, the quota's 429s
	// and every status request received.
	Accepted    int64 `json:"accepted"`
	RateLimited int64 `json:"rate_limited"`
	Requests    int64 `json:"requests"`
	// AcceptedPerSecond is Accepted over the run's duration.
	AcceptedPerSecond float64 `json:"accepted_per_second"`
	// Calls and Failed are the members' sums.
	Calls  int64 `json:"calls"`
	Failed int64 `json:"failed"`
}

// FleetMember is what one process of the fleet saw.
type FleetMember struct {
	OK        int64   `json:"ok"`     // calls that succeeded
	Failed    int64   `json:"failed"` // calls that failed before the deadline
	PerSecond float64 `json:"calls_per_second"`
	Saw429    int64   `json:"attempts_429"` // attempts answered 429
	// WaitMillisPerCall is the time an attempt waited for the limiter, on
	// average.
	WaitMillisPerCall float64 `json:"limiter_wait_ms_per_attempt"`
}

// Deviation is how far the accepted rate is from limit, as a fraction
// (0.02 is 2 % over).
func (r FleetRun) Deviation(limit float64) float64 { return r.AcceptedPerSecond/limit - 1 }

// Summary is the run in one line.
func (r FleetRun) Summary(limit float64) string {
	return fmt.Sprintf("accepted %.1f/s of a %.0f/s limit (%+.1f%%), %d answered 429 of %d requests, %d calls ok, %d failed",
		r.AcceptedPerSecond, limit, 100*r.Deviation(limit), r.RateLimited, r.Requests, r.Calls, r.Failed)
}

// Run returns the run with limiter, if there is one.
func (f *Fleet) Run(limiter string) (FleetRun, bool) {
	for _, r := range f.Runs {
		if r.Limiter == limiter {
			return r, true
		}
	}
	return FleetRun{}, false
}

// ReadFleet reads a Fleet from path.
func ReadFleet(path string) (*Fleet, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f Fleet
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, err
	}
	return &f, nil
}

// WriteFleet writes f to path, indented.
func WriteFleet(path string, f *Fleet) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ThisMachine describes the machine the program runs on.
func ThisMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		GoVersion: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}
