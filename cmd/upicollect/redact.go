package main

import (
	"io"
	"sync"

	upicollect "github.com/upicollect/upicollect-go"
)

// secrets holds the filter of the credentials a command read: what they
// look like in every form is the SDK's one list (upicollect.Redactor). The SDK
// already keeps them out of its errors and answers; this is the last line
// of defence for everything the CLI prints.
type secrets struct {
	mu     sync.Mutex
	filter *upicollect.Redactor // nil until credentials are read: finds nothing
}

// set makes c's secret, and every Authorization form made from it, the
// values no output may carry.
func (s *secrets) set(c upicollect.Credentials) {
	f := c.Redactor()
	s.mu.Lock()
	s.filter = f
	s.mu.Unlock()
}

func (s *secrets) current() *upicollect.Redactor {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.filter
}

// redactWriter writes through to w with every credential replaced by
// "[REDACTED]". Commands write whole lines, so a secret is never split
// across two writes.
type redactWriter struct {
	w       io.Writer
	secrets *secrets
}

func (r *redactWriter) Write(p []byte) (int, error) {
	if _, err := r.w.Write(r.secrets.current().Bytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
