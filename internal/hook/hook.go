// Package hook lets the SDK's own packages reach a Client's Observer
// without a method on Client: package upicollect sets ObserverOf when it is
// initialised, and reconcile calls it to report the final states it learns
// to the client it was given.
package hook

// ObserverOf returns the Observer of client, an *upicollect.Client, as an
// upicollect.Observer (never nil: a client without one has a no-op one).
// Its types are any because this package sits below the SDK and may not
// import it. It panics on a client that NewClient did not make.
var ObserverOf func(client any) any
