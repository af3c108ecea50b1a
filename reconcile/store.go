package reconcile

import (
	"context"
	"errors"
	"time"
)

// Store keeps the orders a Sweeper tracks: their state, when each is due
// for a check, and who holds it. Several sweepers may share one Store (in
// one process for NewMemoryStore; in many for a database's, such as the
// reconcile/sqlstore module's): a Lease gives an order to one sweeper at a
// time, and Commit records a check's outcome only under the lease it was
// made under. Implementations must be safe for concurrent use.
type Store interface {
	// Track adds o, due for its first check at due. Tracking an order id
	// again changes nothing and is not an error: the first Track wins.
	Track(ctx context.Context, o Order, due time.Time) error
	// Lease holds up to limit orders due at now (Due not after now) that no
	// unexpired lease holds, until until, and returns them, earliest due
	// first. An order whose lease expired (its holder died) is due again.
	Lease(ctx context.Context, now time.Time, limit int, until time.Time) ([]Lease, error)
	// Commit records the outcome of a check of a leased order and ends the
	// lease. When u.Event is set, Commit calls deliver inside the same
	// transaction as the state change and the event's record: an error
	// from deliver undoes both, ends the lease and leaves the order due
	// (at l.Due), so that the event comes again at the next step. Commit
	// returns ErrLeaseLost, recording nothing, when another lease was
	// granted since l.
	Commit(ctx context.Context, l Lease, u Update, deliver func(context.Context) error) error
	// Release ends a lease without a change of state; the order is due at
	// due.
	Release(ctx context.Context, l Lease, due time.Time) error
	// NextDue returns the earliest time an order can be leased (its due
	// time, or its lease's expiry); ok is false when no order will ever be
	// due again.
	NextDue(ctx context.Context) (t time.Time, ok bool, err error)
}

// Lease is a Store's hold on one due order, granted by Store.Lease.
type Lease struct {
	Order Order     // the order leased
	State State     // its state when leased
	Due   time.Time // when it was due
	// Token identifies the lease; Commit and Release present it.
	Token string
}

// Update is what one check changed about an order.
type Update struct {
	State State     // the order's new state (or the same)
	Next  time.Time // the next check; zero when the order is done
	Event *Event    // the event to record and deliver; nil for none
}

// ErrLeaseLost is Store.Commit's and Store.Release's error when the
// order was leased again since (the lease had expired): the other holder's
// outcome counts, and this one is dropped.
var ErrLeaseLost = errors.New("reconcile: lease lost: the order was leased again")
