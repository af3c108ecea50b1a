// Package redisrate is a rate limit for upicollect clients shared by every
// process that uses the same Redis key: many pods on one merchant id stay,
// together, within the service's quota.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "redis:6379"})
//	client, err := upicollect.NewClient(creds,
//		upicollect.WithBaseURL(baseURL),
//		upicollect.WithRateLimiter(redisrate.New(rdb, "upicollect:"+creds.MID, 50, 10)))
//
// The limit is github.com/go-redis/redis_rate's GCRA (generic cell rate
// algorithm) on github.com/redis/go-redis/v9: one Lua script call per
// attempt, on Redis's own clock, so the processes' clocks need not agree.
//
// When Redis cannot be reached, Wait fails at once with an error matching
// ErrUnavailable, and the client's call fails without sending anything: the
// limit cannot be kept, and a fleet that fell back to sending unlimited
// would meet the service's 429s exactly when Redis is down. There is no
// in-process fallback; how fast "at once" is depends on the redis.Client's
// own DialTimeout, ReadTimeout and MaxRetries.
//
// Make each redis.Client from its own redis.Options, never from another
// client's Options(): go-redis 9.17 then shares the first client's push
// notification handlers with the second, and prints "failed to initialize
// maintnotifications: … cannot overwrite existing handler" on stderr
// (harmless, but alarming). To give the limiter a client with other
// settings, copy the fields you need into a new Options. New itself makes
// no client and logs nothing.
package redisrate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/upicollect/upicollect-go"
)

// ErrUnavailable is what Wait's error matches when Redis did not answer the
// limiter: unreachable, timed out, or refusing the script. The error's
// text names the Redis address and key, and keeps go-redis's error, which
// errors.As still finds.
var ErrUnavailable = errors.New("redisrate: Redis unavailable")

// ErrInvalidLimit is what Wait's error matches when New was given a rate or
// burst it cannot keep; no Redis command is sent then.
var ErrInvalidLimit = errors.New("redisrate: invalid limit")

// maxScale bounds the decimal places of a rate: perSecond is kept to six
// (a millionth of a request per second).
const maxScale = 1_000_000

// Limiter is the RateLimiter New returns. It is safe for concurrent use.
type Limiter struct {
	rdb   *redis.Client
	rl    *redis_rate.Limiter
	key   string
	limit redis_rate.Limit
	err   error // New's input was invalid
	// turn lets one waiter of this process at a time ask Redis; the others
	// queue here (channel senders are served in order). Without it every
	// waiter would poll Redis at each free slot.
	turn chan struct{}
}

var _ upicollect.RateLimiter = (*Limiter)(nil)

// New returns a limiter that lets perSecond requests a second through, with
// bursts of up to burst, to all the processes that use the same key on the
// same Redis. Give each merchant id (each service quota) its own key.
//
// redis_rate counts an integer rate per period, so perSecond becomes the
// smallest exact fraction with a power-of-ten period: 50 is 50 per second,
// 0.5 is 5 per 10s, 33.3 is 333 per 10s. Rates are kept to six decimal
// places. A perSecond that is not positive and finite, or a burst below 1,
// makes every Wait fail with ErrInvalidLimit, before any Redis command.
func New(rdb *redis.Client, key string, perSecond float64, burst int) upicollect.RateLimiter {
	l := &Limiter{rdb: rdb, key: key, turn: make(chan struct{}, 1)}
	l.limit, l.err = limitOf(perSecond, burst)
	switch {
	case l.err != nil:
	case rdb == nil:
		l.err = fmt.Errorf("%w: nil *redis.Client", ErrInvalidLimit)
	case key == "":
		l.err = fmt.Errorf("%w: empty key", ErrInvalidLimit)
	default:
		l.rl = redis_rate.NewLimiter(rdb)
	}
	return l
}

// limitOf maps perSecond and burst to redis_rate's integer rate per
// period: rate/period equals perSecond to six decimal places.
func limitOf(perSecond float64, burst int) (redis_rate.Limit, error) {
	switch {
	case math.IsNaN(perSecond) || math.IsInf(perSecond, 0) || perSecond <= 0:
		return redis_rate.Limit{}, fmt.Errorf("%w: perSecond must be positive and finite, got %v", ErrInvalidLimit, perSecond)
	case perSecond > math.MaxInt32:
		return redis_rate.Limit{}, fmt.Errorf("%w: perSecond %v is too large", ErrInvalidLimit, perSecond)
	case burst < 1:
		return redis_rate.Limit{}, fmt.Errorf("%w: burst must be at least 1, got %d", ErrInvalidLimit, burst)
	}
	micro := math.Round(perSecond * maxScale) // requests per 10^6 s
	if micro < 1 {
		return redis_rate.Limit{}, fmt.Errorf("%w: perSecond %v is below one request in %d s", ErrInvalidLimit, perSecond, maxScale)
	}
	rate, scale := int64(micro), int64(maxScale)
	for scale > 1 && rate%10 == 0 {
		rate, scale = rate/10, scale/10
	}
	return redis_rate.Limit{Rate: int(rate), Period: time.Duration(scale) * time.Second, Burst: burst}, nil
}

// Limit returns the limit in redis_rate's terms, as Redis keeps it.
func (l *Limiter) Limit() redis_rate.Limit { return l.limit }

// errWouldExceedDeadline matches context.DeadlineExceeded: the caller's
// deadline comes before the next free slot, so waiting is pointless.
type errWouldExceedDeadline struct{}

func (errWouldExceedDeadline) Error() string {
	return "redisrate: the next request slot comes after the context's deadline"
}
func (errWouldExceedDeadline) Is(target error) bool { return target == context.DeadlineExceeded }

// Wait blocks until the caller may send one request, or until ctx ends,
// in which case it returns ctx's error and takes no slot. When ctx's
// deadline falls before the next free slot, it returns an error matching
// context.DeadlineExceeded at once. When Redis does not answer, it returns
// an error matching ErrUnavailable at once.
func (l *Limiter) Wait(ctx context.Context) error {
	if l.err != nil {
		return l.err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case l.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-l.turn }()
	var timer *time.Timer
	for {
		res, err := l.rl.Allow(ctx, l.key, l.limit)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%w (key %q at %s): %w", ErrUnavailable, l.key, l.rdb.Options().Addr, err)
		}
		if res.Allowed > 0 {
			return nil
		}
		delay := res.RetryAfter
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < delay {
			return errWouldExceedDeadline{}
		}
		if timer == nil {
			timer = time.NewTimer(delay)
			defer timer.Stop()
		} else {
			timer.Reset(delay)
		}
		select {
		case <-timer.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
