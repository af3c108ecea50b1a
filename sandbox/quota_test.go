package sandbox

import (
	"context"
	"encoding/json"
	mrand "math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"golang.org/x/time/rate"
)

// TestQuota judges requests at sandbox time: exact answers on a
// hand-moved clock.
func TestQuota(t *testing.T) {
	clock := newFakeClock()
	// 10 a second, burst 5, plus one token of jitter allowance.
	s := Start(t, WithClock(clock.Now), WithRateLimit(10, 5))
	status := func() answer { return call(t, s, OpCheckPaymentStatus, statusForm(s, "q-1")) }
	for i := range 6 {
		require.Equal(t, 200, status().code, "request %d is within the burst", i)
	}
	a := status()
	assert.Equal(t, 429, a.code)
	assert.Equal(t, "1", a.header.Get("Retry-After"))
	assert.JSONEq(t, `{"status":false,"statusCode":429,"msg":"Too many requests; retry later"}`, string(a.body))

	// A caller without the merchant's credentials costs nothing.
	bad := newReq(t, s, OpCheckPaymentStatus, "application/x-www-form-urlencoded", nil)
	bad.SetBasicAuth("pk", "wrong")
	assert.Equal(t, 401, send(t, s, bad).code)

	clock.Advance(100 * time.Millisecond) // one token
	assert.Equal(t, 200, status().code)
	assert.Equal(t, 429, status().code)
	clock.Advance(time.Second)
	assert.Equal(t, 200, status().code)

	st := s.Stats()
	assert.Equal(t, int64(2), st.RateLimited)
	assert.Equal(t, int64(11), st.Requests[OpCheckPaymentStatus])
	assert.Equal(t, int64(0), st.Requests[OpCreatePaymentIntent])
	assert.Equal(t, map[int]int64{200: 8, 401: 1, 429: 2}, st.Answers)

	_, err := NewService(WithRateLimit(0, 1))
	assert.ErrorContains(t, err, "rate must be in (0, 1e6]")
}

func TestQuotaBurstDefault(t *testing.T) {
	for _, tt := range []struct {
		perSecond float64
		burst     int
		admitted  int
	}{
		{1, 0, 2},     // one second's worth, plus one
		{2.5, 0, 4},   // rounded up
		{100, 0, 105}, // plus 50 ms of jitter
		{100, 10, 15}, // as given
		{1000, 1, 51}, // a burst of 1 still forgives 50 ms
		{0.1, 0, 2},   // at least one
		{40, -3, 42},  // burst <= 0 is the default
		{1e6, 0, 1e6 + 5e4},
	} {
		var cfg config
		require.NoError(t, WithRateLimit(tt.perSecond, tt.burst)(&cfg))
		q := newQuota(cfg.ratePerSecond, cfg.rateBurst)
		n := 0
		for ok, _ := q.admit(t0); ok; ok, _ = q.admit(t0) {
			n++
		}
		assert.Equal(t, tt.admitted, n, "%v/s burst %d", tt.perSecond, tt.burst)
	}
	var q *quota
	ok, _ := q.admit(t0)
	assert.True(t, ok, "no quota admits everything")
	assert.Equal(t, "1", retryAfterSeconds(time.Millisecond))
	assert.Equal(t, "3", retryAfterSeconds(2001*time.Millisecond))
}

