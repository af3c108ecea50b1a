package clock

import (
	"context"
	"sync"
	"time"
)

// Manual is a Clock that moves only when told, the one manual clock of the
// SDK's tests: a test walks hours or days (intent expiry, leases, retry
// and rate-limit delays) in no time at all, with exact answers. Set and
// Advance move it; Sleep blocks until it has been moved to the sleeper's
// wake-up time or the sleeper's context ends, and Sleepers and
// WaitForSleepers tell a test how many goroutines wait, so that it moves
// the clock only once they all do. For code that only reads the time, pass
// its Now method: WithClock(m.Now).
//
// It is safe for concurrent use. The zero Manual reads the zero time.
type Manual struct {
	mu       sync.Mutex
	now      time.Time
	sleepers map[*sleeper]struct{}
	changed  chan struct{} // closed and replaced whenever sleepers changes
}

var _ Clock = (*Manual)(nil)

type sleeper struct {
	until time.Time
	wake  chan struct{}
}

// NewManual returns a Manual whose Now is start.
func NewManual(start time.Time) *Manual { return &Manual{now: start} }

// Now returns the clock's time.
func (m *Manual) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// Advance moves the clock d forward (backward when d is negative), wakes
// every sleeper whose time has come and returns the new time.
func (m *Manual) Advance(d time.Duration) time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = m.now.Add(d)
	m.wakeLocked()
	return m.now
}

// Set moves the clock to t, forward or backward, and wakes every sleeper
// whose time has come.
func (m *Manual) Set(t time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = t
	m.wakeLocked()
}

// Sleep blocks until the clock reads at least Now()+d, or until ctx ends,
// in which case it returns ctx.Err(). A d <= 0 returns at once (ctx.Err()
// if ctx is already done). The clock's time is not compared with ctx's
// deadline, which is wall time.
func (m *Manual) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	m.mu.Lock()
	s := &sleeper{until: m.now.Add(d), wake: make(chan struct{})}
	if m.sleepers == nil {
		m.sleepers = map[*sleeper]struct{}{}
	}
	m.sleepers[s] = struct{}{}
	m.notifyLocked()
	m.mu.Unlock()
	select {
	case <-s.wake:
		return nil
	case <-ctx.Done():
		m.mu.Lock()
		defer m.mu.Unlock()
		if _, waiting := m.sleepers[s]; !waiting {
			return nil // woken as ctx ended: the sleep was complete
		}
		delete(m.sleepers, s)
		m.notifyLocked()
		return ctx.Err()
	}
}

// Sleepers returns how many goroutines are blocked in Sleep.
func (m *Manual) Sleepers() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sleepers)
}

// WaitForSleepers blocks until exactly n goroutines are blocked in Sleep,
// or ctx ends; it returns ctx.Err() then. Tests bound it with a deadline so
// that a regression fails instead of hanging.
func (m *Manual) WaitForSleepers(ctx context.Context, n int) error {
	for {
		m.mu.Lock()
		count, changed := len(m.sleepers), m.changedLocked()
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

// wakeLocked wakes every sleeper whose time has come; the caller holds mu.
func (m *Manual) wakeLocked() {
	for s := range m.sleepers {
		if !m.now.Before(s.until) {
			close(s.wake)
			delete(m.sleepers, s)
		}
	}
	m.notifyLocked()
}

// changedLocked returns the channel closed at the next change of
// sleepers; the caller holds mu.
func (m *Manual) changedLocked() chan struct{} {
	if m.changed == nil {
		m.changed = make(chan struct{})
	}
	return m.changed
}

// notifyLocked wakes WaitForSleepers; the caller holds mu.
func (m *Manual) notifyLocked() {
	if m.changed != nil {
		close(m.changed)
		m.changed = nil
	}
}
