package main

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/bench/internal/results"
)

var fleetFixture = &results.Fleet{
	Processes: 2, Callers: 64, Limit: 200, Burst: 10, Duration: "2s",
	Cost: []results.LimiterCost{{Limiter: "none", NsPerCall: 100e3, AllocsPerCall: 144}, {Limiter: "redisrate", NsPerCall: 400e3, AllocsPerCall: 167}},
	Runs: []results.FleetRun{
		{Limiter: "redisrate", Members: []results.FleetMember{{PerSecond: 101}, {PerSecond: 102}},
			Accepted: 410, AcceptedPerSecond: 205, Requests: 410, Calls: 410},
		{Limiter: "WithRateLimit", Members: []results.FleetMember{{PerSecond: 90}, {PerSecond: 80}},
			Accepted: 412, AcceptedPerSecond: 206, RateLimited: 600, Requests: 1012, Calls: 340, Failed: 300},
	},
}

// TestFleetChart: the fleet chart is well-formed SVG with a bar per
// process, the accepted rate, the 429s and the failures, for each limiter.
func TestFleetChart(t *testing.T) {
	t.Parallel()
	svg := fleetChart(fleetFixture)
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		_, err := d.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
	}
	assert.Equal(t, (2+3)*2+2, strings.Count(svg, "<rect x="), "bars and legend")
	assert.Contains(t, svg, "429s WithRateLimit (per process): 300</title>", "600 429s in 2s")
	assert.Contains(t, svg, "accepted redisrate (shared): 205</title>")
}

// TestFleetTable: a row per limiter, with the 429s and the deviation from
// the limit, and the limiters' cost.
func TestFleetTable(t *testing.T) {
	t.Parallel()
	md := fleetTable(fleetFixture)
	assert.Contains(t, md, "| redisrate (shared) | 101.0, 102.0 | 205.0 (+2.5%) | 0 / 410 | 410 | 0 |")
	assert.Contains(t, md, "| WithRateLimit (per process) | 90.0, 80.0 | 206.0 (+3.0%) | 600 / 1012 | 340 | 300 |")
	assert.Contains(t, md, "| redisrate | 400 µs | 167 |")
}
