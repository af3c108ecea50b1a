package clock

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Fake is a Clock for tests: Sleep advances Now by d at once (no wall
// time) and records every requested sleep. It is exported so the SDK's own
// tests can drive retries and rate limits deterministically. Safe for
// concurrent use; concurrent sleeps each advance the clock, one after another.
//
// A ctx deadline is compared with fake time: if it falls before Now()+d,
// Sleep advances to the deadline (never backwards) and returns
// context.DeadlineExceeded. The ctx itself still expires in wall time, so
// tests of deadlines should start the clock at time.Now() and use deadlines
// far enough ahead that they cannot pass in wall time during the test.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

// NewFake returns a Fake whose Now is start.
func NewFake(start time.Time) *Fake {
	return &Fake{now: start}
}

// Now returns the fake current time.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep records d, then advances the clock by d and returns nil. It returns
// ctx.Err() without advancing if ctx is already done, and
// context.DeadlineExceeded after advancing only to the deadline if ctx's
// deadline is earlier than Now()+d. d <= 0 is recorded but does not advance.
func (c *Fake) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && dl.Before(c.now.Add(d)) {
		if dl.After(c.now) {
			c.now = dl
		}
		return context.DeadlineExceeded
	}
	c.now = c.now.Add(d)
	return nil
}

// Sleeps returns a copy of every duration passed to Sleep, in call order,
// including sleeps cut short by ctx; nil if there were none.
func (c *Fake) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sleeps)
}

// Advance moves the clock by d without recording a sleep, to simulate time
// passing between calls. A negative d moves it backwards, to test clock steps.
func (c *Fake) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
