package webhook

import (
	"container/list"
	"sync"
)

// maxRemembered bounds the bodies a Sender remembers: a delivery's body is
// under 1 KiB, so they hold a few MiB at most.
const maxRemembered = 10_000

// firstBodies remembers the body of each event whose delivery failed, by
// delivery id, so that the Sender's next delivery of that event sends it
// again byte for byte, whatever time the sweeper's next check gives the
// event. When more than maxRemembered are undelivered, the oldest are
// forgotten: their next delivery is the event as the check found it.
type firstBodies struct {
	mu    sync.Mutex
	byID  map[string]*list.Element // of *firstBody
	order list.List                // oldest first
}

type firstBody struct {
	id   string
	body []byte
}

// get returns the body remembered for id, if any.
func (f *firstBodies) get(id string) ([]byte, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.byID[id]; ok {
		return e.Value.(*firstBody).body, true
	}
	return nil, false
}

// remember keeps body as id's, unless one is kept already.
func (f *firstBodies) remember(id string, body []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.byID[id]; ok {
		return
	}
	if f.byID == nil {
		f.byID = make(map[string]*list.Element)
	}
	f.byID[id] = f.order.PushBack(&firstBody{id, body})
	if f.order.Len() > maxRemembered {
		oldest := f.order.Front()
		f.order.Remove(oldest)
		delete(f.byID, oldest.Value.(*firstBody).id)
	}
}

// forget drops id's body: its event was delivered.
func (f *firstBodies) forget(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.byID[id]; ok {
		f.order.Remove(e)
		delete(f.byID, id)
	}
}

// remembered is how many bodies are kept.
func (f *firstBodies) remembered() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.order.Len()
}
