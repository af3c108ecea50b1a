package main

import (
	"fmt"

	"github.com/upicollect/upicollect-go/bench/internal/results"
)

// fleetTolerance is how far the rate a fleet sharing redisrate gets may be
// from the limit: a fraction of it. Over the limit is deterministic (the
// limiter lets no more through than rate × time + burst) and fails the
// run; under it is the machine's too: a loaded machine wakes the waiters
// late, and slots pass unused. Only a shortfall beyond fleetShortfall, which
// no load explains, fails the run; one beyond fleetTolerance is printed.
const (
	fleetTolerance = 0.05
	fleetShortfall = 0.20
)

// evaluateFleet checks the fleet run: with redisrate the sandbox answered
// no 429 and accepted no more than the limit allows (deterministic: the
// counts are the sandbox's), nor far less (see fleetTolerance). The
// WithRateLimit run is shown for contrast.
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
			fleetRate(f.Processes, shared.AcceptedPerSecond, f.Limit))
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

// fleetRate is the verdict on the rate a fleet accepted against its limit.
func fleetRate(processes int, accepted, limit float64) Verdict {
	d := accepted/limit - 1
	detail := fmt.Sprintf("%d processes accepted %.1f/s together, limit %.0f/s: %+.1f%% (budget ±%.0f%%",
		processes, accepted, limit, 100*d, 100*fleetTolerance)
	switch {
	case d > fleetTolerance:
		return Verdict{Name: "fleet/redisrate/rate", Detail: detail + ")"}
	case d < -fleetShortfall:
		return Verdict{Name: "fleet/redisrate/rate", Detail: detail + fmt.Sprintf("; fails below -%.0f%%)", 100*fleetShortfall)}
	case d < -fleetTolerance:
		// Under the limit by more than the tolerance: the machine's load.
		return Verdict{Name: "fleet/redisrate/rate", Timing: true,
			Detail: detail + fmt.Sprintf(" over, under only printed down to -%.0f%%: a loaded machine wakes waiters late)", 100*fleetShortfall)}
	}
	return Verdict{Name: "fleet/redisrate/rate", Pass: true, Detail: detail + ")"}
}
