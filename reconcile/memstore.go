package reconcile

import (
	"container/heap"
	"context"
	"database/sql"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/upicollect/upicollect-go"
)

// NewMemoryStore returns a Store that keeps everything in memory, for one
// process: several Sweepers of that process may share it, and everything
// is lost when it exits. It keeps no clock of its own (Now's ok is false):
// leases are measured on the time the sweepers give it, and changes are
// stamped (OrderState.Updated, for Prune) with the process's clock. It
// keeps every order it was given, finished ones included, until Prune
// deletes them: a few hundred bytes an order. It has no SQL transactions:
// TrackTx returns ErrNoTransactions, and a Handler gets no transaction.
//
// No call holds the store's lock for more than a bounded piece of work,
// however many orders it keeps, so that Track, Lease and Commit proceed
// during a List over a million orders: Counts is kept as orders change,
// and List and Prune read the orders in List's order (kept as an index),
// at most 1024 per hold of the lock, each read resuming after the last
// order the previous one read. A List thus reads each order present for
// the whole call once, in its place, with the state it has when read; an
// order tracked meanwhile is listed if its place is among those not read
// yet. A page with no state filter costs its length, not the store's
// size.
func NewMemoryStore() Store {
	return newMemStore(nil)
}

// scanChunk bounds the orders a scan (List, Prune) reads under one hold of
// the store's lock.
const scanChunk = 1024

// newMemStore returns an empty memory store; chunked, when not nil, is
// called after each chunk of a scan, without the lock, with the number of
// orders the chunk read (tests count the chunks and hold a scan between
// two).
func newMemStore(chunked func(read int)) *memStore {
	return &memStore{orders: map[string]*memEntry{}, counts: map[State]int{}, chunked: chunked,
		consumers: map[string]*memConsumer{}, pending: map[string][]*memDelivery{}, delivered: map[string]int{}}
}

// memStore is a map of orders, an index of them in List's order, a
// min-heap of the ones still to be checked (keyed by when each can next
// be leased), and the count of orders in each state.
type memStore struct {
	mu      sync.Mutex
	orders  map[string]*memEntry
	byList  memIndex
	queue   memQueue
	counts  map[State]int // no zero counts
	tokens  uint64
	chunked func(read int)
	// consumers are the registered ones; pending their undelivered
	// events, in the order recorded; delivered how many each was
	// delivered (of the events kept).
	consumers map[string]*memConsumer
	pending   map[string][]*memDelivery
	delivered map[string]int
}

// memEntry is one order. Due times are Unix nanoseconds, to keep it small.
type memEntry struct {
	order      Order
	state      State
	due        int64  // 0: never again
	lease      uint64 // 0: not leased
	leaseUntil int64
	index      int // in queue; -1 when not queued (done, or its event being delivered)
	failures   int
	checks     int
	reason     string
	events     []Event
	updated    time.Time
	delivering chan struct{} // closed when the delivery under way ends; nil when none
	pending    int           // deliveries of its events still pending (Prune keeps it)
}

// key is when e can next be leased: its due time, or its lease's expiry
// when that is later.
func (e *memEntry) key() int64 {
	if e.lease != 0 {
		return max(e.due, e.leaseUntil)
	}
	return e.due
}