// TestQuotaForgivesJitter is the property benchmarks rely on: requests
// that a client limiter of the same rate and burst let through get no 429
// when the network delays each by up to 50 ms, whatever the order they
// arrive in; without the allowance they would.
func TestQuotaForgivesJitter(t *testing.T) {
	plainRefused := 0
	for _, tt := range []struct {
		perSecond float64
		burst     int
	}{{1, 1}, {10, 10}, {100, 1}, {100, 100}, {250, 250}, {1000, 50}} {
		rng := mrand.New(mrand.NewPCG(uint64(tt.perSecond), uint64(tt.burst)))
		client := rate.NewLimiter(rate.Limit(tt.perSecond), tt.burst)
		var arrived []time.Time
		at := t0
		for range 2000 {
			r := client.ReserveN(at, 1)
			at = at.Add(r.DelayFrom(at)) // the client waits its turn, then sends
			arrived = append(arrived, at.Add(time.Duration(rng.Int64N(int64(quotaJitter)+1))))
		}
		slices.SortFunc(arrived, func(a, b time.Time) int { return a.Compare(b) })
		var cfg config
		require.NoError(t, WithRateLimit(tt.perSecond, tt.burst)(&cfg))
		q := newQuota(cfg.ratePerSecond, cfg.rateBurst)
		refused := 0
		for _, a := range arrived {
			if ok, _ := q.admit(a); !ok {
				refused++
			}
		}
		assert.Zero(t, refused, "%v/s burst %d", tt.perSecond, tt.burst)

		// A bucket of the client's own size, without the allowance,
		// refuses some of the same arrivals.
		plain := rate.NewLimiter(rate.Limit(tt.perSecond), tt.burst)
		for _, a := range arrived {
			if !plain.AllowN(a, 1) {
				plainRefused++
			}
		}
	}
	assert.Positive(t, plainRefused, "jitter alone makes a plain bucket refuse")
}

// TestQuotaSDKAtTheSameRate runs the SDK with its own limiter at the
// sandbox's rate, on the real clock, from several goroutines: no 429.
func TestQuotaSDKAtTheSameRate(t *testing.T) {
	s := Start(t, WithRateLimit(200, 0))
	c := s.Client(upicollect.WithRateLimit(200, 1), upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 120)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 15 {
				if _, err := c.CheckPaymentStatus(ctx, "o-"+string(rune('a'+g))); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st := s.Stats()
	assert.Zero(t, st.RateLimited)
	assert.Equal(t, int64(120), st.Requests[OpCheckPaymentStatus])
	assert.Equal(t, int64(120), st.Answers[http.StatusOK])
}

func TestStatsEndpoint(t *testing.T) {
	s := Start(t)
	require.Equal(t, 200, call(t, s, OpCreatePaymentLink, linkForm(s)).code)
	require.Equal(t, 400, call(t, s, OpCreatePaymentIntent, without(intentForm(s), "note")).code)
	a := get(t, s, "/sandbox/stats")
	require.Equal(t, 200, a.code)
	var st Stats
	require.NoError(t, json.Unmarshal(a.body, &st))
	assert.Equal(t, int64(1), st.Requests[OpCreatePaymentLink])
	assert.Equal(t, int64(1), st.Requests[OpCreatePaymentIntent])
	assert.Equal(t, map[int]int64{200: 1, 400: 1}, st.Answers, "control calls are not counted")
	assert.GreaterOrEqual(t, st.Connections, int64(1))
	assert.Contains(t, string(a.body), `"answers": {`)
	assert.Contains(t, string(a.body), `"200": 1`)

	req, err := http.NewRequest(http.MethodDelete, s.URL()+"/sandbox/stats", nil)
	require.NoError(t, err)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := s.HTTPClient().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 403, resp.StatusCode)
	req.Header.Del("Sec-Fetch-Site")
	resp, err = s.HTTPClient().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 204, resp.StatusCode)
	st = s.Stats()
	assert.Zero(t, st.Requests[OpCreatePaymentLink])
	assert.Empty(t, st.Answers)
}

// TestQuotaBeforeFaults: a call the quota refuses takes no scripted fault.
func TestQuotaBeforeFaults(t *testing.T) {
	clock := newFakeClock()
	s := Start(t, WithClock(clock.Now), WithRateLimit(1, 1)) // 2 at once
	status := func() int { return call(t, s, OpCheckPaymentStatus, statusForm(s, "q")).code }
	require.Equal(t, 200, status())
	require.Equal(t, 200, status())
	s.InjectFault(Fault{Op: OpCheckPaymentStatus, Status: 503})
	assert.Equal(t, 429, status())
	clock.Advance(time.Second)
	assert.Equal(t, 503, status(), "the fault waited for a call the quota let through")
	assert.Equal(t, map[int]int64{200: 2, 429: 1, 503: 1}, s.Stats().Answers)
	assert.Equal(t, int64(1), s.Stats().RateLimited)
}
