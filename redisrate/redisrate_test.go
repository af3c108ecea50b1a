package redisrate_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/clock"
	"github.com/upicollect/upicollect-go/redisrate"
	"github.com/upicollect/upicollect-go/sandbox"
)

// slow is a rate so low that no second slot frees up during a test: one
// request in 1000s.
const slow = 0.001

// TestBurstThenDeadline: a full bucket lets burst requests through at once;
// the next slot is 1000s away, so a wait with a shorter deadline ends at
// once with context.DeadlineExceeded, and one without ends when its context
// is canceled. Neither takes a slot.
func TestBurstThenDeadline(t *testing.T) {
	rdb := startRedis(t)
	l := redisrate.New(rdb, "burst", slow, 3)
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	for i := 0; i < 3; i++ {
		require.NoError(t, l.Wait(ctx), "slot %d of the burst", i+1)
	}
	err := l.Wait(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded, "the next slot is after the deadline")
	assert.Equal(t, clock.ErrPastDeadline, err, "the one deadline error")

	cctx, ccancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Wait(cctx) }()
	ccancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(waitBound):
		t.Fatal("Wait did not end with its context")
	}

	// Another key is another limit.
	require.NoError(t, redisrate.New(rdb, "other", slow, 1).Wait(ctx))
}

// TestSharedKey: limiters on the same key share one limit, whichever
// limiter (or process) asks; waiters queued in one process all end with
// their contexts.
func TestSharedKey(t *testing.T) {
	rdb := startRedis(t)
	a := redisrate.New(rdb, "shared", slow, 2)
	b := redisrate.New(anotherProcess(t, rdb), "shared", slow, 2)
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	require.NoError(t, a.Wait(ctx))
	require.NoError(t, b.Wait(ctx))
	require.ErrorIs(t, a.Wait(ctx), context.DeadlineExceeded)
	require.ErrorIs(t, b.Wait(ctx), context.DeadlineExceeded)

	cctx, ccancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- a.Wait(cctx) }()
	}
	ccancel()
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(waitBound):
		t.Fatal("the queued waits did not end with their context")
	}
	close(errs)
	for err := range errs {
		assert.ErrorIs(t, err, context.Canceled)
	}
}

// TestUnreachable: with Redis down, Wait fails at once with ErrUnavailable
// naming the address, and a client's call fails without sending anything,
// saying the rate limiter failed.
func TestUnreachable(t *testing.T) {
	addr := "127.0.0.1:" + freePort(t)
	// go-redis's defaults retry a refused connection for about four
	// seconds; these options (docs/reliability.md's) fail on the first refusal.
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { _ = rdb.Close() })
	l := redisrate.New(rdb, "down", 10, 1)
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	err := l.Wait(ctx)
	require.ErrorIs(t, err, redisrate.ErrUnavailable)
	assert.NotErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "Redis unavailable")
	assert.Contains(t, err.Error(), addr)
	assert.Contains(t, err.Error(), "connection refused")
	assert.Zero(t, redisrate.Waiting(l), "the caller left")

	sb := sandbox.Start(t)
	c := sb.Client(upicollect.WithRateLimiter(l))
	_, err = c.CheckPaymentStatus(ctx, "ord-1")
	require.ErrorIs(t, err, redisrate.ErrUnavailable)
	assert.Contains(t, err.Error(), "rate limiter failed: redisrate: Redis unavailable")
	assert.Empty(t, sb.Requests(), "nothing was sent")
	assert.Equal(t, "rate_limiter", upicollect.ErrorType(err))
}

// TestInvalidLimit: a limit New cannot keep fails every Wait, naming what is
// wrong, before any Redis command.
func TestInvalidLimit(t *testing.T) {
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { _ = rdb.Close() })
	for _, tt := range []struct {
		l    upicollect.RateLimiter
		want string
	}{
		{redisrate.New(rdb, "k", 0, 1), "perSecond"},
		{redisrate.New(rdb, "k", 1, 0), "burst"},
		{redisrate.New(rdb, "", 1, 1), "empty key"},
		{redisrate.New(nil, "k", 1, 1), "nil *redis.Client"},
	} {
		err := tt.l.Wait(ctx)
		require.ErrorIs(t, err, redisrate.ErrInvalidLimit)
		assert.NotErrorIs(t, err, redisrate.ErrUnavailable, "no Redis command was sent")
		assert.Contains(t, err.Error(), tt.want)
	}
}

// TestClientWaitsOnRedis: a client with the limiter sends what the limit
// allows and, past it, ends the call with its context's deadline without
// sending.
func TestClientWaitsOnRedis(t *testing.T) {
	rdb := startRedis(t)
	sb := sandbox.Start(t)
	c := sb.Client(upicollect.WithRateLimiter(redisrate.New(rdb, "client", slow, 2)))
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	for i := 0; i < 2; i++ {
		_, err := c.CheckPaymentStatus(ctx, "ord-1")
		require.NoError(t, err)
	}
	_, err := c.CheckPaymentStatus(ctx, "ord-1")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.False(t, errors.Is(err, redisrate.ErrUnavailable))
	assert.Len(t, sb.Requests(), 2)
}
