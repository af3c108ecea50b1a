package iostreams

import (
	"io"
	"sort"
	"sync"

	upicollect "github.com/upicollect/upicollect-go"
)

// Secrets holds the filter of the credentials a command read: what they
// look like in every form is the SDK's one list (upicollect.Redactor). The SDK
// already keeps them out of its errors and answers; this is the last line
// of defence for everything the CLI prints.
type Secrets struct {
	mu     sync.Mutex
	filter *upicollect.Redactor   // nil until credentials are read: finds nothing
	values []string               // other secrets: a DSN's password, a webhook secret
	more   []*upicollect.Redactor // their filters, longest value first
}

// Set makes c's secret, and every Authorization form made from it, the
// values no output may carry.
func (s *Secrets) Set(c upicollect.Credentials) {
	f := c.Redactor()
	s.mu.Lock()
	s.filter = f
	s.mu.Unlock()
}

// Add makes each of values (a database password, a webhook secret) a
// value no output may carry, in every form the SDK's Redactor knows.
func (s *Secrets) Add(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range values {
		if v != "" {
			s.values = append(s.values, v)
		}
	}
	// Longest first: a value that holds a shorter one is replaced whole.
	sort.SliceStable(s.values, func(i, j int) bool { return len(s.values[i]) > len(s.values[j]) })
	more := make([]*upicollect.Redactor, 0, len(s.values)) // a fresh slice: bytes may be reading the old one
	for _, v := range s.values {
		more = append(more, upicollect.Credentials{SecretKey: v}.Redactor())
	}
	s.more = more
}

// bytes is p with every secret replaced by "[REDACTED]".
func (s *Secrets) bytes(p []byte) []byte {
	s.mu.Lock()
	f, more := s.filter, s.more
	s.mu.Unlock()
	p = f.Bytes(p)
	for _, m := range more {
		p = m.Bytes(p)
	}
	return p
}

// Current is the filter of the credentials set last; nil before any.
func (s *Secrets) Current() *upicollect.Redactor {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.filter
}

// redactWriter writes through to w with every credential replaced by
// "[REDACTED]". Commands write whole lines, so a secret is never split
// across two writes.
type redactWriter struct {
	w       io.Writer
	secrets *Secrets
}

func (r *redactWriter) Write(p []byte) (int, error) {
	if _, err := r.w.Write(r.secrets.bytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
