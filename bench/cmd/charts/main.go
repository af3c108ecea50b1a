// Command charts draws the benchmark figures as SVG: time and allocations
// per call for the SDK, the floor, naive code and resty; throughput and
// connections opened against the number of concurrent callers. With
// -tables it also writes them as Markdown tables. With -fleet, the fleet
// program's figures too.
//
//	go run ./cmd/charts -bench results/bench.txt -load results/concurrency.json -out charts -tables results/tables.md
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/upicollect/upicollect-go/bench/internal/results"
)

var (
	ops        = []string{"status", "intent", "request", "link"}
	callImpls  = []string{"sdk", "floor", "naive", "resty"}
	loadImpls  = []string{"sdk", "floor", "naive"}
	seriesName = map[string]string{"sdk": "SDK", "floor": "floor (net/http)", "naive": "naive (PostForm)", "resty": "resty"}
)

func main() {
	benchFile := flag.String("bench", "results/bench.txt", "`go test -bench -benchmem` output")
	loadFile := flag.String("load", "results/concurrency.json", "the load program's JSON")
	outDir := flag.String("out", "charts", "directory for the SVG files")
	tablesFile := flag.String("tables", "", "also write the figures as Markdown tables to this file")
	fleetFile := flag.String("fleet", "", "the fleet program's JSON (none: no fleet chart)")
	flag.Parse()
	log.SetFlags(0)
	f, err := os.Open(*benchFile)
	if err != nil {
		log.Fatal(err)
	}
	samples, err := results.ParseBench(f)
	f.Close()
	if err != nil {
		log.Fatal(err)
	}
	load, err := results.Read(*loadFile)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		log.Fatal(err)
	}
	out := charts(samples, load)
	var fleetTables string
	if *fleetFile != "" {
		fleet, err := results.ReadFleet(*fleetFile)
		if err != nil {
			log.Fatal(err)
		}
		out["fleet.svg"] = fleetChart(fleet)
		fleetTables = fleetTable(fleet)
	}
	for name, svg := range out {
		if err := os.WriteFile(filepath.Join(*outDir, name), []byte(svg), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	if *tablesFile != "" {
		if err := os.WriteFile(*tablesFile, []byte(tables(samples, load)+fleetTables), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

// charts returns every chart by file name.
func charts(samples results.Samples, load *results.Load) map[string]string {
	names := make([]string, len(callImpls))
	for i, impl := range callImpls {
		names[i] = seriesName[impl]
	}
	per := func(get func(results.Sample) float64) [][]float64 {
		v := make([][]float64, len(ops))
		for g, op := range ops {
			v[g] = make([]float64, len(callImpls))
			for i, impl := range callImpls {
				v[g][i] = math.NaN()
				if m, _, ok := samples.Median("Call/" + op + "/" + impl); ok {
					v[g][i] = get(m)
				}
			}
		}
		return v
	}
	out := map[string]string{
		"time_per_call.svg": barChart("Time per call (median, µs; lower is better)", "µs per call", ops, names,
			per(func(s results.Sample) float64 { return s.NsPerOp / 1e3 })),
		"allocs_per_call.svg": barChart("Allocations per call (lower is better)", "allocs per call", ops, names,
			per(func(s results.Sample) float64 { return s.AllocsPerOp })),
	}

	callers := callerCounts(load)
	xs := make([]string, len(callers))
	for i, n := range callers {
		xs[i] = strconv.Itoa(n)
	}
	loadNames := make([]string, len(loadImpls))
	for i, impl := range loadImpls {
		loadNames[i] = seriesName[impl]
	}
	byRun := func(get func(results.Run) float64) [][]float64 {
		v := make([][]float64, len(loadImpls))
		for si, impl := range loadImpls {
			v[si] = make([]float64, len(callers))
			for i, n := range callers {
				v[si][i] = math.NaN()
				for _, r := range load.Runs {
					if r.Impl == impl && r.Callers == n {
						v[si][i] = get(r)
					}
				}
			}
		}
		return v
	}
	out["throughput.svg"] = lineChart("Status checks per second (higher is better)", "calls per second", "concurrent callers",
		xs, loadNames, byRun(func(r results.Run) float64 { return r.PerSecond }), false)
	out["connections.svg"] = lineChart(fmt.Sprintf("TCP connections opened in %s (log scale)", load.Duration), "connections opened",
		"concurrent callers", xs, loadNames, byRun(func(r results.Run) float64 { return float64(r.ConnsOpened) }), true)
	return out
}

func callerCounts(load *results.Load) []int {
	seen := map[int]bool{}
	var ns []int
	for _, r := range load.Runs {
		if !seen[r.Callers] {
			seen[r.Callers] = true
			ns = append(ns, r.Callers)
		}
	}
	sort.Ints(ns)
	return ns
}
