package reconcile

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/upicollect/upicollect-go"
)

// Store keeps the orders sweepers track: their state, their events, when
// each is due for a check, and who holds it. It is the Engine the sweepers
// work through and the Reader that shows the ledger (the dashboard, the
// upicollect command's reconcile show and list). Several sweepers may share
// one Store (in one process for NewMemoryStore; in many for a database's,
// such as the reconcile/sqlstore module's). Every method is safe for
// concurrent use, across goroutines and (for database stores) processes.
// The conformance suite in reconcile/storetest checks a Store's contract.
type Store interface {
	Engine
	Reader
}

// Reader is a Store's read side: what it knows of orders, with no service
// call and no change. A program that only shows the ledger takes a Reader.
type Reader interface {
	// Lookup returns what the store knows of one order (no service call).
	// ErrNotTracked when unknown (an id Trackable refuses included, before
	// any I/O).
	Lookup(ctx context.Context, orderID string) (*OrderState, error)
	// List returns orders matching q, newest created first (ties: greater
	// id first), with their events. A page need not be a snapshot: a
	// store may read it in parts (the memory store does, so as not to
	// hold Track and the sweepers up), and then each order present for
	// the whole call is read once, in its place, and listed if its state
	// then matches; an order tracked or pruned meanwhile may or may not be
	// listed.
	List(ctx context.Context, q ListQuery) ([]OrderState, error)
	// Counts returns how many orders are in each state.
	Counts(ctx context.Context) (map[State]int, error)
	// Consumers returns the registered consumers, by name, with their
	// pending and delivered counts and when a sweeper of each last
	// stepped (see WithConsumer).
	Consumers(ctx context.Context) ([]Consumer, error)
}

