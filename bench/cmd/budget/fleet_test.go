package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/bench/internal/results"
)

// TestEvaluateFleet: the fleet's deterministic budgets pass or fail on the
// sandbox's counts, and a missing run fails.
func TestEvaluateFleet(t *testing.T) {
	t.Parallel()
	fleet := func(accepted float64, rateLimited int64) *results.Fleet {
		return &results.Fleet{Processes: 4, Limit: 200, Runs: []results.FleetRun{
			{Limiter: "redisrate", AcceptedPerSecond: accepted, RateLimited: rateLimited, Requests: 1000},
			{Limiter: "WithRateLimit", AcceptedPerSecond: 206, RateLimited: 1200, Requests: 1900},
		}}
	}
	for _, tt := range []struct {
		name string
		f    *results.Fleet
		fail bool
		rate string // the rate's verdict, as printed
	}{
		{"holds", fleet(203, 0), false, "PASS  fleet/redisrate/rate         4 processes accepted 203.0/s together, limit 200/s: +1.5% (budget ±5%)"},
		{"just within", fleet(191, 0), false, "PASS  fleet/redisrate/rate         4 processes accepted 191.0/s together, limit 200/s: -4.5% (budget ±5%)"},
		{"429s", fleet(203, 1), true, "PASS  fleet/redisrate/rate"},
		{"over", fleet(211, 0), true, "FAIL  fleet/redisrate/rate         4 processes accepted 211.0/s together, limit 200/s: +5.5% (budget ±5%)"},
		{"under, printed", fleet(185, 0), false,
			"INFO  fleet/redisrate/rate         4 processes accepted 185.0/s together, limit 200/s: -7.5% (budget ±5% over, under only printed down to -20%: a loaded machine wakes waiters late) [over budget]"},
		{"far under", fleet(159, 0), true, "FAIL  fleet/redisrate/rate         4 processes accepted 159.0/s together, limit 200/s: -20.5% (budget ±5%; fails below -20%)"},
		{"missing", nil, true, ""},
		{"no redisrate run", &results.Fleet{Limit: 200}, true, ""},
		{"no request", &results.Fleet{Processes: 4, Limit: 200, Runs: []results.FleetRun{{Limiter: "redisrate", AcceptedPerSecond: 200}}}, true,
			"PASS  fleet/redisrate/rate"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			vs := evaluateFleet(tt.f)
			assert.Equal(t, tt.fail, Failed(vs), "%v", vs)
			if tt.rate != "" {
				assert.Equal(t, tt.rate, vs[1].String()[:min(len(tt.rate), len(vs[1].String()))], "%v", vs)
			}
		})
	}
}

// TestFleetCost: a line for each limiter's cost against the run without
// one (the first), none for that run itself.
func TestFleetCost(t *testing.T) {
	t.Parallel()
	f := &results.Fleet{Processes: 4, Limit: 200,
		Runs: []results.FleetRun{{Limiter: "redisrate", AcceptedPerSecond: 200, Requests: 1000}},
		Cost: []results.LimiterCost{{Limiter: "none", NsPerCall: 50_000, AllocsPerCall: 90}, {Limiter: "redisrate", NsPerCall: 120_000, AllocsPerCall: 140}}}
	vs := evaluateFleet(f)
	require.Len(t, vs, 3, "%v", vs)
	assert.Equal(t, "INFO  fleet/cost/redisrate         120000 ns and 140 allocs per status check, against 50000 ns and 90 allocs without a limiter [within budget]", vs[2].String())
}
