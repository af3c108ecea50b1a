package clock

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Fake is a Manual whose Sleep moves it at once, for the root module's
// tests of code that waits in turn (retries, polls, rate limits): Sleep
// advances Now by d (no wall time) and records every requested sleep, so
// that a test asserts on the delays the code asked for. Advance and Set
// are the Manual's; Advance moves the clock without recording a sleep, to
// simulate time passing between calls. Safe for concurrent use;
// concurrent sleeps each advance the clock, one after another.
//
// A ctx deadline is compared with fake time: if it falls before Now()+d,
// Sleep advances to the deadline (never backwards) and returns
// context.DeadlineExceeded. The ctx itself still expires in wall time, so
// tests of deadlines should start the clock at time.Now() and use deadlines
// far enough ahead that they cannot pass in wall time during the test.
type Fake struct {
	*Manual
	mu     sync.Mutex // held through each Sleep, so sleeps move the clock one at a time
	sleeps []time.Duration
}

var _ Clock = (*Fake)(nil)

// NewFake returns a Fake whose Now is start.
func NewFake(start time.Time) *Fake {
	return &Fake{Manual: NewManual(start)}
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
	now := c.Now()
	if dl, ok := ctx.Deadline(); ok && dl.Before(now.Add(d)) {
		if dl.After(now) {
			c.Set(dl)
		}
		return context.DeadlineExceeded
	}
	c.Advance(d)
	return nil
}

// Sleeps returns a copy of every duration passed to Sleep, in call order,
// including sleeps cut short by ctx; nil if there were none.
func (c *Fake) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sleeps)
}