// Engine is what a Sweeper works through: tracking orders, leasing the
// due ones, recording each check's outcome under its lease, and the
// store's clock. A Lease gives an order to one sweeper at a time, and
// CommitMany (and Commit) records a check's outcome only under the lease
// it was made under (its fencing token).
//
// Times: Due, Next and NextDue are sweeper time (the time passed to Step,
// or the store's clock when Run steps on it). A store that keeps a clock of
// its own (Now's ok true) measures leases on it, so that sweepers whose
// clocks differ agree on who holds an order; a store without one measures
// them on the now it is given.
type Engine interface {
	// Track adds o, first due at due. The same id with the same amount
	// again: nil, nothing changes (a finished order is not revived). The
	// same id with another amount: ErrTrackedDifferently. An id Trackable
	// refuses: a *upicollect.ValidationError naming order_id, before any
	// I/O.
	Track(ctx context.Context, o Order, due time.Time) error
	// TrackTx is Track inside the caller's transaction: o is tracked if and
	// only if tx commits. Stores without SQL transactions return
	// ErrNoTransactions.
	TrackTx(ctx context.Context, tx *sql.Tx, o Order, due time.Time) error

	// Now is the time the store trusts (PostgreSQL: the database's clock;
	// SQLite: this process's clock unless the store was given one). ok is
	// false when the store keeps no clock of its own (the memory store):
	// the sweeper's clock is then used.
	Now(ctx context.Context) (now time.Time, ok bool, err error)

	// Lease holds up to limit orders due at now (Due not after now) whose
	// lease is free or expired, earliest due first, for ttl (on the store's
	// clock when it has one, else from now). Each lease carries a fresh
	// fencing token. An order whose lease expired (its holder died) can be
	// leased again.
	Lease(ctx context.Context, now time.Time, limit int, ttl time.Duration) ([]Lease, error)
	// LeaseOrder leases one tracked order whatever its due time (Confirm),
	// for ttl (on the store's clock when it has one, else from now).
	// ErrNotTracked: no such order (an id Trackable refuses included,
	// before any I/O). ErrLeaseHeld: another unexpired lease
	// holds it (or its event is being delivered); retry later. An order
	// with no further check (final, untracked, late window over) is not
	// leased: ErrOrderDone.
	LeaseOrder(ctx context.Context, orderID string, now time.Time, ttl time.Duration) (Lease, error)
	// Extend renews l for ttl more (on the store's clock when it has one,
	// else from now); ErrLeaseLost when l is no longer held.
	Extend(ctx context.Context, l Lease, now time.Time, ttl time.Duration) error

	// Commit records one check's outcome under l (fenced by l.Token) and
	// ends the lease: CommitMany of one outcome, deliver called as
	// CommitMany's deliver for it. It returns that outcome's error:
	// deliver's error (u.Retry recorded instead), or ErrLeaseLost,
	// recording nothing, when another lease was granted since l (or the
	// order was untracked).
	Commit(ctx context.Context, l Lease, u Update, deliver func(context.Context) error) error
	// CommitMany records the outcomes cs, each under its lease (fenced by
	// its token), ending the leases, in as few transactions as the store
	// can (the SQL store: one per call, up to 50 events and 2,000 outcomes
	// each, in order). errs[i] is cs[i]'s error: ErrLeaseLost, recording
	// nothing, for one fenced out; deliver's error for an event not
	// delivered; when a transaction after the first failed, its error, for
	// each outcome from that transaction's first on (not recorded, its
	// lease still held; those before it are recorded). err is the whole
	// call's (nothing of it is then recorded), and then errs may be nil.
	//
	// An outcome with an event (Update.Event set) is recorded with its
	// event, delivered to Update.Consumer ("" is DefaultConsumer) and
	// pending for every other consumer registered then; when deliver is
	// not nil, deliver(ctx, i) is called for it inside the transaction
	// that records it (the handler's writes commit with the event, once,
	// or not at all). Every order of a transaction is held from before its
	// first delivery to its end, whatever its lease's time: no other lease
	// is granted and Untrack waits, so a slow handler cannot lead to a
	// second delivery. An error from deliver undoes that
	// event and what its handler wrote, and nothing else: the order keeps
	// its state and checks and is due again at Update.Retry.Next (its
	// lease's Due when zero) with Retry.Failures; the event comes again.
	// Deliveries are made one at a time, in the order of cs.
	CommitMany(ctx context.Context, cs []LeasedUpdate, deliver func(ctx context.Context, i int) error) (errs []error, err error)
	// Release ends leases without a check: each order is due again at its
	// l.Due, nothing else changes (the unchecked leases of a failed or
	// cancelled step). A lease no longer held is skipped.
	Release(ctx context.Context, ls ...Lease) error

	// NextDue is the earliest time an order can be leased, in sweeper
	// time as Due values are, for a sweeper whose time is now: an order
	// due but held by an unexpired lease can be leased when the lease
	// ends, which a store with a clock of its own measures on that clock
	// and answers as now plus the lease's time left. ok is false when no
	// order will ever be due again.
	NextDue(ctx context.Context, now time.Time) (t time.Time, ok bool, err error)

	// Untrack stops checking an order: no lease is granted and no event is
	// delivered for it after Untrack returns (a delivery under way
	// finishes or rolls back first). ErrNotTracked when unknown (an id
	// Trackable refuses included, before any I/O). Its state
	// becomes Untracked, unless it is final already (then nothing
	// changes).
	Untrack(ctx context.Context, orderID string) error
	// Prune deletes orders with no further check whose last change is
	// before before, with their events and deliveries, and returns how
	// many it deleted. An order with an event still pending for a
	// consumer is kept.
	Prune(ctx context.Context, before time.Time) (int, error)

	// RegisterConsumer registers the consumer name if it is not
	// registered (it then receives the events recorded from now on) and
	// records its LastSeen: the store's clock when it keeps one, else
	// now. A sweeper calls it at each step and at its first Confirm.
	RegisterConsumer(ctx context.Context, name string, now time.Time) error
	// RemoveConsumer ends name's registration and drops its pending
	// deliveries (a delivery under way finishes or rolls back first);
	// what it was delivered stays in the events' DeliveredTo.
	// ErrNoConsumer when name is not registered.
	RemoveConsumer(ctx context.Context, name string) error
	// LeaseDeliveries leases up to limit of consumer's pending deliveries
	// due at now (their event's At, or a retry's Next) whose lease is free
	// or expired, earliest due first, for ttl (on the store's clock when
	// it has one, else from now), each with a fresh fencing token.
	LeaseDeliveries(ctx context.Context, consumer string, now time.Time, limit int, ttl time.Duration) ([]DeliveryLease, error)
	// CommitDeliveries records that the events of ds were delivered to
	// their consumers, each fenced by its lease's token, in as few
	// transactions as the store can (the SQL store: one per 50, in order).
	// When deliver is not nil, deliver(ctx, i) is called for each ds[i]
	// still held, one at a time, in order, inside the transaction that
	// records it; the deliveries of a transaction are held from before its
	// first to its end (no other lease of them is granted). An
	// error from deliver undoes that delivery and what its handler wrote,
	// and nothing else: ds[i].Retry is recorded instead (due again at
	// Retry.Next with Retry.Failures). errs[i] is ds[i]'s error: deliver's,
	// or ErrLeaseLost, deliver not called, when its lease is no longer held
	// (granted again, or the consumer removed); when a transaction after
	// the first failed, its error, for each delivery from that
	// transaction's first on (not recorded). err is the whole call's
	// (nothing of it is then recorded), and then errs may be nil.
	CommitDeliveries(ctx context.Context, ds []LeasedDelivery, deliver func(ctx context.Context, i int) error) (errs []error, err error)
}

// DeliveryLease is a Store's hold on one pending delivery: an event
// recorded for a consumer and not yet delivered to it, granted by
// Engine.LeaseDeliveries.
type DeliveryLease struct {
	Event    Event  // the event to deliver (DeliveredTo not filled in)
	Consumer string // the consumer it is for
	Failures int    // its failed deliveries so far (backoff)
	// Token is the lease's fencing token: CommitDeliveries presents it.
	Token string
}

