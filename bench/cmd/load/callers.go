package main

import (
	"context"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/upicollect/upicollect-go/bench/internal/harness"
	"github.com/upicollect/upicollect-go/bench/internal/results"
)

// runCallers has n goroutines make status checks through a fresh caller of
// impl for d, and reports what the callers and the server saw.
func runCallers(srv *harness.Server, impl harness.Impl, n int, d time.Duration) (results.Run, error) {
	r := results.Run{Impl: string(impl), Callers: n}
	c, err := harness.NewCaller(impl, srv.URL)
	if err != nil {
		return r, err
	}
	c.CloseIdleConnections() // naive shares http.DefaultClient: start cold
	defer c.CloseIdleConnections()
	before, err := srv.Stats()
	if err != nil {
		return r, err
	}
	cpu0 := cpuNanos()
	ctx, cancel := context.WithTimeout(context.Background(), d+time.Minute)
	defer cancel()

	type tally struct {
		lat    []time.Duration
		errors int64
		first  error
	}
	tallies := make([]tally, n)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for i := range tallies {
		wg.Add(1)
		go func(t *tally) {
			defer wg.Done()
			for {
				t0 := time.Now()
				if !t0.Before(deadline) {
					return
				}
				err := c.Call(ctx, harness.Status)
				t.lat = append(t.lat, time.Since(t0))
				if err != nil {
					t.errors++
					if t.first == nil {
						t.first = err
					}
				}
			}
		}(&tallies[i])
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := cpuNanos() - cpu0
	after, err := srv.Stats()
	if err != nil {
		return r, err
	}

	var lat []time.Duration
	for _, t := range tallies {
		lat = append(lat, t.lat...)
		r.Errors += t.errors
		if t.first != nil && r.FirstError == "" {
			r.FirstError = t.first.Error()
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	r.Calls = int64(len(lat))
	r.Seconds = elapsed.Seconds()
	r.PerSecond = float64(r.Calls) / r.Seconds
	r.P50Micros = micros(percentile(lat, 0.50))
	r.P99Micros = micros(percentile(lat, 0.99))
	r.ConnsOpened = after.ConnsOpened - before.ConnsOpened
	if r.Calls > 0 {
		r.ClientCPUMicros = float64(cpu) / 1e3 / float64(r.Calls)
		r.ServerCPUMicros = float64(after.CPUNanos-before.CPUNanos) / 1e3 / float64(r.Calls)
	}
	return r, nil
}

// percentile returns the p-quantile of sorted (nearest rank).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.5) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return sorted[i]
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// cpuNanos is this process's user + system CPU time.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
