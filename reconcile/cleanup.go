package reconcile

import (
	"context"
	"sync"
	"time"
)

// cleanupTimeout bounds what a step or a Confirm whose context ended still
// does to record the checks it made and give its leases back: on a
// context of its own, after the call has returned.
const cleanupTimeout = 10 * time.Second

// cleanups runs the work a step or a Confirm could not finish before its
// context ended, without making the call outlive its context: the call
// returns at once, and the work goes on on a goroutine, bounded by
// cleanupTimeout (a store that does not answer costs that goroutine, not
// the caller). The sweeper's next call waits for it first, so that it sees
// the orders given back; a process that dies before it ends leaves the
// leases to expire after their TTL.
type cleanups struct {
	mu   sync.Mutex
	n    int
	done chan struct{} // closed when n drops to 0
}

// after runs f on a context of its own (ctx's values, cleanupTimeout long)
// on another goroutine.
func (c *cleanups) after(ctx context.Context, f func(context.Context)) {
	c.mu.Lock()
	if c.n == 0 {
		c.done = make(chan struct{})
	}
	c.n++
	c.mu.Unlock()
	go func() {
		defer c.end()
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		f(cctx)
	}()
}

func (c *cleanups) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n--; c.n == 0 {
		close(c.done)
	}
}

// wait returns once no cleanup is under way, or with ctx's error when ctx
// ends first.
func (c *cleanups) wait(ctx context.Context) error {
	c.mu.Lock()
	if c.n == 0 {
		c.mu.Unlock()
		return nil
	}
	done := c.done
	c.mu.Unlock()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
