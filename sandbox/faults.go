package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"
)

// Fault scripts a misbehaviour for the next matching API calls. Faults
// apply in the order injected: a call takes the oldest fault whose Op
// matches it. When several kinds are set on one Fault, the first of
// ResetBeforeProcessing, Status/HugeBody, ResetAfterProcessing, SlowBody
// wins; Latency always applies first.
//
// Its one encoding is JSON (UnmarshalJSON), what POST /sandbox/faults
// takes; ParseFault reads the command line's short form into it.
type Fault struct {
	// Op is the operation it applies to (OpCreatePaymentIntent, ...); ""
	// means any API operation.
	Op string
	// Times is how many matching calls it applies to: 0 means 1, -1 means
	// until a Clear of Faults.
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
	// Header is added to the answer of any fault (Retry-After,
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

// faultJSON is Fault's JSON form: the keys of the package
// documentation's fault table.
type faultJSON struct {
	Op        string            `json:"op"`
	Times     int               `json:"times"`
	Latency   string            `json:"latency"`
	Status    int               `json:"status"`
	Body      string            `json:"body"`
	Header    map[string]string `json:"header"`
	Reset     string            `json:"reset"`
	SlowBody  string            `json:"slow_body"`
	HugeBody  int64             `json:"huge_body"`
	Processed bool              `json:"processed"`
}

// UnmarshalJSON reads a fault in its JSON form, the body of POST
// /sandbox/faults (keys in the package documentation; all optional,
// unknown keys refused), and checks it: a fault must do something and be
// able to apply.
func (f *Fault) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var j faultJSON
	if err := dec.Decode(&j); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return fmt.Errorf("sandbox: fault: unknown key %s", name)
		}
		return fmt.Errorf("sandbox: fault: %v", err)
	}
	g := Fault{Op: j.Op, Times: j.Times, Status: j.Status, HugeBody: j.HugeBody, Processed: j.Processed}
	if j.Body != "" {
		g.Body = []byte(j.Body)
	}
	var err error
	if g.Latency, err = faultDuration("latency", j.Latency); err != nil {
		return err
	}
	if g.SlowBody, err = faultDuration("slow_body", j.SlowBody); err != nil {
		return err
	}
	switch j.Reset {
	case "":
	case "before":
		g.ResetBeforeProcessing = true
	case "after":
		g.ResetAfterProcessing = true
	default:
		return fmt.Errorf("sandbox: fault: reset %q (want before or after)", j.Reset)
	}
	for k, v := range j.Header {
		if g.Header == nil {
			g.Header = http.Header{}
		}
		g.Header.Add(k, v)
	}
	if g.Latency == 0 && g.Status == 0 && j.Reset == "" && g.SlowBody == 0 && g.HugeBody == 0 {
		return errors.New("sandbox: fault: nothing to do (set latency, status, reset, slow_body or huge_body)")
	}
	if err := g.check(); err != nil {
		return err
	}
	*f = g
	return nil
}

// faultDuration reads a duration of the JSON form; "" is none.
func faultDuration(key, v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("sandbox: fault: %s %q is not a duration such as 250ms or 2s", key, v)
	}
	return d, nil
}

// ParseFault reads a fault written as comma-separated key=value pairs, the
// form `upicollect sandbox --fault` takes, by turning it into the JSON
// form and reading that: the keys are the JSON keys ("-" may stand for
// "_"). header takes Name:Value and may repeat; processed needs no value;
// body must come last and takes the rest of the text, commas included.
// Example:
//
//	op=createPaymentIntent,status=500,times=2,body={"status":false}
func ParseFault(text string) (Fault, error) {
	obj := map[string]any{}
	header := map[string]string{}
	for rest := text; rest != ""; {
		var pair string
		if strings.HasPrefix(rest, "body=") {
			pair, rest = rest, ""
		} else {
			pair, rest, _ = strings.Cut(rest, ",")
		}
		key, val, _ := strings.Cut(pair, "=")
		key = strings.ReplaceAll(key, "-", "_")
		switch key {
		case "times", "status", "huge_body":
			if _, err := strconv.ParseInt(val, 10, 64); err != nil {
				return Fault{}, fmt.Errorf("sandbox: fault: %s %q is not a whole number", key, val)
			}
			obj[key] = json.Number(val)
		case "processed":
			obj[key] = val == "" || val == "true"
		case "header":
			name, v, ok := strings.Cut(val, ":")
			if !ok || name == "" {
				return Fault{}, fmt.Errorf("sandbox: fault: header %q (want Name:Value)", val)
			}
			header[strings.TrimSpace(name)] = strings.TrimSpace(v)
			obj[key] = header
		default:
			obj[key] = val
		}
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return Fault{}, fmt.Errorf("sandbox: fault: %v", err)
	}
	var f Fault
	err = json.Unmarshal(b, &f)
	return f, err
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

// applyFault answers as f scripts, with f's Header on the answer. An
// answer the sandbox makes (one the client must not see, must see slowly,
// or sees as it is) is first recorded with httptest.ResponseRecorder, so
// that f's Header wins over the sandbox's own.
func (s *Service) applyFault(w http.ResponseWriter, r *http.Request, req *request, f *Fault) {
	for k, vs := range f.Header {
		w.Header()[k] = append([]string(nil), vs...)
	}
	switch {
	case f.ResetBeforeProcessing:
		resetConnection(w)
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
		resetConnection(w)
	default:
		// Recorded, then written by drip, which keeps the fault's
		// Header over the sandbox's own (Content-Type included).
		rec := httptest.NewRecorder()
		s.process(rec, r, req)
		s.drip(w, r, rec.Result(), rec.Body.Bytes(), f.SlowBody)
	}
}

// resetConnection closes the client's connection with an RST (SO_LINGER 0). Where
// the connection cannot be taken over (HTTP/2 behind a mounted Service), it
// aborts the handler, which also leaves the client without an answer.
func resetConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// drip writes a recorded answer a byte at a time over d, or at once when d
// is 0.
func (s *Service) drip(w http.ResponseWriter, r *http.Request, res *http.Response, body []byte, d time.Duration) {
	for k, vs := range res.Header {
		if _, set := w.Header()[k]; !set {
			w.Header()[k] = vs
		}
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(res.StatusCode)
	if d <= 0 {
		_, _ = w.Write(body)
		return
	}
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
	if frame := int64(len(head) + len(tail)); size < frame {
		_, _ = w.Write(append(head, tail...)[:size])
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
