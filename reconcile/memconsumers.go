package reconcile

import (
	"context"
	"slices"
	"strconv"
	"time"
)

// memConsumer is a registered consumer of a memory store.
type memConsumer struct {
	lastSeen time.Time
}

// memDelivery is one pending delivery: the event at index ev of entry's
// events, for a consumer.
type memDelivery struct {
	entry      *memEntry
	ev         int
	due        int64
	lease      uint64 // 0: not leased
	leaseUntil int64
	failures   int
	delivering bool
	dropped    bool // its consumer was removed meanwhile
}

// recordEvent appends ev to e's events, delivered to consumer ("":
// DefaultConsumer) and pending for every other registered consumer, due
// at ev.At. The caller holds mu.
func (m *memStore) recordEvent(e *memEntry, ev Event, consumer string) {
	if consumer == "" {
		consumer = DefaultConsumer
	}
	ev = copyEvent(ev)
	ev.DeliveredTo = []string{consumer}
	m.delivered[consumer]++
	e.events = append(e.events, ev)
	for name := range m.consumers {
		if name == consumer {
			continue
		}
		m.pending[name] = append(m.pending[name], &memDelivery{entry: e, ev: len(e.events) - 1, due: ev.At.UnixNano()})
		e.pending++
	}
}

func (m *memStore) RegisterConsumer(ctx context.Context, name string, now time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.consumers[name]
	if !ok {
		c = &memConsumer{}
		m.consumers[name] = c
	}
	c.lastSeen = now.UTC()
	return nil
}

func (m *memStore) RemoveConsumer(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.consumers[name]; !ok {
		return ErrNoConsumer
	}
	delete(m.consumers, name)
	for _, d := range m.pending[name] {
		d.dropped = true
		if !d.delivering {
			d.entry.pending--
		}
	}
	delete(m.pending, name)
	return nil
}

func (m *memStore) LeaseDeliveries(ctx context.Context, consumer string, now time.Time, limit int, ttl time.Duration) ([]DeliveryLease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// An order's events reach a consumer in the order they were recorded:
	// a delivery waits while an earlier event of its order is pending for
	// the same consumer (leased or backing off).
	first := map[*memEntry]int{}
	for _, d := range m.pending[consumer] {
		if i, ok := first[d.entry]; !ok || d.ev < i {
			first[d.entry] = d.ev
		}
	}
	var due []*memDelivery
	for _, d := range m.pending[consumer] {
		if d.ev == first[d.entry] && d.due <= now.UnixNano() && !d.delivering && (d.lease == 0 || d.leaseUntil <= now.UnixNano()) {
			due = append(due, d)
		}
	}
	slices.SortStableFunc(due, func(a, b *memDelivery) int { return compareInt64(a.due, b.due) })
	out := make([]DeliveryLease, 0, min(limit, len(due)))
	for _, d := range due[:min(limit, len(due))] {
		m.tokens++
		d.lease, d.leaseUntil = m.tokens, now.Add(ttl).UnixNano()
		ev := copyEvent(d.entry.events[d.ev])
		ev.DeliveredTo = nil
		out = append(out, DeliveryLease{Event: ev, Consumer: consumer, Failures: d.failures, Token: strconv.FormatUint(d.lease, 10)})
	}
	return out, nil
}

// compareInt64 orders two int64s.
func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// heldDelivery returns the pending delivery dl leases, or ErrLeaseLost.
// The caller holds mu.
func (m *memStore) heldDelivery(dl DeliveryLease) (*memDelivery, error) {
	for _, d := range m.pending[dl.Consumer] {
		if d.lease != 0 && !d.delivering && strconv.FormatUint(d.lease, 10) == dl.Token {
			return d, nil
		}
	}
	return nil, ErrLeaseLost
}

func (m *memStore) CommitDeliveries(ctx context.Context, ds []LeasedDelivery, deliver func(context.Context, int) error) ([]error, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	errs := make([]error, len(ds))
	held := make([]*memDelivery, len(ds))
	for i, ld := range ds {
		d, err := m.heldDelivery(ld.Lease)
		if err != nil {
			errs[i] = err
			continue
		}
		// Marked until its handler has run, however long: no expiry of
		// the lease can hand it to another sweeper.
		d.delivering = true
		held[i] = d
	}
	for i, d := range held {
		if d == nil {
			continue
		}
		if deliver != nil {
			m.mu.Unlock()
			err := deliver(ctx, i)
			m.mu.Lock()
			if err != nil {
				d.delivering = false
				errs[i] = err
				if d.dropped {
					d.entry.pending--
					continue
				}
				retry := ds[i].Retry
				d.lease, d.failures = 0, retry.Failures
				if !retry.Next.IsZero() {
					d.due = retry.Next.UnixNano()
				}
				continue
			}
		}
		d.delivering = false
		m.delivered1(d, ds[i].Lease.Consumer)
	}
	return errs, nil
}

// delivered1 records d delivered to consumer. The caller holds mu.
func (m *memStore) delivered1(d *memDelivery, consumer string) {
	e := d.entry
	e.pending--
	ev := &e.events[d.ev]
	i, _ := slices.BinarySearch(ev.DeliveredTo, consumer)
	ev.DeliveredTo = slices.Insert(ev.DeliveredTo, i, consumer)
	m.delivered[consumer]++
	if !d.dropped {
		m.pending[consumer] = slices.DeleteFunc(m.pending[consumer], func(x *memDelivery) bool { return x == d })
	}
}

func (m *memStore) Consumers(ctx context.Context) ([]Consumer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Consumer, 0, len(m.consumers))
	for name, c := range m.consumers {
		out = append(out, Consumer{Name: name, Pending: len(m.pending[name]), Delivered: m.delivered[name], LastSeen: c.lastSeen})
	}
	slices.SortFunc(out, func(a, b Consumer) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out, nil
}
