// Command load measures the SDK under concurrency and writes JSON for the
// budget and chart programs.
//
// It runs status checks from 1, 16, 256 and 1,024 concurrent callers
// against the fixed-answer server in its own process, for the SDK's default
// client, the hand-written floor and naive code; then 10,000 concurrent
// WaitForPayment calls against an in-process sandbox, with and without a
// client-side rate limit.
//
//	go run ./cmd/load -out results/concurrency.json
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/upicollect/upicollect-go/bench/internal/harness"
	"github.com/upicollect/upicollect-go/bench/internal/results"
)

func main() {
	var (
		callers  = flag.String("callers", "1,16,256,1024", "numbers of concurrent callers")
		impls    = flag.String("impls", "sdk,floor,naive", "implementations")
		duration = flag.Duration("duration", 2*time.Second, "length of each concurrency run")
		waiters  = flag.Int("waiters", 10000, "concurrent WaitForPayment calls (0: skip)")
		poll     = flag.Duration("poll", 4*time.Second, "WaitForPayment poll interval")
		rate     = flag.Float64("rate", 1000, "WithRateLimit requests per second for the limited run")
		burst    = flag.Int("burst", 100, "WithRateLimit burst for the limited run")
		out      = flag.String("out", "results/concurrency.json", "output file")
		one      = flag.String("one-waiters-run", "", "internal: run one waiters measurement (none or limited), print JSON")
	)
	flag.Parse()
	log.SetFlags(0)
	if *one != "" {
		// A fresh process per measurement, so no earlier run's memory is
		// counted as the waiters'.
		w, err := runWaiters(*waiters, *poll, *one == "limited", *rate, *burst)
		if err != nil {
			log.Fatal(err)
		}
		if err := json.NewEncoder(os.Stdout).Encode(w); err != nil {
			log.Fatal(err)
		}
		return
	}
	ns, err := parseInts(*callers)
	if err != nil {
		log.Fatal(err)
	}
	load := &results.Load{Machine: results.ThisMachine(), Duration: duration.String()}

	srv, err := harness.StartServer()
	if err != nil {
		log.Fatal(err)
	}
	for _, n := range ns {
		for _, impl := range strings.Split(*impls, ",") {
			r, err := runCallers(srv, harness.Impl(impl), n, *duration)
			if err != nil {
				srv.Close()
				log.Fatal(err)
			}
			log.Printf("%-5s %5d callers: %8.0f calls/s  p50 %7.0fµs  p99 %7.0fµs  %5d conns  %d errors",
				r.Impl, r.Callers, r.PerSecond, r.P50Micros, r.P99Micros, r.ConnsOpened, r.Errors)
			load.Runs = append(load.Runs, r)
		}
	}
	srv.Close()

	if *waiters > 0 {
		for _, mode := range []string{"none", "limited"} {
			var w results.Waiters
			cmd := exec.Command(os.Args[0], "-one-waiters-run", mode, "-waiters", strconv.Itoa(*waiters),
				"-poll", poll.String(), "-rate", fmt.Sprint(*rate), "-burst", strconv.Itoa(*burst))
			cmd.Stderr = os.Stderr
			b, err := cmd.Output()
			if err == nil {
				err = json.Unmarshal(b, &w)
			}
			if err != nil {
				log.Fatalf("waiters run %s: %v", mode, err)
			}
			log.Printf("waiters %d, rate limit %s: %.0f B each (heap %.0f, stack %.0f), burst %d, %.0f req/s, %d conns (%d accept errors), %d paid, %d errors",
				w.Waiters, w.RateLimit, w.BytesPerWaiter, w.HeapPerWaiter, w.StackPerWaiter,
				w.StartupBurst, w.RequestsPerSecond, w.ConnsOpened, w.AcceptErrors, w.Paid, w.Errors)
			load.Waiters = append(load.Waiters, w)
		}
	}
	if err := load.Write(*out); err != nil {
		log.Fatal(err)
	}
}

func parseInts(s string) ([]int, error) {
	var ns []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad number of callers %q", f)
		}
		ns = append(ns, n)
	}
	return ns, nil
}
