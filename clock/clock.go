package clock

import (
	"context"
	"time"
)

// Clock is the time seam of code that waits: production code uses Real,
// tests a Manual, so that retries, polls and rate limits cost no wall time.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep waits d or until ctx is done, whichever is first. It returns
	// ctx.Err() (unwrapped, so errors.Is works) if ctx ended first or was
	// already done on entry. A d <= 0 returns nil at once unless ctx is done.
	Sleep(ctx context.Context, d time.Duration) error
}

// Real is the Clock of the system's time, for production use. Its zero
// value is ready to use: Real{}.
type Real struct{}

var _ Clock = Real{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// Sleep waits d in wall time, or until ctx is done.
func (Real) Sleep(ctx context.Context, d time.Duration) error {
	// Checked first so a done ctx wins even when d is tiny or not positive.
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	// A Timer rather than time.After so it is released as soon as ctx ends.
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
