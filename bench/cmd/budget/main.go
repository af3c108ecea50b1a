// Command budget checks the benchmark figures against the SDK's performance
// budgets and prints one line per budget: PASS or FAIL for the
// deterministic ones (allocations, connections, errors, bytes per waiter),
// INFO for timing, which shared machines make too noisy to fail on. It
// exits 1 when a deterministic budget fails.
//
//	go run ./cmd/budget -bench results/bench.txt -load results/concurrency.json -fleet results/fleet.json -reconcile results/reconcile.json
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/upicollect/upicollect-go/bench/internal/results"
)

func main() {
	benchFile := flag.String("bench", "results/bench.txt", "`go test -bench -benchmem` output")
	loadFile := flag.String("load", "results/concurrency.json", "the load program's JSON")
	fleetFile := flag.String("fleet", "", "the fleet program's JSON (none: no fleet budgets)")
	reconcileFile := flag.String("reconcile", "", "the reconcile program's JSON (none: no reconcile budgets)")
	flag.Parse()
	os.Exit(runAll(os.Stdout, *benchFile, *loadFile, *fleetFile, *reconcileFile))
}

// runAll prints the verdicts of every file to w and returns the worst exit
// code. An empty reconcileFile skips the reconcile budgets (and an empty
// fleetFile the fleet's).
func runAll(w io.Writer, benchFile, loadFile, fleetFile, reconcileFile string) int {
	code := run(w, benchFile, loadFile, fleetFile)
	if reconcileFile != "" {
		code = max(code, runReconcile(w, reconcileFile))
	}
	return code
}

// run prints the verdicts to w and returns the exit code. An empty
// fleetFile skips the fleet budgets.
func run(w io.Writer, benchFile, loadFile, fleetFile string) int {
	f, err := os.Open(benchFile)
	if err != nil {
		fmt.Fprintln(w, "budget:", err)
		return 2
	}
	defer f.Close()
	samples, err := results.ParseBench(f)
	if err != nil {
		fmt.Fprintf(w, "budget: %s: %v\n", benchFile, err)
		return 2
	}
	load, err := results.Read(loadFile)
	if err != nil {
		fmt.Fprintln(w, "budget:", err)
		return 2
	}
	vs := Evaluate(samples, load)
	if fleetFile != "" {
		fleet, err := results.ReadFleet(fleetFile)
		if err != nil {
			fmt.Fprintln(w, "budget:", err)
			return 2
		}
		vs = append(vs, evaluateFleet(fleet)...)
	}
	for _, v := range vs {
		fmt.Fprintln(w, v)
	}
	if Failed(vs) {
		fmt.Fprintln(w, "budget: FAIL (a deterministic budget is exceeded)")
		return 1
	}
	fmt.Fprintln(w, "budget: ok (timing lines are information only)")
	return 0
}
