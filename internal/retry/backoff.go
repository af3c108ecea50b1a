package retry

import (
	"math/rand/v2"
	"time"
)

// Backoff returns the full-jitter exponential delay before retry number retry
// (1 = first retry): uniform in [0, min(maxDelay, base*2^(retry-1))]. Full
// jitter spreads clients that failed together, so a recovering service is not
// hit by synchronised waves of retries.
//
// retry < 1 is treated as 1, so a caller counting from 0 still backs off.
// base <= 0 or maxDelay <= 0 gives 0. Large retry numbers never overflow: the
// delay is capped at maxDelay. rnd returns uniform values in [0,1); nil uses
// math/rand/v2. Out-of-range values from rnd are clamped to [0, ceiling].
func Backoff(retry int, base, maxDelay time.Duration, rnd func() float64) time.Duration {
	if base <= 0 || maxDelay <= 0 {
		return 0
	}
	if retry < 1 {
		retry = 1
	}
	ceiling := maxDelay
	// Compare before shifting so base<<shift cannot overflow; a shift of 63 or
	// more makes maxDelay>>shift zero, which correctly selects maxDelay.
	if shift := uint(retry - 1); base <= maxDelay>>shift {
		ceiling = base << shift
	}
	if rnd == nil {
		rnd = rand.Float64
	}
	f := rnd()
	if !(f > 0) { // also catches NaN
		return 0
	}
	if f >= 1 {
		return ceiling
	}
	// float64(ceiling) may round up, so clamp the product back under it.
	return min(time.Duration(f*float64(ceiling)), ceiling)
}
