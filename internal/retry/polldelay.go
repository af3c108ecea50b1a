package retry

import (
	"math/rand/v2"
	"time"
)

// PollDelay returns the delay before status poll number n+1 of a waiter: it
// starts at minDelay and doubles per poll towards maxDelay, and each delay
// is jittered over its upper half, [max(d/2, minDelay), d], so that many
// waiters started together spread out without ever polling faster than
// minDelay. A huge maxDelay never overflows. rnd returns uniform values in
// [0,1); nil uses math/rand/v2.
func PollDelay(n int, minDelay, maxDelay time.Duration, rnd func() float64) time.Duration {
	d := minDelay
	for i := 1; i < n && d < maxDelay; i++ {
		if d > maxDelay/2 {
			d = maxDelay // doubling would pass max, or overflow
			break
		}
		d *= 2
	}
	d = min(d, maxDelay)
	lo := max(d/2, minDelay)
	if d <= lo {
		return d
	}
	if rnd == nil {
		rnd = rand.Float64
	}
	return lo + time.Duration(rnd()*float64(d-lo))
}
