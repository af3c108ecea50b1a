// Command sidebyside runs River's burn-down and the ledger's Step store
// loop (and its quiet variant) interleaved on one PostgreSQL cluster it
// starts, and prints each run, each pair's ratios and the budgets.
//
//	GOWORK=off go run ./cmd/sidebyside -n 100000,1000000 -pairs 3
//
// It exits 1 when a run's counts do not hold (a job or an order not done
// or done twice, an event not delivered exactly once); rates and CPU are
// printed, never judged.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/upicollect/upicollect-go/bench/river/sidebyside"
)

func main() {
	ns := flag.String("n", "100000", "items per run (jobs, orders), comma-separated: a series of pairs for each")
	pairs := flag.Int("pairs", 3, "interleaved pairs (River, step loop, quiet loop) per n")
	workers := flag.Int("river-workers", sidebyside.RiverMaxWorkers, "MaxWorkers of River's queue (riverbench's)")
	md := flag.String("md", "", "write the table as Markdown to this file")
	cpuprofile := flag.String("cpuprofile", "", "write the Go process's CPU profile of the whole run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
	}
	var counts []int
	for _, f := range strings.Split(*ns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < sidebyside.EventEvery {
			fmt.Fprintf(os.Stderr, "sidebyside: -n: %q is not a count of at least %d\n", f, sidebyside.EventEvery)
			os.Exit(2)
		}
		counts = append(counts, n)
	}
	if *pairs < 1 {
		fmt.Fprintln(os.Stderr, "sidebyside: -pairs: at least 1")
		os.Exit(2)
	}
	code := run(counts, *pairs, *workers, *md)
	pprof.StopCPUProfile() // a no-op without -cpuprofile
	os.Exit(code)
}

func run(ns []int, pairs, workers int, md string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	srv, dsn, err := sidebyside.StartServer(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		return 1
	}
	defer srv.Stop()
	b, err := sidebyside.Open(ctx, dsn, srv.PID(), sidebyside.Config{RiverWorkers: workers, Log: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		return 1
	}
	defer b.Close()
	fmt.Printf("sidebyside: PostgreSQL on the durable defaults (fsync, synchronous_commit on); River MaxWorkers %d; ledger batches of %d, one order in %d paid; load %s\n",
		workers, sidebyside.LedgerBatch, sidebyside.EventEvery, sidebyside.LoadAverage())
	series, err := sidebyside.Interleave(ctx, b, ns, pairs, os.Stdout)
	ok := sidebyside.Verdict(series, os.Stdout)
	if md != "" {
		f, ferr := os.Create(md)
		if ferr == nil {
			sidebyside.Markdown(series, f)
			ferr = f.Close()
		}
		if ferr != nil {
			fmt.Fprintln(os.Stderr, "sidebyside:", ferr)
			return 1
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		return 1
	}
	if !ok {
		return 1
	}
	return 0
}
