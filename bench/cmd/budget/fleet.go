package main

import (
	"fmt"

	"github.com/upicollect/upicollect-go/bench/internal/results"
)

// fleetTolerance is how far the rate a fleet sharing redisrate gets may be
// from the limit: a fraction of it.
const fleetTolerance = 0.05

// evaluateFleet checks the fleet run: with redisrate the sandbox answered
// no 429 and accepted the limit within fleetTolerance (deterministic: the
// counts are the sandbox's). The WithRateLimit run is shown for contrast.
func evaluateFleet(f *results.Fleet) []Verdict {
	if f == nil {
		return []Verdict{missing("fleet", "the fleet program's results")}
	}
	var vs []Verdict
	shared, ok := f.Run("redisrate")
	if !ok {
		vs = append(vs, missing("fleet/redisrate", "the redisrate run"))
	} else {
		vs = append(vs,
			Verdict{Name: "fleet/redisrate/429s", Pass: shared.RateLimited == 0 && shared.Requests > 0,
				Detail: fmt.Sprintf("%d of %d requests answered 429 by the quota (budget 0)", shared.RateLimited, shared.Requests)},
			Verdict{Name: "fleet/redisrate/rate", Pass: abs(shared.Deviation(f.Limit)) <= fleetTolerance,
				Detail: fmt.Sprintf("%d processes accepted %.1f/s together, limit %.0f/s: %+.1f%% (budget ±%.0f%%)",
					f.Processes, shared.AcceptedPerSecond, f.Limit, 100*shared.Deviation(f.Limit), 100*fleetTolerance)})
	}
	if local, ok := f.Run("WithRateLimit"); ok {
		vs = append(vs, Verdict{Name: "fleet/WithRateLimit", Timing: true, Pass: true,
			Detail: fmt.Sprintf("for contrast, a limit per process: %d of %d requests answered 429, %d calls failed",
				local.RateLimited, local.Requests, local.Failed)})
	}
	for _, c := range f.Cost {
		if c.Limiter == "none" {
			continue
		}
		vs = append(vs, Verdict{Name: "fleet/cost/" + c.Limiter, Timing: true, Pass: true,
			Detail: fmt.Sprintf("%.0f ns and %.0f allocs per status check, against %.0f ns and %.0f allocs without a limiter",
				c.NsPerCall, c.AllocsPerCall, f.Cost[0].NsPerCall, f.Cost[0].AllocsPerCall)})
	}
	return vs
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
