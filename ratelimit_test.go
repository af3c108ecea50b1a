package upicollect_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/internal/clock"
	"github.com/upicollect/upicollect-go/sandbox"
)

// TestRateLimitSpacesEveryRequest proves the client consults its limiter
// before every request: with 2 requests/s and a burst of 1, the second and
// third status checks each wait half a second of (fake) time.
func TestRateLimitSpacesEveryRequest(t *testing.T) {
	sb := sandbox.Start(t, sandbox.Strict())
	clock := clock.NewFake(time.Now())
	c := sb.Client(upicollect.WithRateLimit(2, 1), upicollect.WithClock(clock))
	for i := 0; i < 3; i++ {
		_, err := c.CheckPaymentStatus(context.Background(), "ord-unknown")
		require.NoError(t, err)
	}
	assert.Equal(t, []time.Duration{500 * time.Millisecond, 500 * time.Millisecond}, clock.Sleeps())
	assert.Len(t, sb.Requests(), 3)
}

// TestRateLimitCapsConcurrentWaits runs many concurrent WaitForPayment calls
// through one client and checks, in fake time, that the requests they send
// never exceed the cap: each request takes a token, so N requests need at
// least (N-burst)/rate seconds of limiter waits between them.
func TestRateLimitCapsConcurrentWaits(t *testing.T) {
	const (
		waiters = 200
		rate    = 50.0
		burst   = 5
	)
	sb := sandbox.Start(t, sandbox.Strict())
	clock := clock.NewFake(time.Now())
	c := sb.Client(upicollect.WithRateLimit(rate, burst), upicollect.WithClock(clock))
	ctx := context.Background()
	ids := make([]string, waiters)
	for i := range ids {
		ids[i] = upicollect.NewOrderID()
		_, err := c.CreatePaymentIntent(ctx, &upicollect.IntentParams{
			Amount: upicollect.Rupees(10), OrderID: ids[i], RedirectURL: "https://shop.example.com/r",
			Note: "rate limit", Customer: upicollect.Customer{Name: "A", Email: "a@example.com", Mobile: "9876543210"},
		})
		require.NoError(t, err)
	}
	var wg sync.WaitGroup
	results := make([]*upicollect.PaymentStatus, waiters)
	errs := make([]error, waiters)
	for i := range ids {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			polls := 0
			// Pay after the first PENDING poll, so every waiter polls at least twice.
			results[i], errs[i] = c.WaitForPayment(ctx, ids[i],
				upicollect.WithPollInterval(time.Millisecond, 2*time.Millisecond),
				upicollect.WithOnPoll(func(*upicollect.PaymentStatus) {
					if polls++; polls == 1 {
						_, _ = sb.SettleWith(ids[i], sandbox.Settlement{Result: sandbox.StatusFail})
					}
				}))
		}(i)
	}
	// The wait for the waiters is bounded in wall time (their contexts
	// cannot be: the fake clock reads their deadlines), so that a limiter
	// that loses tokens fails the test instead of hanging it.
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(waitBound):
		t.Fatal("the waits did not end")
	}
	requests := len(sb.Requests())
	require.GreaterOrEqual(t, requests, 3*waiters) // a create and at least two polls each
	for i := range ids {
		require.NoError(t, errs[i])
		require.Equal(t, upicollect.TxnStatus("FAIL"), results[i].TxnStatus)
	}
	var limiterWait time.Duration
	for _, d := range clock.Sleeps() {
		limiterWait += d
	}
	// Sleeps include poll delays (2ms at most each), which only add; the
	// limiter alone must account for the spacing of all requests beyond the burst.
	// The token bucket rounds each wait down to the nanosecond, so allow
	// one nanosecond per request.
	minSpacing := time.Duration(float64(requests-burst)/rate*float64(time.Second)) - time.Duration(requests)
	assert.GreaterOrEqual(t, limiterWait, minSpacing,
		"%d requests at %v/s must wait at least %v in total", requests, rate, minSpacing)
}
