package sandbox

import (
	"errors"
	"sync"
	"time"

	"github.com/upicollect/upicollect-go/clock"
)

// ManualClock is a clock that moves only when told, for WithClock: a test
// walks hours or days of sandbox time (intent expiry, Settle's late
// outcomes, the quota) in no time at all, with exact answers. Pass its
// Now method: WithClock(c.Now). It is safe for concurrent use, so the
// server's goroutines may read it while the test moves it.
//
// It is clock.Manual, the one manual clock of every module's tests: Now,
// Advance (forward, or backward when d is negative; it returns the new
// time) and Set, and Sleep for code that waits on a clock.Clock.
type ManualClock = clock.Manual

// NewManualClock returns a ManualClock that reads start.
func NewManualClock(start time.Time) *ManualClock { return clock.NewManual(start) }

// MovableClock is a sandbox clock that can be moved from outside the
// process: WithMovableClock serves it at POST /sandbox/clock. ManualClock
// and OffsetClock are MovableClocks.
type MovableClock interface {
	// Now returns the clock's time.
	Now() time.Time
	// Advance moves the clock d forward and returns the new time.
	Advance(d time.Duration) time.Time
	// Set moves the clock to t.
	Set(t time.Time)
}

// OffsetClock is real time plus an offset that Advance and Set move: a
// sandbox on it runs at the wall clock's pace, and a person who wants to
// see tomorrow's late outcomes advances it by a day. `upicollect sandbox`
// serves on one. It holds any time a time.Time can: it keeps the time it
// was last moved to and base's reading then, not a time.Duration, which
// would wrap after 292 years. It is safe for concurrent use.
type OffsetClock struct {
	base   func() time.Time
	mu     sync.Mutex
	at     time.Time // the clock's time when base read baseAt
	baseAt time.Time
}

// NewOffsetClock returns an OffsetClock over base (nil: time.Now) with no
// offset yet.
func NewOffsetClock(base func() time.Time) *OffsetClock {
	if base == nil {
		base = time.Now
	}
	now := base()
	return &OffsetClock{base: base, at: now, baseAt: now}
}

// Now returns base's time plus the offset.
func (c *OffsetClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now()
}

func (c *OffsetClock) now() time.Time { return c.at.Add(c.base().Sub(c.baseAt)) }

// Advance adds d to the offset and returns the new time.
func (c *OffsetClock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = c.at.Add(d)
	return c.now()
}

// Set makes the clock read t now; from then on it runs at base's pace.
func (c *OffsetClock) Set(t time.Time) {
	c.mu.Lock()
	c.at, c.baseAt = t, c.base()
	c.mu.Unlock()
}

// Offset returns how far the clock is ahead of base (behind, if
// negative), saturated at the largest (or smallest) time.Duration when it
// is further than that.
func (c *OffsetClock) Offset() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at.Sub(c.baseAt)
}

// WithMovableClock makes c the sandbox's clock, as WithClock(c.Now) does,
// and lets POST /sandbox/clock move it forward (`upicollect sandbox
// advance 2h` does this from a shell). Without it the endpoint answers
// 409: a sandbox on WithClock's clock or on real time cannot be moved
// from outside.
func WithMovableClock(c MovableClock) Option {
	return func(cfg *config) error {
		if c == nil {
			return errors.New("sandbox: WithMovableClock: nil clock")
		}
		cfg.now, cfg.movable = c.Now, c
		return nil
	}
}
