package sandbox

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// quotaJitter is how much network jitter the quota forgives: requests that
// a client spaced exactly at the limit may arrive this much closer
// together. Without it, a client holding the same rate would see 429s at
// random, as its bucket and the sandbox's run empty at the same moment.
const quotaJitter = 50 * time.Millisecond

// WithRateLimit gives the merchant a quota as a live service has one:
// beyond perSecond API requests a second the sandbox answers 429 in the
// service's failure envelope ({"status":false,"statusCode":429,"msg":…})
// with a Retry-After header (whole seconds, at least 1). burst is how
// many requests may come at once; burst <= 0 means one second's worth
// (perSecond, rounded up). `upicollect sandbox --rate-limit N` is
// WithRateLimit(N, 0).
//
// The quota is a token bucket (golang.org/x/time/rate) read at sandbox
// time: each request is judged at the moment it arrived, by WithClock's
// clock, so a test with a hand-moved clock gets exact answers (and a clock
// that never moves never refills it: run the client's limiter on the same
// clock, or move it). The bucket
// holds burst plus perSecond × 50 ms tokens (at least one more), so that a
// client that holds the same rate and burst, whose requests the network
// bunches by up to 50 ms, gets no 429 at all. Only calls with the
// merchant's credentials count (the sandbox serves one MID); a 401 costs
// nothing. Stats counts the 429s.
func WithRateLimit(perSecond float64, burst int) Option {
	return func(c *config) error {
		if !(perSecond > 0) || perSecond > 1e6 {
			return fmt.Errorf("sandbox: WithRateLimit: rate must be in (0, 1e6], got %v", perSecond)
		}
		if burst <= 0 {
			burst = int(math.Ceil(perSecond))
		}
		c.ratePerSecond, c.rateBurst = perSecond, burst
		return nil
	}
}

// quota is the merchant's request budget; nil means none.
type quota struct {
	mu  sync.Mutex // makes reserve-then-cancel one decision
	lim *rate.Limiter
}

func newQuota(perSecond float64, burst int) *quota {
	if perSecond <= 0 {
		return nil
	}
	grace := max(1, int(math.Ceil(perSecond*quotaJitter.Seconds())))
	return &quota{lim: rate.NewLimiter(rate.Limit(perSecond), burst+grace)}
}

// admit takes a token for a request that arrived at at; when there is
// none it takes nothing and returns how long until there is.
func (q *quota) admit(at time.Time) (ok bool, retryAfter time.Duration) {
	if q == nil {
		return true, 0
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	r := q.lim.ReserveN(at, 1)
	if d := r.DelayFrom(at); d > 0 {
		r.CancelAt(at)
		return false, d
	}
	return true, 0
}

// retryAfterSeconds is a Retry-After value for d: whole seconds, rounded
// up, at least 1.
func retryAfterSeconds(d time.Duration) string {
	return strconv.FormatInt(max(1, int64(math.Ceil(d.Seconds()))), 10)
}

// refuseOverQuota answers 429 when the call is beyond the merchant's quota
// and reports whether it did.
func (s *Service) refuseOverQuota(w http.ResponseWriter, req *request) bool {
	if !req.authed {
		return false
	}
	ok, wait := s.quota.admit(req.at)
	if ok {
		return false
	}
	s.stats.rateLimited.Add(1)
	w.Header().Set("Retry-After", retryAfterSeconds(wait))
	s.writeAPI(w, http.StatusTooManyRequests, failure(s.variantSet(), http.StatusTooManyRequests, "Too many requests; retry later"))
	return true
}
