package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/bench/internal/harness"
)

func TestParseInts(t *testing.T) {
	t.Parallel()
	ns, err := parseInts("1, 16,256")
	require.NoError(t, err)
	assert.Equal(t, []int{1, 16, 256}, ns)
	for _, bad := range []string{"", "0", "-3", "1,x"} {
		_, err := parseInts(bad)
		assert.Error(t, err, bad)
	}
}

func TestPercentile(t *testing.T) {
	t.Parallel()
	var lat []time.Duration
	for i := 1; i <= 100; i++ {
		lat = append(lat, time.Duration(i))
	}
	assert.Equal(t, time.Duration(50), percentile(lat, 0.50))
	assert.Equal(t, time.Duration(99), percentile(lat, 0.99))
	assert.Equal(t, time.Duration(1), percentile(lat, 0))
	assert.Equal(t, time.Duration(100), percentile(lat, 1))
	assert.Equal(t, time.Duration(0), percentile(nil, 0.5))
}

// TestRunCallers: a short run against the fixed server counts calls,
// errors and the connections the server accepted.
func TestRunCallers(t *testing.T) {
	srv, err := harness.StartServer()
	require.NoError(t, err)
	defer srv.Close()
	for _, impl := range []harness.Impl{harness.SDK, harness.Floor} {
		r, err := runCallers(srv, impl, 4, 100*time.Millisecond)
		require.NoError(t, err)
		assert.Positive(t, r.Calls, impl)
		assert.Zero(t, r.Errors, "%s: %s", impl, r.FirstError)
		assert.GreaterOrEqual(t, r.ConnsOpened, int64(1), impl)
		assert.LessOrEqual(t, r.ConnsOpened, r.Calls, impl)
		assert.LessOrEqual(t, r.P50Micros, r.P99Micros, impl)
	}
}

// TestRunWaiters: every waiter polls once in the first interval and sees
// the payment; with a rate limit the first interval holds no more than
// the burst and the interval's tokens.
func TestRunWaiters(t *testing.T) {
	w, err := runWaiters(20, 100*time.Millisecond, false, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, 20, w.Paid)
	assert.Zero(t, w.Errors)
	assert.GreaterOrEqual(t, w.StartupBurst, int64(20))
	assert.Positive(t, w.ConnsOpened)

	w, err = runWaiters(20, 100*time.Millisecond, true, 50, 5)
	require.NoError(t, err)
	assert.Equal(t, "50/s burst 5", w.RateLimit)
	assert.LessOrEqual(t, w.StartupBurst, int64(15), "burst 5 plus 50/s for 0.1s, with room for a slow scheduler; 20 would mean no limit")
	assert.Zero(t, w.Errors)
}
