package sandbox

import (
	"net/http"
	"net/url"
	"strings"
	"time"
)

// RecordedRequest is one request the server received, with secrets removed.
type RecordedRequest struct {
	Time   time.Time
	Method string
	Path   string
	// Op is the API operation (OpCreatePaymentIntent, ...) or "" for hosted
	// pages, QR images and control endpoints.
	Op string
	// Header is the request header with Authorization (and
	// Proxy-Authorization) replaced by "Basic [REDACTED]".
	Header http.Header
	// Form holds the body's fields, whether sent form-encoded, multipart or
	// as JSON (numbers as written), plus URL query values. Nil when the body
	// could not be read.
	Form url.Values
	// Status is the HTTP status answered; 0 when the connection was reset or
	// the request ended before an answer.
	Status int
	// Fault reports that a scripted fault applied to the request.
	Fault bool
}

const redacted = "[REDACTED]"

// record stores a redacted copy of what r carries and returns it for the
// status to be filled in later.
func (s *Server) record(r *http.Request, fields map[string]string) *RecordedRequest {
	h := r.Header.Clone()
	for _, k := range []string{"Authorization", "Proxy-Authorization"} {
		if _, ok := h[k]; ok {
			h[k] = []string{"Basic " + redacted}
		}
	}
	secret := s.cfg.secretKey
	for k, vs := range h {
		for i, v := range vs {
			if strings.Contains(v, secret) {
				h[k][i] = redacted
			}
		}
	}
	var form url.Values
	if fields != nil || r.URL.RawQuery != "" {
		form = r.URL.Query()
		for k, v := range fields {
			form.Add(k, v)
		}
		// A client that puts the secret in a field must not leak it here.
		for k, vs := range form {
			for i, v := range vs {
				if strings.Contains(v, secret) {
					form[k][i] = redacted
				}
			}
		}
	}
	rec := &RecordedRequest{
		Time:   s.now(),
		Method: r.Method,
		Path:   strings.ReplaceAll(r.URL.Path, secret, redacted),
		Op:     apiOp(r.URL.Path),
		Header: h,
		Form:   form,
	}
	s.recMu.Lock()
	s.requests = append(s.requests, rec)
	if n := s.cfg.requestLogLimit; n > 0 && len(s.requests) > n {
		s.requests = append(s.requests[:0:0], s.requests[len(s.requests)-n:]...)
	}
	s.recMu.Unlock()
	return rec
}

// markFault records that a scripted fault applies to rec.
func (s *Server) markFault(rec *RecordedRequest) {
	s.recMu.Lock()
	rec.Fault = true
	s.recMu.Unlock()
}

// finish fills in what was answered.
func (s *Server) finish(rec *RecordedRequest, status int, fault bool) {
	s.recMu.Lock()
	rec.Status, rec.Fault = status, fault
	s.recMu.Unlock()
}

// Requests returns copies of the recorded requests, oldest first.
func (s *Server) Requests() []RecordedRequest {
	s.recMu.Lock()
	defer s.recMu.Unlock()
	out := make([]RecordedRequest, len(s.requests))
	for i, r := range s.requests {
		out[i] = *r
		out[i].Header = r.Header.Clone()
		out[i].Form = cloneValues(r.Form)
	}
	return out
}

// ClearRequests forgets the recorded requests.
func (s *Server) ClearRequests() {
	s.recMu.Lock()
	s.requests = nil
	s.recMu.Unlock()
}

func cloneValues(v url.Values) url.Values {
	if v == nil {
		return nil
	}
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// apiOp returns the operation a path names, or "".
func apiOp(path string) string {
	op, ok := strings.CutPrefix(path, apiPrefix)
	if _, known := opFields[op]; ok && known {
		return op
	}
	return ""
}
