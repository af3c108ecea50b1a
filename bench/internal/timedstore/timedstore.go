// Package timedstore wraps a reconcile.Store and adds up the wall time
// spent inside its calls, by method. The handlers a CommitMany, a Commit or
// a CommitDeliveries calls (the sweeper's work, not the store's) are timed
// apart and left out.
//
// A step's store calls run beside its checks (the next batch is leased and
// the last one recorded while a batch is checked), so Spent no longer says
// how long the step waited for the store. Alone does: the time during
// which a store call was in flight and no call of the client's (the
// checks, seen through Service's Observer) was.
//
// A benchmark harness, not a store: every method forwards to the wrapped
// store unchanged.
package timedstore

import (
	"context"
	"database/sql"
	"sync"
	"time"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

// Store is a reconcile.Store that times the calls it forwards.
type Store struct {
	next  reconcile.Store
	clock func() time.Time // time.Now; a test's own
	mu    sync.Mutex
	by    map[string]Call
	// The timeline: calls in flight, the store's and the client's, since
	// mark, and the time the store's were alone.
	stores, services int
	mark             time.Time
	alone            time.Duration
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

// Alone returns the time, since New or the last Reset, during which a
// call of the store's was in flight (a handler's time left out) and no
// call of the client's whose Observer is Service: the time a step that
// makes its checks through that client waited for the store alone.
func (s *Store) Alone() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.moveLocked(s.clock(), 0, 0)
	return s.alone
}

// Reset forgets the times so far (the calls in flight stay counted).
func (s *Store) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.by = map[string]Call{}
	s.moveLocked(s.clock(), 0, 0)
	s.alone = 0
}

// Service is an Observer for the client the checks go through (with
// upicollect.WithObserver): its calls in flight are the other side of
// Alone's timeline.
func (s *Store) Service() upicollect.Observer { return service{s: s} }

// service counts a client's calls in flight on s's timeline.
type service struct {
	upicollect.NopObserver
	s *Store
}

// StartCall counts a call in flight.
func (o service) StartCall(ctx context.Context, _ upicollect.CallInfo) context.Context {
	o.s.move(0, 1)
	return ctx
}

// EndCall counts a call ended.
func (o service) EndCall(context.Context, upicollect.CallInfo, upicollect.CallEnd) { o.s.move(0, -1) }

// move changes the calls in flight, the store's by stores and the client's
// by services, now.
func (s *Store) move(stores, services int) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	s.moveLocked(now, stores, services)
	return now
}

// moveLocked adds the time since mark to alone when only the store's calls
// were in flight, and changes the calls in flight at now (read under s.mu,
// so that the marks follow one another).
func (s *Store) moveLocked(now time.Time, stores, services int) {
	if s.stores > 0 && s.services == 0 {
		s.alone += now.Sub(s.mark)
	}
	s.mark = now
	s.stores += stores
	s.services += services
}

// begin counts a call of the store's in flight, and returns its start.
func (s *Store) begin() time.Time { return s.move(1, 0) }

// since records a call of method that started at start (begin's), less
// out (the time spent in a callback of the caller's), and counts it ended.
func (s *Store) since(method string, start time.Time, out time.Duration) {
	end := s.move(-1, 0)
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.by[method]
	c.Calls++
	c.Spent += end.Sub(start) - out
	s.by[method] = c
}

// callback times a callback of the caller's inside a store's call: the
// call is not in flight meanwhile, and the callback's time is added to
// *out.
func (s *Store) callback(out *time.Duration) func() {
	start := s.move(-1, 0)
	return func() { *out += s.move(1, 0).Sub(start) }
}

// Track forwards to the store's Track.
func (s *Store) Track(ctx context.Context, o reconcile.Order, due time.Time) error {
	defer s.since("Track", s.begin(), 0)
	return s.next.Track(ctx, o, due)
}

// TrackTx forwards to the store's TrackTx.
func (s *Store) TrackTx(ctx context.Context, tx *sql.Tx, o reconcile.Order, due time.Time) error {
	defer s.since("TrackTx", s.begin(), 0)
	return s.next.TrackTx(ctx, tx, o, due)
}

// Now forwards to the store's Now.
func (s *Store) Now(ctx context.Context) (time.Time, bool, error) {
	defer s.since("Now", s.begin(), 0)
	return s.next.Now(ctx)
}

// Lease forwards to the store's Lease.
func (s *Store) Lease(ctx context.Context, now time.Time, limit int, ttl time.Duration) ([]reconcile.Lease, error) {
	defer s.since("Lease", s.begin(), 0)
	return s.next.Lease(ctx, now, limit, ttl)
}

// LeaseOrder forwards to the store's LeaseOrder.
func (s *Store) LeaseOrder(ctx context.Context, orderID string, now time.Time, ttl time.Duration) (reconcile.Lease, error) {
	defer s.since("LeaseOrder", s.begin(), 0)
	return s.next.LeaseOrder(ctx, orderID, now, ttl)
}

