package sandbox

import (
	"net/http"
	"sync"
	"sync/atomic"
)

// Stats are the server's own counts, for tests and benchmarks that must
// know what reached the service rather than what a client believes it
// sent. GET /sandbox/stats answers them as JSON.
type Stats struct {
	// Requests counts API requests per operation (OpCreatePaymentIntent,
	// ...), whatever their answer: refused, faulted and over quota ones
	// too. Unknown operations are not counted.
	Requests map[string]int64 `json:"requests"`
	// Answers counts API answers per HTTP status (JSON keys are the
	// statuses as strings). A reset connection answers nothing.
	Answers map[int]int64 `json:"answers"`
	// RateLimited counts the 429 answers of the quota (WithRateLimit);
	// a 429 scripted by a fault counts in Answers only.
	RateLimited int64 `json:"rate_limited"`
	// Connections counts the TCP connections a Server accepted (0 for a
	// Service mounted elsewhere).
	Connections int64 `json:"connections"`
}

// counters are the live counts behind Stats.
type counters struct {
	requests    map[string]*atomic.Int64 // one per operation, made at start: read without a lock
	rateLimited atomic.Int64
	connections atomic.Int64

	mu      sync.Mutex
	answers map[int]int64
}

func newCounters() *counters {
	c := &counters{requests: map[string]*atomic.Int64{}, answers: map[int]int64{}}
	for op := range opFields {
		c.requests[op] = new(atomic.Int64)
	}
	return c
}

// request counts a call to op (ignored when op is unknown).
func (c *counters) request(op string) {
	if n := c.requests[op]; n != nil {
		n.Add(1)
	}
}

// answer counts an API answer with status code.
func (c *counters) answer(code int) {
	c.mu.Lock()
	c.answers[code]++
	c.mu.Unlock()
}

// snapshot copies the counts.
func (c *counters) snapshot() Stats {
	st := Stats{Requests: map[string]int64{}, Answers: map[int]int64{}}
	for op, n := range c.requests {
		st.Requests[op] = n.Load()
	}
	c.mu.Lock()
	for code, n := range c.answers {
		st.Answers[code] = n
	}
	c.mu.Unlock()
	st.RateLimited = c.rateLimited.Load()
	st.Connections = c.connections.Load()
	return st
}

// clear sets every count to zero.
func (c *counters) clear() {
	for _, n := range c.requests {
		n.Store(0)
	}
	c.mu.Lock()
	clear(c.answers)
	c.mu.Unlock()
	c.rateLimited.Store(0)
	c.connections.Store(0)
}

// Stats returns the server-side counts since the start or the last
// Clear of Counts.
func (s *Service) Stats() Stats { return s.stats.snapshot() }

// serveStats answers GET /sandbox/stats.
func (s *Service) serveStats(w http.ResponseWriter, _ *http.Request) {
	writeValue(w, http.StatusOK, s.Stats())
}

// clearStats answers DELETE /sandbox/stats.
func (s *Service) clearStats(w http.ResponseWriter, r *http.Request) {
	if refuseCrossSite(w, r) {
		return
	}
	s.Clear(Counts)
	w.WriteHeader(http.StatusNoContent)
}
