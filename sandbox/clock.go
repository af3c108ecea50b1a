package sandbox

import (
	"sync"
	"time"
)

// ManualClock is a clock that moves only when told, for WithClock: a test
// walks hours or days of sandbox time (intent expiry, Settle's late
// outcomes, the quota) in no time at all, with exact answers. Pass its
// Now method: WithClock(c.Now). It is safe for concurrent use, so the
// server's goroutines may read it while the test moves it.
type ManualClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewManualClock returns a ManualClock that reads start.
func NewManualClock(start time.Time) *ManualClock { return &ManualClock{now: start} }

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock d forward (backward when d is negative) and
// returns the new time.
func (c *ManualClock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

// Set moves the clock to t.
func (c *ManualClock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}