// Extend forwards to the store's Extend.
func (s *Store) Extend(ctx context.Context, l reconcile.Lease, now time.Time, ttl time.Duration) error {
	defer s.since("Extend", s.begin(), 0)
	return s.next.Extend(ctx, l, now, ttl)
}

// Commit forwards to the store's Commit; deliver's time is left out.
func (s *Store) Commit(ctx context.Context, l reconcile.Lease, u reconcile.Update, deliver func(context.Context) error) error {
	var out time.Duration
	defer func(start time.Time) { s.since("Commit", start, out) }(s.begin())
	if deliver == nil {
		return s.next.Commit(ctx, l, u, nil)
	}
	return s.next.Commit(ctx, l, u, func(ctx context.Context) error {
		defer s.callback(&out)()
		return deliver(ctx)
	})
}

// CommitMany forwards to the store's CommitMany; deliver's time is left
// out.
func (s *Store) CommitMany(ctx context.Context, cs []reconcile.LeasedUpdate, deliver func(ctx context.Context, i int) error) ([]error, error) {
	var out time.Duration
	defer func(start time.Time) { s.since("CommitMany", start, out) }(s.begin())
	if deliver == nil {
		return s.next.CommitMany(ctx, cs, nil)
	}
	return s.next.CommitMany(ctx, cs, func(ctx context.Context, i int) error {
		defer s.callback(&out)()
		return deliver(ctx, i)
	})
}

// Release forwards to the store's Release.
func (s *Store) Release(ctx context.Context, ls ...reconcile.Lease) error {
	defer s.since("Release", s.begin(), 0)
	return s.next.Release(ctx, ls...)
}

// NextDue forwards to the store's NextDue.
func (s *Store) NextDue(ctx context.Context, now time.Time) (time.Time, bool, error) {
	defer s.since("NextDue", s.begin(), 0)
	return s.next.NextDue(ctx, now)
}

// Untrack forwards to the store's Untrack.
func (s *Store) Untrack(ctx context.Context, orderID string) error {
	defer s.since("Untrack", s.begin(), 0)
	return s.next.Untrack(ctx, orderID)
}

// Prune forwards to the store's Prune.
func (s *Store) Prune(ctx context.Context, before time.Time) (int, error) {
	defer s.since("Prune", s.begin(), 0)
	return s.next.Prune(ctx, before)
}

// RegisterConsumer forwards to the store's RegisterConsumer.
func (s *Store) RegisterConsumer(ctx context.Context, name string, now time.Time) error {
	defer s.since("RegisterConsumer", s.begin(), 0)
	return s.next.RegisterConsumer(ctx, name, now)
}

// RemoveConsumer forwards to the store's RemoveConsumer.
func (s *Store) RemoveConsumer(ctx context.Context, name string) error {
	defer s.since("RemoveConsumer", s.begin(), 0)
	return s.next.RemoveConsumer(ctx, name)
}

// LeaseDeliveries forwards to the store's LeaseDeliveries.
func (s *Store) LeaseDeliveries(ctx context.Context, consumer string, now time.Time, limit int, ttl time.Duration) ([]reconcile.DeliveryLease, error) {
	defer s.since("LeaseDeliveries", s.begin(), 0)
	return s.next.LeaseDeliveries(ctx, consumer, now, limit, ttl)
}

// CommitDeliveries forwards to the store's CommitDeliveries; deliver's
// time is left out.
func (s *Store) CommitDeliveries(ctx context.Context, ds []reconcile.LeasedDelivery, deliver func(ctx context.Context, i int) error) ([]error, error) {
	var out time.Duration
	defer func(start time.Time) { s.since("CommitDeliveries", start, out) }(s.begin())
	if deliver == nil {
		return s.next.CommitDeliveries(ctx, ds, nil)
	}
	return s.next.CommitDeliveries(ctx, ds, func(ctx context.Context, i int) error {
		defer s.callback(&out)()
		return deliver(ctx, i)
	})
}

// Lookup forwards to the store's Lookup.
func (s *Store) Lookup(ctx context.Context, orderID string) (*reconcile.OrderState, error) {
	defer s.since("Lookup", s.begin(), 0)
	return s.next.Lookup(ctx, orderID)
}

// List forwards to the store's List.
func (s *Store) List(ctx context.Context, q reconcile.ListQuery) ([]reconcile.OrderState, error) {
	defer s.since("List", s.begin(), 0)
	return s.next.List(ctx, q)
}

// Counts forwards to the store's Counts.
func (s *Store) Counts(ctx context.Context) (map[reconcile.State]int, error) {
	defer s.since("Counts", s.begin(), 0)
	return s.next.Counts(ctx)
}

// Consumers forwards to the store's Consumers.
func (s *Store) Consumers(ctx context.Context) ([]reconcile.Consumer, error) {
	defer s.since("Consumers", s.begin(), 0)
	return s.next.Consumers(ctx)
}
