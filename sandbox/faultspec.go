package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// faultSpec is a Fault as JSON (POST /sandbox/faults) and as the
// key=value list of ParseFault: the same names in both.
type faultSpec struct {
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

// fault turns the spec into a checked Fault.
func (sp faultSpec) fault() (Fault, error) {
	f := Fault{Op: sp.Op, Times: sp.Times, Status: sp.Status, HugeBody: sp.HugeBody, Processed: sp.Processed}
	if sp.Body != "" {
		f.Body = []byte(sp.Body)
	}
	var err error
	if f.Latency, err = specDuration("latency", sp.Latency); err != nil {
		return Fault{}, err
	}
	if f.SlowBody, err = specDuration("slow_body", sp.SlowBody); err != nil {
		return Fault{}, err
	}
	switch sp.Reset {
	case "":
	case "before":
		f.ResetBeforeProcessing = true
	case "after":
		f.ResetAfterProcessing = true
	default:
		return Fault{}, fmt.Errorf("sandbox: fault: reset %q (want before or after)", sp.Reset)
	}
	for k, v := range sp.Header {
		if f.Header == nil {
			f.Header = http.Header{}
		}
		f.Header.Add(k, v)
	}
	if f.Latency == 0 && f.Status == 0 && sp.Reset == "" && f.SlowBody == 0 && f.HugeBody == 0 {
		return Fault{}, fmt.Errorf("sandbox: fault: nothing to do (set latency, status, reset, slow_body or huge_body)")
	}
	return f, f.check()
}

func specDuration(name, v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("sandbox: fault: %s %q is not a duration such as 250ms or 2s", name, v)
	}
	return d, nil
}

// decodeFault reads the JSON form of a fault; unknown keys are refused.
func decodeFault(b []byte) (Fault, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var sp faultSpec
	if err := dec.Decode(&sp); err != nil {
		return Fault{}, fmt.Errorf("sandbox: fault: %v", err)
	}
	return sp.fault()
}

// ParseFault reads a fault written as comma-separated key=value pairs, the
// form `upicollect sandbox --fault` takes. Keys are those of the JSON form
// (see the package documentation): op, times, latency, status, header
// (Name:Value; repeatable), reset (before or after), slow_body, huge_body,
// processed (no value needed) and body, which must come last and takes the
// rest of the text, commas included. Example:
//
//	op=createPaymentIntent,status=500,times=2,body={"status":false}
func ParseFault(text string) (Fault, error) {
	var sp faultSpec
	for rest := text; rest != ""; {
		var pair string
		if strings.HasPrefix(rest, "body=") {
			pair, rest = rest, ""
		} else {
			pair, rest, _ = strings.Cut(rest, ",")
		}
		key, val, _ := strings.Cut(pair, "=")
		if err := sp.set(key, val); err != nil {
			return Fault{}, err
		}
	}
	return sp.fault()
}

// set applies one key=value pair of ParseFault.
func (sp *faultSpec) set(key, val string) error {
	var err error
	switch strings.ReplaceAll(key, "-", "_") {
	case "op":
		sp.Op = val
	case "times":
		sp.Times, err = strconv.Atoi(val)
	case "latency":
		sp.Latency = val
	case "status":
		sp.Status, err = strconv.Atoi(val)
	case "body":
		sp.Body = val
	case "header":
		name, v, ok := strings.Cut(val, ":")
		if !ok || name == "" {
			return fmt.Errorf("sandbox: fault: header %q (want Name:Value)", val)
		}
		if sp.Header == nil {
			sp.Header = map[string]string{}
		}
		sp.Header[strings.TrimSpace(name)] = strings.TrimSpace(v)
	case "reset":
		sp.Reset = val
	case "slow_body":
		sp.SlowBody = val
	case "huge_body":
		sp.HugeBody, err = strconv.ParseInt(val, 10, 64)
	case "processed":
		sp.Processed = val == "" || val == "true"
	default:
		return fmt.Errorf("sandbox: fault: unknown key %q", key)
	}
	if err != nil {
		return fmt.Errorf("sandbox: fault: %s %q is not a whole number", key, val)
	}
	return nil
}
