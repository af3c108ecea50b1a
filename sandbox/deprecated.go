package sandbox

import (
	"fmt"
	"net/http"
)

// What 0.3.0 named otherwise. Each keeps working, unchanged, for the
// deprecation period VERSIONING.md sets, and is then removed.

// OrderCount returns how many orders the sandbox holds.
//
// Deprecated: use len(s.Orders()).
func (s *Service) OrderCount() int { return len(s.Orders()) }

// ClearFaults drops the queued faults.
//
// Deprecated: use s.Clear(Faults).
func (s *Service) ClearFaults() { s.Clear(Faults) }

// ClearRequests forgets the recorded requests.
//
// Deprecated: use s.Clear(RecordedRequests).
func (s *Service) ClearRequests() { s.Clear(RecordedRequests) }

// ResetStats sets the counts Stats reports back to zero.
//
// Deprecated: use s.Clear(Counts).
func (s *Service) ResetStats() { s.Clear(Counts) }

// Variants lists every variant with whether it is on.
//
// Deprecated: choose variants at start with WithVariant and read them
// with GET /sandbox/variants.
func (s *Service) Variants() []Variant { return s.variantSet().list() }

// SetVariants switches the enable variants on and the disable ones off for
// all later requests. On an error (an unknown name, or both status shapes
// on) nothing changes.
//
// Deprecated: use WithVariant at start, or POST /sandbox/variants.
func (s *Service) SetVariants(enable, disable []string) error { return s.setVariants(enable, disable) }

// Handler returns the sandbox's http.Handler.
//
// Deprecated: use s.Service, which is one.
func (s *Server) Handler() http.Handler { return s.Service }

// WithRequestLogLimit keeps only the last n recorded requests.
//
// Deprecated: use WithRequestLog(n, 0).
func WithRequestLogLimit(n int) Option { return WithRequestLog(n, 0) }

// WithRequestLogBytes caps the memory the request log holds.
//
// Deprecated: use WithRequestLog(0, n).
func WithRequestLogBytes(n int) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("sandbox: WithRequestLogBytes: %d is not positive", n)
		}
		c.requestLogBytes = n
		return nil
	}
}
