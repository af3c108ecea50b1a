// Package redisrate is a rate limit for upicollect clients shared by every
// process that uses the same Redis key: many pods on one merchant id stay,
// together, within the service's quota.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "redis:6379"})
//	client, err := upicollect.NewClient(creds,
//		upicollect.WithBaseURL(baseURL),
//		upicollect.WithRateLimiter(redisrate.New(rdb, "upicollect:"+creds.MID, 50, 10)))
//
// The limit is a GCRA (generic cell rate algorithm), kept in Redis as
// github.com/go-redis/redis_rate keeps it, on github.com/redis/go-redis/v9
// and on Redis's own clock, so the processes' clocks need not agree. The
// callers waiting in one process share round trips: one Lua script call
// reserves a slot for each of them (up to a second ahead), and each sleeps
// until its own, so a process reaches its limit also when Redis is tens of
// milliseconds away. A Wait whose context ends returns at once, even while
// Redis stalls.
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
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/clock"
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
	rdb      *redis.Client
	key      string
	limit    redis_rate.Limit
	interval time.Duration // between two slots: the limit's period / rate
	err      error         // New's input was invalid
	// clock is clock.Real, or a test's clock.Manual. Slots and sleeps are
	// on it; a context's deadline, wall time, is compared with its time.
	clock clock.Clock

	// The callers of Wait in this process share round trips to Redis:
	// one reservation at a time is in flight, for as many slots as there
	// are callers waiting, and the slots it brings back are handed out
	// here.
	mu       sync.Mutex
	slots    []time.Time // reserved and not yet taken, earliest first
	waiting  int         // callers in Wait without a slot
	round    *round      // the reservation in flight; nil when none
	nextSlot time.Time   // the next free slot, when Redis had none within reach
}

