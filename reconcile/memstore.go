package reconcile

import (
	"container/heap"
	"context"
	"strconv"
	"sync"
	"time"
)

// NewMemoryStore returns a Store that keeps everything in memory, for one
// process: several Sweepers of that process may share it, and everything
// is lost when it exits. It keeps every order it was given, done ones
// included (so that tracking one again changes nothing): a few hundred
// bytes an order.
func NewMemoryStore() Store {
	return &memStore{orders: map[string]*memEntry{}}
}

// memStore is a map of orders and a min-heap of the ones still to be
// checked, keyed by when each can next be leased.
type memStore struct {
	mu     sync.Mutex
	orders map[string]*memEntry
	queue  memQueue
	tokens uint64
}

// memEntry is one order. Times are Unix nanoseconds, to keep it small.
type memEntry struct {
	order      Order
	state      State
	due        int64  // 0: never again
	lease      uint64 // 0: not leased
	leaseUntil int64
	index      int // in queue; -1 when not queued (done, or in Commit's delivery)
}

// key is when e can next be leased: its due time, or its lease's expiry.
func (e *memEntry) key() int64 {
	if e.lease != 0 {
		return e.leaseUntil
	}
	return e.due
}

func (m *memStore) Track(ctx context.Context, o Order, due time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.orders[o.ID]; ok {
		return nil
	}
	e := &memEntry{order: o, state: StatePending, due: due.UnixNano(), index: -1}
	m.orders[o.ID] = e
	heap.Push(&m.queue, e)
	return nil
}

func (m *memStore) Lease(ctx context.Context, now time.Time, limit int, until time.Time) ([]Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Lease
	for len(out) < limit && len(m.queue) > 0 && m.queue[0].key() <= now.UnixNano() {
		e := m.queue[0]
		m.tokens++
		e.lease, e.leaseUntil = m.tokens, until.UnixNano()
		heap.Fix(&m.queue, 0)
		out = append(out, Lease{Order: e.order, State: e.state, Due: time.Unix(0, e.due).UTC(), Token: strconv.FormatUint(e.lease, 10)})
	}
	return out, nil
}

// held returns the entry l leases, or ErrLeaseLost. The caller holds mu.
func (m *memStore) held(l Lease) (*memEntry, error) {
	e, ok := m.orders[l.Order.ID]
	if !ok || e.lease == 0 || strconv.FormatUint(e.lease, 10) != l.Token {
		return nil, ErrLeaseLost
	}
	return e, nil
}

func (m *memStore) Commit(ctx context.Context, l Lease, u Update, deliver func(context.Context) error) error {
	m.mu.Lock()
	e, err := m.held(l)
	if err != nil {
		m.mu.Unlock()
		return err
	}
	if u.Event != nil && deliver != nil {
		// Out of the queue while the handler runs, however long: no
		// expiry of the lease can hand the order to another sweeper.
		heap.Remove(&m.queue, e.index)
		m.mu.Unlock()
		err := deliver(ctx)
		m.mu.Lock()
		if err != nil {
			e.lease = 0 // due again at its old due time: the event comes again
			heap.Push(&m.queue, e)
			m.mu.Unlock()
			return err
		}
	} else if e.index >= 0 {
		heap.Remove(&m.queue, e.index)
	}
	defer m.mu.Unlock()
	e.state, e.lease = u.State, 0
	e.due = 0
	if !u.Next.IsZero() {
		e.due = u.Next.UnixNano()
		heap.Push(&m.queue, e)
	}
	return nil
}

func (m *memStore) Release(_ context.Context, l Lease, due time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.held(l)
	if err != nil {
		return err
	}
	e.lease, e.due = 0, due.UnixNano()
	if e.index >= 0 {
		heap.Fix(&m.queue, e.index)
	} else {
		heap.Push(&m.queue, e)
	}
	return nil
}

func (m *memStore) NextDue(ctx context.Context) (time.Time, bool, error) {
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
