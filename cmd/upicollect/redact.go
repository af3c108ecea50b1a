package main

import (
	"bytes"
	"encoding/base64"
	"io"
	"sync"

	upicollect "github.com/upicollect/upicollect-go"
)

const redacted = "[REDACTED]"

// secretSet holds the values no output may carry: the secret key and the
// Authorization value made from it. The SDK already keeps them out of its
// errors; this is the last line of defence should a service echo one back.
type secretSet struct {
	mu   sync.Mutex
	vals [][]byte
}

func (s *secretSet) add(v string) {
	if v == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vals = append(s.vals, []byte(v))
}

// addCredentials adds the secret key and every form of the Basic
// Authorization value that carries it.
func (s *secretSet) addCredentials(c upicollect.Credentials) {
	if c.SecretKey == "" {
		return
	}
	s.add(c.SecretKey)
	pair := c.PublicKey + ":" + c.SecretKey
	s.add(base64.StdEncoding.EncodeToString([]byte(pair)))
	s.add(base64.RawStdEncoding.EncodeToString([]byte(pair)))
	s.add(base64.URLEncoding.EncodeToString([]byte(pair)))
}

func (s *secretSet) redact(p []byte) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range s.vals {
		if bytes.Contains(p, v) {
			p = bytes.ReplaceAll(p, v, []byte(redacted))
		}
	}
	return p
}

// redactWriter writes through to w with every secret replaced. Commands
// write whole lines, so a secret is never split across two writes.
type redactWriter struct {
	w       io.Writer
	secrets *secretSet
}

func (r *redactWriter) Write(p []byte) (int, error) {
	if _, err := r.w.Write(r.secrets.redact(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
