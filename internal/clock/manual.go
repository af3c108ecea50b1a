package clock

import (
	"context"
	"sync"
	"time"
)

// Manual is a Clock for tests of code that waits concurrently: Sleep blocks
// until the test moves the clock past the sleeper's wake-up time with
// Advance, or until the sleeper's context ends. Sleepers tells a test how
// many goroutines are blocked, so it can advance only once they all wait.
// Safe for concurrent use.
type Manual struct {
	mu       sync.Mutex
	now      time.Time
	sleepers map[*sleeper]struct{}
	changed  chan struct{} // closed and replaced whenever sleepers changes
}

type sleeper struct {
	until time.Time
	wake  chan struct{}
}

// NewManual returns a Manual clock whose Now is start.
func NewManual(start time.Time) *Manual {
	return &Manual{now: start, sleepers: map[*sleeper]struct{}{}, changed: make(chan struct{})}
}

// Now returns the manual current time.
func (m *Manual) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// Sleep blocks until Advance has moved the clock to at least Now()+d, or
// until ctx ends, in which case it returns ctx.Err(). A d <= 0 returns at
// once (ctx.Err() if ctx is already done).
func (m *Manual) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	m.mu.Lock()
	s := &sleeper{until: m.now.Add(d), wake: make(chan struct{})}
	m.sleepers[s] = struct{}{}
	m.notifyLocked()
	m.mu.Unlock()
	select {
	case <-s.wake:
		return nil
	case <-ctx.Done():
		m.mu.Lock()
		delete(m.sleepers, s)
		m.notifyLocked()
		m.mu.Unlock()
		return ctx.Err()
	}
}

// Advance moves the clock forward by d and wakes every sleeper whose time
// has come.
func (m *Manual) Advance(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = m.now.Add(d)
	for s := range m.sleepers {
		if !m.now.Before(s.until) {
			close(s.wake)
			delete(m.sleepers, s)
		}
	}
	m.notifyLocked()
}

// Sleepers returns how many goroutines are blocked in Sleep.
func (m *Manual) Sleepers() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sleepers)
}

// WaitForSleepers blocks until exactly n goroutines are blocked in Sleep, or
// ctx ends; it returns ctx.Err() then. Tests bound it with a deadline so a
// regression fails instead of hanging.
func (m *Manual) WaitForSleepers(ctx context.Context, n int) error {
	for {
		m.mu.Lock()
		count, changed := len(m.sleepers), m.changed
		m.mu.Unlock()
		if count == n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// notifyLocked wakes WaitForSleepers; the caller holds mu.
func (m *Manual) notifyLocked() {
	close(m.changed)
	m.changed = make(chan struct{})
}