func (m *memStore) Track(ctx context.Context, o Order, due time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !Trackable(o.ID) {
		return upicollect.ValidateOrderID("reconcile.MemoryStore.Track", o.ID)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.orders[o.ID]; ok {
		if e.order.Amount != o.Amount {
			return ErrTrackedDifferently
		}
		return nil
	}
	e := &memEntry{order: o, state: Pending, due: due.UnixNano(), index: -1, updated: time.Now()}
	m.orders[o.ID] = e
	m.byList.insert(e)
	m.counts[e.state]++
	heap.Push(&m.queue, e)
	return nil
}

// setState moves e to st, keeping the counts. The caller holds mu.
func (m *memStore) setState(e *memEntry, st State) {
	m.uncount(e)
	e.state = st
	m.counts[st]++
}

// uncount takes e out of the counts. The caller holds mu.
func (m *memStore) uncount(e *memEntry) {
	if m.counts[e.state]--; m.counts[e.state] == 0 {
		delete(m.counts, e.state)
	}
}

func (m *memStore) TrackTx(context.Context, *sql.Tx, Order, time.Time) error {
	return ErrNoTransactions
}

func (m *memStore) Now(ctx context.Context) (time.Time, bool, error) {
	return time.Time{}, false, ctx.Err()
}

func (m *memStore) Lease(ctx context.Context, now time.Time, limit int, ttl time.Duration) ([]Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Lease
	for len(out) < limit && len(m.queue) > 0 && m.queue[0].key() <= now.UnixNano() {
		out = append(out, m.grant(m.queue[0], now, ttl))
	}
	return out, nil
}

// grant leases e, which is queued, until now+ttl. The caller holds mu.
func (m *memStore) grant(e *memEntry, now time.Time, ttl time.Duration) Lease {
	m.tokens++
	e.lease, e.leaseUntil = m.tokens, now.Add(ttl).UnixNano()
	heap.Fix(&m.queue, e.index)
	return Lease{Order: e.order, State: e.state, Due: time.Unix(0, e.due).UTC(), Failures: e.failures, Token: strconv.FormatUint(e.lease, 10)}
}

func (m *memStore) LeaseOrder(ctx context.Context, orderID string, now time.Time, ttl time.Duration) (Lease, error) {
	if err := ctx.Err(); err != nil {
		return Lease{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.orders[orderID]
	switch {
	case !ok:
		return Lease{}, ErrNotTracked
	case e.delivering != nil || (e.lease != 0 && e.leaseUntil > now.UnixNano()):
		return Lease{}, ErrLeaseHeld
	case e.index < 0:
		return Lease{}, ErrOrderDone
	}
	return m.grant(e, now, ttl), nil
}

// held returns the entry l leases, or ErrLeaseLost. The caller holds mu.
func (m *memStore) held(l Lease) (*memEntry, error) {
	e, ok := m.orders[l.Order.ID]
	if !ok || e.lease == 0 || strconv.FormatUint(e.lease, 10) != l.Token {
		return nil, ErrLeaseLost
	}
	return e, nil
}

func (m *memStore) Extend(ctx context.Context, l Lease, now time.Time, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.held(l)
	if err != nil {
		return err
	}
	e.leaseUntil = now.Add(ttl).UnixNano()
	if e.index >= 0 {
		heap.Fix(&m.queue, e.index)
	}
	return nil
}

func (m *memStore) Commit(ctx context.Context, l Lease, u Update, deliver func(context.Context) error) error {
	var each func(context.Context, int) error
	if deliver != nil {
		each = func(ctx context.Context, _ int) error { return deliver(ctx) }
	}
	errs, err := m.CommitMany(ctx, []LeasedUpdate{{Lease: l, Update: u}}, each)
	if err != nil {
		return err
	}
	return errs[0]
}

func (m *memStore) CommitMany(ctx context.Context, cs []LeasedUpdate, deliver func(context.Context, int) error) ([]error, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	errs := make([]error, len(cs))
	var held []int // the outcomes whose events are delivered, in order
	for i, c := range cs {
		e, err := m.held(c.Lease)
		switch {
		case err != nil:
			errs[i] = err
		case c.Update.Event == nil || deliver == nil:
			m.apply(e, c.Update)
		default:
			// Out of the queue until its handler has run, however long:
			// no expiry of the lease can hand the order to another
			// sweeper, and Untrack waits for the delivery's end.
			heap.Remove(&m.queue, e.index)
			e.delivering = make(chan struct{})
			held = append(held, i)
		}
	}
	for _, i := range held {
		c := cs[i]
		e := m.orders[c.Lease.Order.ID]
		m.mu.Unlock()
		err := deliver(ctx, i)
		m.mu.Lock()
		close(e.delivering)
		e.delivering = nil
		if err != nil {
			e.lease, e.failures, e.updated = 0, c.Update.Retry.Failures, time.Now()
			if !c.Update.Retry.Next.IsZero() {
				e.due = c.Update.Retry.Next.UnixNano()
			}
			heap.Push(&m.queue, e)
			errs[i] = err
			continue
		}
		m.apply(e, c.Update)
	}
	return errs, nil
}

// apply records u on e and ends its lease. The caller holds mu.
func (m *memStore) apply(e *memEntry, u Update) {
	if e.index >= 0 {
		heap.Remove(&m.queue, e.index)
	}
	m.setState(e, u.State)
	e.lease, e.failures, e.reason = 0, u.Failures, u.Reason
	if u.Checked {
		e.checks++
	}
	if u.Event != nil {
		m.recordEvent(e, *u.Event, u.Consumer)
	}
	e.due = 0
	if !u.Next.IsZero() {
		e.due = u.Next.UnixNano()
		heap.Push(&m.queue, e)
	}
	e.updated = time.Now()
}

// copyEvent is ev with a status of its own, as a database would keep it.
func copyEvent(ev Event) Event {
	if ev.Status != nil {
		ev.Status = &upicollect.PaymentStatus{OrderID: ev.Status.OrderID, TxnStatus: ev.Status.TxnStatus, Amount: ev.Status.Amount, UTR: ev.Status.UTR}
	}
	ev.DeliveredTo = slices.Clone(ev.DeliveredTo)
	return ev
}

func (m *memStore) Release(_ context.Context, ls ...Lease) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, l := range ls {
		e, err := m.held(l)
		if err != nil || e.delivering != nil {
			continue
		}
		e.lease, e.due = 0, l.Due.UnixNano()
		heap.Fix(&m.queue, e.index)
	}
	return nil
}

func (m *memStore) NextDue(ctx context.Context, _ time.Time) (time.Time, bool, error) {
	if err := ctx.Err(); err != nil {
		return time.Time{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.queue) == 0 {
		return time.Time{}, false, nil
	}
	return time.Unix(0, m.queue[0].key()).UTC(), true, nil
}

func (m *memStore) Lookup(ctx context.Context, orderID string) (*OrderState, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.orders[orderID]
	if !ok {
		return nil, ErrNotTracked
	}
	s := e.view()
	return &s, nil
}

// view is e as an OrderState. The caller holds mu.
func (e *memEntry) view() OrderState {
	s := OrderState{Order: e.order, State: e.state, Checks: e.checks, Failures: e.failures, Reason: e.reason, Updated: e.updated}
	if e.due != 0 {
		s.Next = time.Unix(0, e.due).UTC()
	}
	for _, ev := range e.events {
		s.Events = append(s.Events, copyEvent(ev))
	}
	return s
}

// scan calls visit, under mu, on the orders after cursor in List's order
// (from the first when cursor is nil) until visit returns false or every
// order has been visited, reading at most scanChunk orders per hold of mu:
// between two chunks it lets go of mu, and resumes after the last order
// read, by its key, so that an order present throughout is visited once
// whatever was tracked or pruned meanwhile. visit may delete the order it
// is given. It returns ctx's error when ctx ends between two chunks.
func (m *memStore) scan(ctx context.Context, cursor *memEntry, visit func(*memEntry) bool) error {
	chunk := make([]*memEntry, 0, scanChunk)
	for {
		m.mu.Lock()
		chunk = m.byList.after(chunk[:0], cursor, scanChunk)
		more := len(chunk) == scanChunk
		for _, e := range chunk {
			if !visit(e) {
				more = false
				break
			}
		}
		m.mu.Unlock()
		if m.chunked != nil {
			m.chunked(len(chunk))
		}
		if !more {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		cursor = chunk[len(chunk)-1]
	}
}

func (m *memStore) List(ctx context.Context, q ListQuery) ([]OrderState, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	var cursor *memEntry
	if q.Before != "" {
		m.mu.Lock()
		c, ok := m.orders[q.Before]
		m.mu.Unlock()
		if !ok {
			return nil, nil
		}
		cursor = c
	}
	out := make([]OrderState, 0, min(limit, scanChunk))
	err := m.scan(ctx, cursor, func(e *memEntry) bool {
		if len(q.States) == 0 || slices.Contains(q.States, e.state) {
			out = append(out, e.view())
		}
		return len(out) < limit
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (m *memStore) Counts(ctx context.Context) (map[State]int, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.counts), nil
}

func (m *memStore) Untrack(ctx context.Context, orderID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for {
		e, ok := m.orders[orderID]
		if !ok {
			return ErrNotTracked
		}
		if done := e.delivering; done != nil {
			// A delivery under way finishes or rolls back first.
			m.mu.Unlock()
			select {
			case <-done:
				m.mu.Lock()
				continue
			case <-ctx.Done():
				m.mu.Lock()
				return ctx.Err()
			}
		}
		if e.state.final() {
			return nil
		}
		if e.index >= 0 {
			heap.Remove(&m.queue, e.index)
		}
		m.setState(e, Untracked)
		e.lease, e.due, e.updated = 0, 0, time.Now()
		// Nothing more is delivered for it: its pending deliveries are
		// dropped (one under way finishes, as RemoveConsumer's do).
		for name, ds := range m.pending {
			m.pending[name] = slices.DeleteFunc(ds, func(d *memDelivery) bool {
				if d.entry != e {
					return false
				}
				d.dropped = true
				if !d.delivering {
					e.pending--
				}
				return true
			})
		}
		return nil
	}
}

func (m *memStore) Prune(ctx context.Context, before time.Time) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	n := 0
	err := m.scan(ctx, nil, func(e *memEntry) bool {
		if e.index < 0 && e.delivering == nil && e.pending == 0 && e.updated.Before(before) {
			for _, ev := range e.events {
				for _, c := range ev.DeliveredTo {
					if m.delivered[c]--; m.delivered[c] <= 0 {
						delete(m.delivered, c)
					}
				}
			}
			delete(m.orders, e.order.ID)
			m.byList.delete(e)
			m.uncount(e)
			n++
		}
		return true
	})
	return n, err
}

// memQueue is a container/heap of entries by key.
type memQueue []*memEntry

func (q memQueue) Len() int           { return len(q) }
func (q memQueue) Less(i, j int) bool { return q[i].key() < q[j].key() }
func (q memQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index, q[j].index = i, j
}
func (q *memQueue) Push(x any) {
	e := x.(*memEntry)
	e.index = len(*q)
	*q = append(*q, e)
}
func (q *memQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	e.index = -1
	return e
}