// round is one reservation sent to Redis; done is closed when it ended,
// with err set when Redis did not answer.
type round struct {
	done chan struct{}
	err  error
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
	l := &Limiter{rdb: rdb, key: key, clock: clock.Real{}}
	l.limit, l.err = limitOf(perSecond, burst)
	switch {
	case l.err != nil:
	case rdb == nil:
		l.err = fmt.Errorf("%w: nil *redis.Client", ErrInvalidLimit)
	case key == "":
		l.err = fmt.Errorf("%w: empty key", ErrInvalidLimit)
	default:
		l.interval = l.limit.Period / time.Duration(l.limit.Rate)
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

// reachAhead is how far ahead of now a reservation takes slots: the
// callers waiting get slots up to this far in the future in one round trip,
// and sleep until theirs.
const reachAhead = time.Second

// minGrace is the least time a slot given back by a caller that left stays
// usable after its moment; see grace.
const minGrace = 20 * time.Millisecond

// Wait blocks until the caller may send one request, or until ctx ends,
// in which case it returns ctx's error at once, even while Redis does not
// answer, and takes no slot (a slot reserved for it goes to the next
// caller of this process). When ctx's deadline falls before the caller's
// slot, it returns clock.ErrPastDeadline, which matches
// context.DeadlineExceeded, at once.
// When Redis does not answer, it returns an error matching ErrUnavailable
// as soon as go-redis gives up (its ReadTimeout, DialTimeout and
// MaxRetries), unless ctx ends first.
//
// The callers waiting in one process share round trips: one reservation at
// a time asks Redis for a slot for each of them, and each sleeps until its
// own, so a limit is reached also when Redis is far away.
func (l *Limiter) Wait(ctx context.Context) error {
	if l.err != nil {
		return l.err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	l.waiting++
	for {
		if at, ok := l.takeLocked(l.clock.Now()); ok {
			l.waiting--
			l.mu.Unlock()
			return l.use(ctx, at)
		}
		if l.round == nil {
			if next := l.nextSlot; l.clock.Now().Before(next.Add(-reachAhead)) {
				// Redis said no slot is free before next.
				l.mu.Unlock()
				err := clock.CheckDeadline(ctx, next)
				if err == nil {
					err = l.clock.Sleep(ctx, next.Add(-reachAhead).Sub(l.clock.Now()))
				}
				l.mu.Lock()
				if err != nil {
					l.waiting--
					l.mu.Unlock()
					return err
				}
				continue
			}
			l.round = &round{done: make(chan struct{})}
			go l.reserve(ctx, l.round, l.waiting)
		}
		r := l.round
		l.mu.Unlock()
		select {
		case <-r.done:
		case <-ctx.Done():
		}
		l.mu.Lock()
		if err := ctx.Err(); err != nil {
			l.waiting--
			l.mu.Unlock()
			return err
		}
		if r.err != nil {
			l.waiting--
			l.mu.Unlock()
			return r.err
		}
	}
}

// takeLocked takes the earliest reserved slot that is not stale.
func (l *Limiter) takeLocked(now time.Time) (time.Time, bool) {
	for len(l.slots) > 0 {
		at := l.slots[0]
		l.slots = l.slots[1:]
		if now.Sub(at) <= l.grace() {
			return at, true
		}
	}
	return time.Time{}, false
}

// grace is how long after its moment a slot may still be used: a slot
// given back by a caller that left, or taken by a caller that was slow to
// run. Used later it would bunch with the slots after it.
func (l *Limiter) grace() time.Duration { return max(l.interval, minGrace) }

// use waits for the slot at, and gives it back to the next caller when
// ctx ends first or its deadline comes before the slot.
func (l *Limiter) use(ctx context.Context, at time.Time) error {
	d := at.Sub(l.clock.Now())
	if d <= 0 {
		return nil
	}
	err := clock.CheckDeadline(ctx, at)
	if err == nil {
		err = l.clock.Sleep(ctx, d)
	}
	if err != nil {
		l.giveBack(at)
	}
	return err
}

// giveBack puts an unused slot back, in order.
func (l *Limiter) giveBack(at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i, _ := slices.BinarySearchFunc(l.slots, at, time.Time.Compare)
	l.slots = slices.Insert(l.slots, i, at)
}

// reserve asks Redis for want slots and ends r with what it answered. The
// command runs on this goroutine, not the callers': go-redis ends it by its
// own timeouts only (unless the client enables ContextTimeoutEnabled), and
// a caller must be free to leave when its context ends. The callers' values
// are kept, their cancellation not: the slots go to whoever still waits.
func (l *Limiter) reserve(ctx context.Context, r *round, want int) {
	granted, first, err := l.ask(context.WithoutCancel(ctx), want)
	now := l.clock.Now()
	l.mu.Lock()
	switch {
	case err != nil:
		r.err = fmt.Errorf("%w (key %q at %s): %w", ErrUnavailable, l.key, l.rdb.Options().Addr, err)
	case granted == 0:
		l.nextSlot = now.Add(first)
	default:
		for i := 0; i < granted; i++ {
			// Counted from the answer's arrival, not its departure: never
			// earlier than Redis meant.
			l.slots = append(l.slots, now.Add(max(0, first+time.Duration(i)*l.interval)))
		}
	}
	l.round = nil
	l.mu.Unlock()
	close(r.done)
}

// ask runs the reservation script: it returns how many slots Redis granted
// and how long after now the first of them (or, when none, the next free
// one) comes; the others follow one interval apart.
func (l *Limiter) ask(ctx context.Context, want int) (int, time.Duration, error) {
	v, err := reserveScript.Run(ctx, l.rdb, []string{redisPrefix + l.key},
		l.limit.Burst, l.limit.Rate, l.limit.Period.Seconds(), want, reachAhead.Seconds()).Slice()
	if err != nil {
		return 0, 0, err
	}
	if len(v) != 2 {
		return 0, 0, fmt.Errorf("redisrate: unexpected script answer %v", v)
	}
	granted, ok := v[0].(int64)
	first, err := strconv.ParseFloat(fmt.Sprint(v[1]), 64)
	if !ok || err != nil {
		return 0, 0, fmt.Errorf("redisrate: unexpected script answer %v", v)
	}
	return int(granted), time.Duration(first * float64(time.Second)), nil
}

// redisPrefix is redis_rate's prefix of its keys: a reservation keeps its
// state where redis_rate does, as it does (the theoretical arrival time of
// GCRA, in seconds since 2017-01-01 UTC on Redis's clock), so that a
// process still on redis_rate's Allow shares the limit with this one.
const redisPrefix = "rate:"

// reserveScript reserves up to ARGV[4] slots of the GCRA limit ARGV[1]
// (burst), ARGV[2] (rate) per ARGV[3] seconds: each the next one the limit
// allows, as long as it comes within ARGV[5] seconds. It returns how many
// it reserved and, as a string, the seconds from now to the first (or, when
// none, to the next free slot; 0 when it is free now).
var reserveScript = redis.NewScript(`
redis.replicate_commands()
local key = KEYS[1]
local burst = tonumber(ARGV[1])
local interval = tonumber(ARGV[3]) / tonumber(ARGV[2])
local want = tonumber(ARGV[4])
local reach = tonumber(ARGV[5])
local t = redis.call("TIME")
local now = (t[1] - 1483228800) + t[2] / 1000000
local tat = tonumber(redis.call("GET", key) or now) or now
if tat < now then
  tat = now
end
-- slot i (from 1) comes when tat + i * interval - burst * interval <= now
local first = tat - now + (1 - burst) * interval
if first < 0 then
  first = 0
end
local n = math.floor((reach + now - tat) / interval + burst)
if n > want then
  n = want
end
if n < 1 then
  return {0, tostring(first)}
end
local new_tat = tat + n * interval
redis.call("SET", key, tostring(new_tat), "EX", math.ceil(new_tat - now))
return {n, tostring(first)}
`)
