// Package clock is the one time seam of every module of the SDK, for code
// that waits and for the tests that drive it, with no wall time spent.
//
// Code that only reads the time takes a func() time.Time (every public
// WithClock: sandbox, reconcile, reconcile/sqlstore, reconcile/webhook, the
// CLI's dashboard). Code that also waits takes a Clock: that same Now plus
// Sleep(ctx, d), its only way to wait, so that a test's clock makes waiting
// free. Production code uses Real.
//
// Manual is the one manual clock for tests: it moves only when told (Set,
// Advance), and its Sleep blocks until the clock is moved past the
// sleeper's wake-up time or the sleeper's context ends. Its Now method fits
// every WithClock: WithClock(m.Now). sandbox.ManualClock and
// reconcile/reconciletest.Clock are this type.
//
// ErrPastDeadline is the one error of a wait refused because it would end
// after its context's deadline; it matches context.DeadlineExceeded.
//
// The package imports only the standard library, so that every module can
// use it.
package clock
