package reconcile

import (
	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/internal/hook"
)

// observerOf is c's Observer (its log's, WithObserver's, both, or a no-op
// one): the sweeper reports each final state it delivers there, so that a
// client given an Observer measures every time to a final state, its own
// waits' and the sweeper's, without a method on Client for it.
func observerOf(c *upicollect.Client) upicollect.Observer {
	return hook.ObserverOf(c).(upicollect.Observer)
}
