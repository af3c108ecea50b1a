package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

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
	}{
		{"holds", fleet(203, 0), false},
		{"just within", fleet(191, 0), false},
		{"429s", fleet(203, 1), true},
		{"over", fleet(211, 0), true},
		{"under, printed", fleet(185, 0), false},
		{"far under", fleet(159, 0), true},
		{"missing", nil, true},
		{"no redisrate run", &results.Fleet{Limit: 200}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.fail, Failed(evaluateFleet(tt.f)), "%v", evaluateFleet(tt.f))
		})
	}
}
