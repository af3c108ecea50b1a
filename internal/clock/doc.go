// Package clock is the root module's test home of the one clock seam,
// package github.com/upicollect/upicollect-go/clock: Clock, Real, Manual
// and NewManual here are that package's, and Fake is a Manual whose Sleep
// moves it at once and records the delays asked for, for the root
// module's tests of code that waits in turn.
//
// The seam has one shape: time is read through a func() time.Time. Every
// public WithClock takes one (sandbox, reconcile, reconcile/sqlstore,
// reconcile/webhook, the CLI's dashboard), and every fake's Now method
// value fits it: WithClock(c.Now). Code that also waits (the SDK's retries
// and polls, internal/ratelimit) takes a Clock, which is that same Now plus
// Sleep(ctx, d), its only way to wait, so that a fake makes waiting free.
//
// Every test's clock is a clock.Manual (sandbox.ManualClock and
// reconcile/reconciletest.Clock are the same type) or, here, a Fake on
// one: tests build no other clock.
package clock
