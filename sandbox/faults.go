package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"
)

// Fault scripts a misbehaviour for the next matching API calls. Faults
// apply in the order injected: a call takes the oldest fault whose Op
// matches it. When several kinds are set on one Fault, the first of
// ResetBeforeProcessing, Status/HugeBody, ResetAfterProcessing, SlowBody
// wins; Latency always applies first.
type Fault struct {
	// Op is the operation it applies to (OpCreatePaymentIntent, ...); ""
	// means any API operation.
	Op string
	// Times is how many matching calls it applies to: 0 means 1, -1 means
	// until ClearFaults.
	Times int
	// Latency is added before answering; it ends early, without an answer,
	// when the request's context ends.
	Latency time.Duration
	// Status, if non-zero, is answered with Body and Header instead of the
	// real answer; the request is not processed (no order is created)
	// unless Processed is set.
	Status int
	// Body is the body answered with Status.
	Body []byte
	// Header is added to the answer of any fault kind (Retry-After,
	// Location, Content-Type, ...).
	Header http.Header
	// ResetBeforeProcessing resets the TCP connection (RST) without
	// processing the request.
	ResetBeforeProcessing bool
	// ResetAfterProcessing processes the request (the order exists) and
	// then resets the connection: the client gets no answer.
	ResetAfterProcessing bool
	// SlowBody processes the request normally but drips the real answer's
	// body a byte at a time, flushed, spread over this duration.
	SlowBody time.Duration
	// HugeBody answers Status (default 200) with a JSON-looking body of this
	// many bytes ({"status":true,"pad":"xxx…"}), streamed without holding
	// it in memory. The request is not processed unless Processed is set.
	HugeBody int64
	// Processed makes Status and HugeBody faults process the request first
	// (the order is created) and then answer as scripted, e.g. a 500 after
	// the create took effect.
	Processed bool
}

// check reports a Fault that cannot apply.
func (f Fault) check() error {
	switch {
	case f.Op != "" && opFields[f.Op] == nil:
		return fmt.Errorf("sandbox: fault: unknown op %q", f.Op)
	case f.Times < -1:
		return fmt.Errorf("sandbox: fault: times %d (want -1, 0 or more)", f.Times)
	case f.Latency < 0 || f.SlowBody < 0 || f.HugeBody < 0:
		return errors.New("sandbox: fault: negative latency, slow_body or huge_body")
	case f.Status != 0 && (f.Status < 100 || f.Status > 999):
		return fmt.Errorf("sandbox: fault: status %d is not an HTTP status", f.Status)
	}
	return nil
}

// faultState is a Fault with its remaining uses (-1: unlimited).
type faultState struct {
	Fault
	left int
}

// InjectFault queues f for the next matching API calls.
func (s *Service) InjectFault(f Fault) {
	left := f.Times
	if left == 0 {
		left = 1
	}
	s.mu.Lock()
	s.faults = append(s.faults, &faultState{Fault: f, left: left})
	s.mu.Unlock()
}

// ClearFaults drops every queued fault.
func (s *Service) ClearFaults() {
	s.mu.Lock()
	s.faults = nil
	s.mu.Unlock()
}

// takeFault returns the fault for a call to op and uses it up, or nil.
func (s *Service) takeFault(op string) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, fs := range s.faults {
		if fs.Op != "" && fs.Op != op {
			continue
		}
		if fs.left > 0 {
			fs.left--
			if fs.left == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		f := fs.Fault
		return &f
	}
	return nil
}

// applyFault answers as f scripts. Answers the client must not see, or
// must see slowly, are first recorded with httptest.ResponseRecorder.
func (s *Service) applyFault(w http.ResponseWriter, r *http.Request, req *request, f *Fault) {
	for k, vs := range f.Header {
		w.Header()[k] = append([]string(nil), vs...)
	}
	switch {
	case f.ResetBeforeProcessing:
		reset(w)
	case f.Status != 0 || f.HugeBody > 0:
		if f.Processed {
			s.process(httptest.NewRecorder(), r, req)
		}
		if f.HugeBody > 0 {
			s.writeHuge(w, r, f.Status, f.HugeBody)
			return
		}
		w.WriteHeader(f.Status)
		_, _ = w.Write(f.Body)
	case f.ResetAfterProcessing:
		s.process(httptest.NewRecorder(), r, req)
		reset(w)
	case f.SlowBody > 0:
		rec := httptest.NewRecorder()
		s.process(rec, r, req)
		s.drip(w, r, rec.Result(), rec.Body.Bytes(), f.SlowBody)
	default:
		s.process(w, r, req)
	}
}

// reset closes the client's connection with an RST (SO_LINGER 0). Where
// the connection cannot be taken over (HTTP/2 behind a mounted Service), it
// aborts the handler, which also leaves the client without an answer.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// drip writes a recorded answer a byte at a time over d.
func (s *Service) drip(w http.ResponseWriter, r *http.Request, res *http.Response, body []byte, d time.Duration) {
	for k, vs := range res.Header {
		if _, set := w.Header()[k]; !set {
			w.Header()[k] = vs
		}
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(res.StatusCode)
	rc := http.NewResponseController(w)
	step := d / time.Duration(max(len(body), 1))
	for i := range body {
		if i > 0 && !s.sleep(r.Context(), step) {
			panic(http.ErrAbortHandler) // cut the body short, visibly
		}
		if _, err := w.Write(body[i : i+1]); err != nil {
			return
		}
		_ = rc.Flush()
	}
}

// writeHuge streams a JSON-looking body of size bytes.
func (s *Service) writeHuge(w http.ResponseWriter, r *http.Request, status int, size int64) {
	if status == 0 {
		status = http.StatusOK
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	w.WriteHeader(status)
	head, tail := []byte(`{"status":true,"pad":"`), []byte(`"}`)
	if size < int64(len(head)+len(tail)) {
		_, _ = w.Write(head[:size])
		return
	}
	if _, err := w.Write(head); err != nil {
		return
	}
	pad := bytes.Repeat([]byte{'x'}, 32<<10)
	for left := size - int64(len(head)+len(tail)); left > 0; {
		if r.Context().Err() != nil || s.ctx.Err() != nil {
			panic(http.ErrAbortHandler)
		}
		n := min(left, int64(len(pad)))
		if _, err := w.Write(pad[:n]); err != nil {
			return
		}
		left -= n
	}
	_, _ = w.Write(tail)
}
