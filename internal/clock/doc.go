// Package clock is the SDK's seam for time and the home of the root
// module's fake clocks.
//
// The seam has one shape: time is read through a func() time.Time. Every
// public WithClock takes one (sandbox, reconcile, reconcile/sqlstore,
// reconcile/webhook, the CLI's dashboard), and every fake's Now method
// value fits it: WithClock(c.Now). Code that also waits (the SDK's retries
// and polls, internal/ratelimit) takes a Clock, which is that same Now plus
// Sleep(ctx, d), its only way to wait, so that a fake makes waiting free.
//
// One family of fake clocks serves every test:
//
//   - Fake (here): Sleep moves Now on at once and is recorded; for the root
//     module's tests of code that waits.
//   - Manual (here): Sleep blocks until the test Advances; for code that
//     waits in several goroutines at once.
//   - sandbox.ManualClock (reconciletest.Clock is the same type): the public
//     fake for the func() time.Time seam, moved by Advance and Set; for every
//     module's tests (nested modules cannot import internal/) and for the
//     sandbox's own time.
//
// Tests build no other clock: a test that needs a store's or a server's
// time to follow its steps Sets a sandbox.ManualClock.
package clock