// LeasedDelivery is one pending delivery under its lease, with the Retry
// recorded when its handler fails, for Engine.CommitDeliveries.
type LeasedDelivery struct {
	Lease DeliveryLease
	Retry Retry
}

// Lease is a Store's hold on one order, granted by Store.Lease or
// Store.LeaseOrder.
type Lease struct {
	Order    Order     // the order leased
	State    State     // its state when leased
	Due      time.Time // when it was due
	Failures int       // consecutive failed checks or deliveries so far (backoff)
	// Token is the lease's fencing token: CommitMany, Commit, Extend and
	// Release present it.
	Token string
}

// Update is what one check changed about an order.
type Update struct {
	State State     // the order's new state (or the same)
	Next  time.Time // the next check; zero: never again
	Event *Event    // the event to record and deliver; nil for none
	// Checked says a status check was answered (OrderState.Checks counts
	// them).
	Checked bool
	// Failures is the count of consecutive failures after this outcome
	// (0 resets it).
	Failures int
	// Reason says why tracking ended without a final event (checks kept
	// failing at the end of the late window); "" otherwise.
	Reason string
	// Consumer is the consumer Commit and CommitMany deliver the event
	// to (its sweeper's; "" is DefaultConsumer): the event is recorded
	// delivered to it, and pending for every other consumer registered
	// then.
	Consumer string
	// Retry is what Commit and CommitMany record instead when deliver
	// fails: the order keeps its state and becomes due at Retry.Next
	// with Retry.Failures; the event is not recorded and comes again.
	Retry Retry
}

// Retry is when an order whose event could not be delivered is due again.
type Retry struct {
	Next     time.Time // when the order is due again
	Failures int       // its consecutive failures then
}

// LeasedUpdate is one check's Update under the Lease it was made under,
// for Engine.CommitMany.
type LeasedUpdate struct {
	Lease  Lease
	Update Update
}

// Outcome is LeasedUpdate under its 0.3.0 name.
//
// Deprecated: use LeasedUpdate; Outcome names something else in the SDK
// (upicollect.Outcome, how a call ended).
type Outcome = LeasedUpdate

// ListQuery selects orders for Store.List.
type ListQuery struct {
	States []State // the states to list; empty: all
	Limit  int     // at most this many; 0: DefaultListLimit (a store may cap it)
	// Before is a cursor: the id of the last order of the previous page;
	// "" for the first page. A cursor that names no order the store holds
	// (unknown, pruned, or an id Trackable refuses) gives an empty page,
	// not an error.
	Before string
}

// Trackable reports whether orderID is an id a Store can hold: one Track
// accepts, by upicollect.ValidateOrderID's rule (1 to
// upicollect.MaxOrderIDLen bytes of valid UTF-8, no whitespace, control or
// format character). An id the SDK refuses to send could never be checked,
// so no store keeps one: every Store refuses it in Track and TrackTx (a
// *upicollect.ValidationError), and answers it as an order it does not
// hold, before any I/O: ErrNotTracked from Lookup, Untrack and LeaseOrder
// (so Confirm), an empty page from List with it as Before. Hostile ids (a
// NUL byte, invalid UTF-8, a megabyte) thus never reach a database. This
// is the one rule: a Store implementation calls it rather than keep a
// rule of its own.
func Trackable(orderID string) bool {
	return upicollect.ValidateOrderID("", orderID) == nil
}

// DefaultListLimit is how many orders Store.List returns when
// ListQuery.Limit is 0.
const DefaultListLimit = 100

// Errors of a Store and of the Sweeper methods that use it.
var (
	// ErrLeaseLost is CommitMany's, Commit's and Extend's error for an
	// outcome under a lease that is no longer held (it expired and the
	// order was leased again, or the order was untracked), and
	// CommitDeliveries' for a delivery lease no longer held: the other
	// holder's outcome counts, and this one is dropped.
	ErrLeaseLost = errors.New("reconcile: lease lost: the order was leased again")
	// ErrNotTracked: no such order in the store (Confirm, Lookup,
	// Untrack, LeaseOrder), or an id no order can have (see Trackable).
	ErrNotTracked = errors.New("reconcile: order not tracked")
	// ErrTrackedDifferently: Track or TrackTx of a tracked order id with
	// another amount. The first amount stays.
	ErrTrackedDifferently = errors.New("reconcile: order already tracked with another amount")
	// ErrNoTransactions: TrackTx on a store without SQL transactions (the
	// memory store).
	ErrNoTransactions = errors.New("reconcile: this store has no SQL transactions")
	// ErrLeaseHeld: LeaseOrder of an order another unexpired lease holds,
	// or whose event is being delivered.
	ErrLeaseHeld = errors.New("reconcile: another sweeper holds the order")
	// ErrOrderDone: LeaseOrder of an order with no further check.
	ErrOrderDone = errors.New("reconcile: the order has no further check")
	// ErrNoConsumer: RemoveConsumer of a name that is not registered.
	ErrNoConsumer = errors.New("reconcile: no such consumer")
)
