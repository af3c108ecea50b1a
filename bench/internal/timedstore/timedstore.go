// Package timedstore wraps a reconcile.Store and adds up the wall time
// spent inside its calls, by method: the store's share of a step's wall
// time is Spent ÷ the step's. The handler a Commit calls (the sweeper's
// work, not the store's) is timed apart and left out.
//
// A benchmark harness, not a store: every method forwards to the wrapped
// store unchanged.
package timedstore

import (
	"context"
	"database/sql"
	"sync"
	"time"

	"github.com/upicollect/upicollect-go/reconcile"
)

// Store is a reconcile.Store that times the calls it forwards.
type Store struct {
	next  reconcile.Store
	clock func() time.Time // time.Now; a test's own
	mu    sync.Mutex
	by    map[string]Call
}

var _ reconcile.Store = (*Store)(nil)

// Call is the time spent in one method and how many calls it took.
type Call struct {
	Calls int
	Spent time.Duration
}

// New returns st timed.
func New(st reconcile.Store) *Store { return &Store{next: st, clock: time.Now, by: map[string]Call{}} }

// Spent returns the time spent inside the store's calls since New or the
// last Reset, in all and by method (handlers left out).
func (s *Store) Spent() (total time.Duration, by map[string]Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	by = make(map[string]Call, len(s.by))
	for m, c := range s.by {
		by[m] = c
		total += c.Spent
	}
	return total, by
}

// Reset forgets the times so far.
func (s *Store) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.by = map[string]Call{}
}

// since records a call of method that started at start, less out (the
// time spent in a callback of the caller's).
func (s *Store) since(method string, start time.Time, out time.Duration) {
	d := s.clock().Sub(start) - out
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.by[method]
	c.Calls++
	c.Spent += d
	s.by[method] = c
}

// Track forwards to the store's Track.
func (s *Store) Track(ctx context.Context, o reconcile.Order, due time.Time) error {
	defer s.since("Track", s.clock(), 0)
	return s.next.Track(ctx, o, due)
}

// TrackTx forwards to the store's TrackTx.
func (s *Store) TrackTx(ctx context.Context, tx *sql.Tx, o reconcile.Order, due time.Time) error {
	defer s.since("TrackTx", s.clock(), 0)
	return s.next.TrackTx(ctx, tx, o, due)
}

// Now forwards to the store's Now.
func (s *Store) Now(ctx context.Context) (time.Time, bool, error) {
	defer s.since("Now", s.clock(), 0)
	return s.next.Now(ctx)
}

// Lease forwards to the store's Lease.
func (s *Store) Lease(ctx context.Context, now time.Time, limit int, ttl time.Duration) ([]reconcile.Lease, error) {
	defer s.since("Lease", s.clock(), 0)
	return s.next.Lease(ctx, now, limit, ttl)
}

// LeaseOrder forwards to the store's LeaseOrder.
func (s *Store) LeaseOrder(ctx context.Context, orderID string, now time.Time, ttl time.Duration) (reconcile.Lease, error) {
	defer s.since("LeaseOrder", s.clock(), 0)
	return s.next.LeaseOrder(ctx, orderID, now, ttl)
}

// Extend forwards to the store's Extend.
func (s *Store) Extend(ctx context.Context, l reconcile.Lease, now time.Time, ttl time.Duration) error {
	defer s.since("Extend", s.clock(), 0)
	return s.next.Extend(ctx, l, now, ttl)
}

// Commit forwards to the store's Commit; deliver's time is left out.
func (s *Store) Commit(ctx context.Context, l reconcile.Lease, u reconcile.Update, deliver func(context.Context) error) error {
	var out time.Duration
	defer func(start time.Time) { s.since("Commit", start, out) }(s.clock())
	return s.next.Commit(ctx, l, u, func(ctx context.Context) error {
		defer func(start time.Time) { out += s.clock().Sub(start) }(s.clock())
		return deliver(ctx)
	})
}

