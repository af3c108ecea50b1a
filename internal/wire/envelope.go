package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Envelope is the common frame of every answer, read leniently:
// statusCode may be a number or a string, the text may be under msg or
// message, and data may be absent.
type Envelope struct {
	Status        bool
	StatusCode    int  // 0 when absent or unreadable
	HasStatusCode bool // the body carried a statusCode key
	Msg           string
	// MessageKey is set when the text came from "message" rather than "msg":
	// the service's missing-Authorization answer is the only one shaped so.
	MessageKey bool
	TxnStatus  string
	Data       json.RawMessage // nil when absent or null
	// DataTwins are the objects under the envelope's other keys that spell
	// data in another case (Data, DATA), and under a repeated "data" but
	// the last (the one Data holds), in the order they come; nil when there
	// are none. Only Data is the answer's data; a lenient reader
	// (encoding/json matches keys case-insensitively) may read a twin as it,
	// so CheckStatusOrder refuses a status answer whose twin names another
	// order.
	DataTwins []json.RawMessage
}

// ErrNotEnvelope is returned for a body that is JSON but not the service's
// envelope (no boolean "status").
var ErrNotEnvelope = errors.New("not the service's envelope")

// jsonSpace is the whitespace RFC 8259 allows around a JSON value.
const jsonSpace = " \t\r\n"

// DecodeEnvelope reads body as the service's envelope. It fails on an empty
// or non-JSON body, on JSON that is not an object, and on an object without
// a boolean "status".
func DecodeEnvelope(body []byte) (*Envelope, error) {
	// Only JSON's own whitespace: bytes.TrimSpace would also strip \f, \v
	// and U+0085, and so accept a body that encoding/json rejects.
	trimmed := bytes.Trim(body, jsonSpace)
	if len(trimmed) == 0 {
		return nil, errors.New("empty body")
	}
	// The single-pass decoder reads every common answer; anything unusual
	// falls through to the general decoder below (fuzzed equal to it).
	if env, ok := decodeEnvelopeFast(trimmed); ok {
		return env, nil
	}
	return decodeEnvelopeGeneral(trimmed)
}

// decodeEnvelopeGeneral is DecodeEnvelope's reading of any body through
// json.Unmarshal; trimmed is not empty.
func decodeEnvelopeGeneral(trimmed []byte) (*Envelope, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &raw); err != nil {
		if trimmed[0] != '{' {
			return nil, errors.New("body is not a JSON object")
		}
		return nil, fmt.Errorf("body is not valid JSON: %w", err)
	}
	if raw == nil {
		return nil, errors.New("body is not a JSON object")
	}
	env := &Envelope{}
	status, ok := raw["status"]
	if !ok {
		return nil, fmt.Errorf("%w: no \"status\" key", ErrNotEnvelope)
	}
	if env.Status, ok = readBool(status); !ok {
		return nil, fmt.Errorf("%w: \"status\" is not a boolean", ErrNotEnvelope)
	}
	if sc, ok := raw["statusCode"]; ok && !isNull(sc) {
		env.HasStatusCode = true
		env.StatusCode, _ = readInt(sc)
	}
	if m, ok := raw["msg"]; ok {
		env.Msg, _ = ReadString(m)
	}
	if m, ok := raw["message"]; ok && env.Msg == "" {
		env.Msg, _ = ReadString(m)
		env.MessageKey = true
	}
	if t, ok := raw["txnStatus"]; ok {
		env.TxnStatus, _ = ReadString(t)
	}
	if d, ok := raw["data"]; ok && !isNull(d) {
		if bytes.TrimSpace(d)[0] != '{' {
			return nil, fmt.Errorf("%w: \"data\" is not an object", ErrNotEnvelope)
		}
		env.Data = d
	}
	for k := range raw {
		if isDataKey([]byte(k)) {
			env.DataTwins = dataTwins(trimmed)
			break
		}
	}
	return env, nil
}

// dataTwins returns the twins of data in body, an envelope that
// json.Unmarshal read (Envelope.DataTwins): every object under a key that
// is data in any case, but the last under "data" exactly.
func dataTwins(body []byte) []json.RawMessage {
	var twins []json.RawMessage
	last := -1 // the index in twins of the last "data", if an object
	eachMember(body, func(key string, val json.RawMessage) {
		if !isDataKey([]byte(key)) {
			return
		}
		if key == "data" {
			last = -1
		}
		if val[0] != '{' {
			return
		}
		if key == "data" {
			last = len(twins)
		}
		twins = append(twins, val)
	})
	if last >= 0 {
		twins = append(twins[:last], twins[last+1:]...)
	}
	if len(twins) == 0 {
		return nil
	}
	return twins
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// readBool accepts true/false and, because fields drift to strings, "true"/"false".
func readBool(v json.RawMessage) (bool, bool) {
	switch string(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	if isNull(v) {
		return false, false // json.Unmarshal would leave b false without an error
	}
	var b bool
	if err := json.Unmarshal(v, &b); err == nil {
		return b, true
	}
	if s, ok := ReadString(v); ok {
		if b, err := strconv.ParseBool(strings.TrimSpace(s)); err == nil {
			return b, true
		}
	}
	return false, false
}

// readInt accepts 200 and "200".
func readInt(v json.RawMessage) (int, bool) {
	s := strings.TrimSpace(string(v))
	if u, ok := ReadString(v); ok {
		s = strings.TrimSpace(u)
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, false
	}
	return n, true
}

// ReadString returns the value of a JSON string; ok is false for any other
// JSON type.
func ReadString(v json.RawMessage) (string, bool) {
	if s, ok := plainString(v); ok {
		return string(s), true // what json.Unmarshal gives, without its reflection
	}
	if isNull(v) {
		return "", false // json.Unmarshal would leave s "" without an error
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false
	}
	return s, true
}

// Text returns a JSON string as is and a JSON number as its literal text;
// other values give "". Identifiers such as UTRs have been seen as both.
func Text(v json.RawMessage) string {
	if s, ok := ReadString(v); ok {
		return s
	}
	t := bytes.TrimSpace(v)
	if len(t) != 0 && (t[0] == '-' || (t[0] >= '0' && t[0] <= '9')) {
		return string(t)
	}
	return ""
}
