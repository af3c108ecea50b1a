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

func (m *memStore) CommitDelivery(ctx context.Context, dl DeliveryLease, retry Retry, deliver func(context.Context) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, err := m.heldDelivery(dl)
	if err != nil {
		return err
	}
	if deliver != nil {
		// Marked while the handler runs, however long: no expiry of the
		// lease can hand it to another sweeper.
		d.delivering = true
		m.mu.Unlock()
		err := deliver(ctx)
		m.mu.Lock()
		d.delivering = false
		if err != nil {
			if d.dropped {
				d.entry.pending--
				return err
			}
			d.lease, d.failures = 0, retry.Failures
			if !retry.Next.IsZero() {
				d.due = retry.Next.UnixNano()
			}
			return err
		}
	}
	e := d.entry
	e.pending--
	ev := &e.events[d.ev]
	i, _ := slices.BinarySearch(ev.DeliveredTo, dl.Consumer)
	ev.DeliveredTo = slices.Insert(ev.DeliveredTo, i, dl.Consumer)
	m.delivered[dl.Consumer]++
	if !d.dropped {
		m.pending[dl.Consumer] = slices.DeleteFunc(m.pending[dl.Consumer], func(x *memDelivery) bool { return x == d })
	}
	return nil
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