// CommitMany forwards to the store's CommitMany; deliver's time is left
// out.
func (s *Store) CommitMany(ctx context.Context, cs []reconcile.LeasedUpdate, deliver func(ctx context.Context, i int) error) ([]error, error) {
	var out time.Duration
	defer func(start time.Time) { s.since("CommitMany", start, out) }(s.clock())
	if deliver == nil {
		return s.next.CommitMany(ctx, cs, nil)
	}
	return s.next.CommitMany(ctx, cs, func(ctx context.Context, i int) error {
		defer func(start time.Time) { out += s.clock().Sub(start) }(s.clock())
		return deliver(ctx, i)
	})
}

// Release forwards to the store's Release.
func (s *Store) Release(ctx context.Context, ls ...reconcile.Lease) error {
	defer s.since("Release", s.clock(), 0)
	return s.next.Release(ctx, ls...)
}

// NextDue forwards to the store's NextDue.
func (s *Store) NextDue(ctx context.Context, now time.Time) (time.Time, bool, error) {
	defer s.since("NextDue", s.clock(), 0)
	return s.next.NextDue(ctx, now)
}

// Untrack forwards to the store's Untrack.
func (s *Store) Untrack(ctx context.Context, orderID string) error {
	defer s.since("Untrack", s.clock(), 0)
	return s.next.Untrack(ctx, orderID)
}

// Prune forwards to the store's Prune.
func (s *Store) Prune(ctx context.Context, before time.Time) (int, error) {
	defer s.since("Prune", s.clock(), 0)
	return s.next.Prune(ctx, before)
}

// RegisterConsumer forwards to the store's RegisterConsumer.
func (s *Store) RegisterConsumer(ctx context.Context, name string, now time.Time) error {
	defer s.since("RegisterConsumer", s.clock(), 0)
	return s.next.RegisterConsumer(ctx, name, now)
}

// RemoveConsumer forwards to the store's RemoveConsumer.
func (s *Store) RemoveConsumer(ctx context.Context, name string) error {
	defer s.since("RemoveConsumer", s.clock(), 0)
	return s.next.RemoveConsumer(ctx, name)
}

// LeaseDeliveries forwards to the store's LeaseDeliveries.
func (s *Store) LeaseDeliveries(ctx context.Context, consumer string, now time.Time, limit int, ttl time.Duration) ([]reconcile.DeliveryLease, error) {
	defer s.since("LeaseDeliveries", s.clock(), 0)
	return s.next.LeaseDeliveries(ctx, consumer, now, limit, ttl)
}

// CommitDeliveries forwards to the store's CommitDeliveries; deliver's
// time is left out.
func (s *Store) CommitDeliveries(ctx context.Context, ds []reconcile.LeasedDelivery, deliver func(ctx context.Context, i int) error) ([]error, error) {
	var out time.Duration
	defer func(start time.Time) { s.since("CommitDeliveries", start, out) }(s.clock())
	if deliver == nil {
		return s.next.CommitDeliveries(ctx, ds, nil)
	}
	return s.next.CommitDeliveries(ctx, ds, func(ctx context.Context, i int) error {
		defer func(start time.Time) { out += s.clock().Sub(start) }(s.clock())
		return deliver(ctx, i)
	})
}

// Lookup forwards to the store's Lookup.
func (s *Store) Lookup(ctx context.Context, orderID string) (*reconcile.OrderState, error) {
	defer s.since("Lookup", s.clock(), 0)
	return s.next.Lookup(ctx, orderID)
}

// List forwards to the store's List.
func (s *Store) List(ctx context.Context, q reconcile.ListQuery) ([]reconcile.OrderState, error) {
	defer s.since("List", s.clock(), 0)
	return s.next.List(ctx, q)
}

// Counts forwards to the store's Counts.
func (s *Store) Counts(ctx context.Context) (map[reconcile.State]int, error) {
	defer s.since("Counts", s.clock(), 0)
	return s.next.Counts(ctx)
}

// Consumers forwards to the store's Consumers.
func (s *Store) Consumers(ctx context.Context) ([]reconcile.Consumer, error) {
	defer s.since("Consumers", s.clock(), 0)
	return s.next.Consumers(ctx)
}
