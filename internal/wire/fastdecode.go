package wire

import (
	"encoding/json"
	"unicode/utf8"
)

// decodeEnvelopeFast reads the common shape of the service's answers in one
// pass over body, without the intermediate map and per-field unmarshalling
// of DecodeEnvelope. It fills an Envelope exactly as DecodeEnvelope would
// and reports ok; for anything unusual (invalid JSON, escaped text, a
// string where a boolean or number belongs, a repeated key, a body that
// DecodeEnvelope rejects) it reports !ok and the caller decodes the body
// the careful way. FuzzFastDecodeMatches holds the two equal.
//
// The returned Data aliases body; body must not change afterwards.
func decodeEnvelopeFast(body []byte) (*Envelope, bool) {
	var o object
	if !o.scan(body) {
		return nil, false
	}
	status, ok := o.get("status")
	if !ok {
		return nil, false
	}
	env := &Envelope{}
	switch string(status) {
	case "true":
		env.Status = true
	case "false":
	default:
		return nil, false
	}
	if v, ok := o.get("statusCode"); ok && !fastStatusCode(env, v) {
		return nil, false
	}
	if v, ok := o.get("msg"); ok {
		s, ok := fastString(v)
		if !ok {
			return nil, false
		}
		env.Msg = string(s)
	}
	if v, ok := o.get("message"); ok && env.Msg == "" {
		s, ok := fastString(v)
		if !ok {
			return nil, false
		}
		env.Msg, env.MessageKey = string(s), true
	}
	if v, ok := o.get("txnStatus"); ok {
		s, ok := fastString(v)
		if !ok {
			return nil, false
		}
		env.TxnStatus = internTxn(s)
	}
	if v, ok := o.get("data"); ok {
		switch v[0] {
		case 'n':
		case '{':
			env.Data = json.RawMessage(v)
		default:
			return nil, false
		}
	}
	for _, mb := range o.members[:o.n] {
		// No repeated key here: only another case of "data".
		if mb.val[0] == '{' && isDataKey(mb.key) && string(mb.key) != "data" {
			env.DataTwins = append(env.DataTwins, json.RawMessage(mb.val))
		}
	}
	return env, true
}

// fastStatusCode reads statusCode as readInt does for the shapes seen: a
// plain integer, as a number or as a string of digits. Other numbers,
// booleans, objects and arrays read as 0, as in readInt.
func fastStatusCode(env *Envelope, val []byte) bool {
	switch val[0] {
	case 'n':
		return true // null: absent
	case 't', 'f', '{', '[':
		env.HasStatusCode = true
		return true
	case '"':
		s, ok := fastString(val)
		if !ok {
			return false
		}
		n, ok := digits(s)
		if !ok {
			return false // signs, spaces, text: leave to strconv
		}
		env.HasStatusCode, env.StatusCode = true, n
		return true
	}
	// A JSON number.
	n, ok := digits(val)
	if !ok {
		neg := val[0] == '-'
		if neg {
			n, ok = digits(val[1:])
		}
		switch {
		case ok && neg:
			n = -n
		case hasFractionOrExponent(val):
			n = 0 // strconv.Atoi refuses "2.5" and "2e2"
		default:
			return false
		}
	}
	env.HasStatusCode, env.StatusCode = true, n
	return true
}

// digits parses 1 to 18 ASCII digits (no sign, no spaces).
func digits(s []byte) (int, bool) {
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func hasFractionOrExponent(num []byte) bool {
	for _, c := range num {
		if c == '.' || c == 'e' || c == 'E' {
			return true
		}
	}
	return false
}

// fastString returns the text of a JSON string without escapes and in valid
// UTF-8 (which json.Unmarshal would return unchanged); null and non-string
// values give "" as in ReadString. ok is false when only json.Unmarshal can
// say what the text is.
func fastString(val []byte) ([]byte, bool) {
	if val[0] != '"' {
		return nil, true
	}
	return plainString(val)
}

// plainString returns the text of val when val is a JSON string that
// json.Unmarshal would return byte for byte: quoted, in valid UTF-8, with no
// escape, quote or control character inside.
func plainString(val []byte) ([]byte, bool) {
	if len(val) < 2 || val[0] != '"' || val[len(val)-1] != '"' {
		return nil, false
	}
	s := val[1 : len(val)-1]
	for _, c := range s {
		if c == '\\' || c == '"' || c < 0x20 {
			return nil, false
		}
	}
	if !utf8.Valid(s) {
		return nil, false // json.Unmarshal replaces bad bytes with U+FFFD
	}
	return s, true
}

// internTxn returns the known states without allocating.
func internTxn(s []byte) string {
	switch string(s) {
	case "SUCCESS":
		return "SUCCESS"
	case "PENDING":
		return "PENDING"
	case "FAIL":
		return "FAIL"
	case "REJECT":
		return "REJECT"
	case "":
		return ""
	}
	return string(s)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// scanString returns the index just past the string starting at b[i] (a
// quote) and whether it holds an escape. b is valid JSON.
func scanString(b []byte, i int) (end int, escaped bool) {
	for j := i + 1; ; j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
}

// skipValue returns the index just past the value starting at b[i]. b is
// valid JSON.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		end, _ := scanString(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; ; j++ {
			switch b[j] {
			case '"':
				end, _ := scanString(b, j)
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
	}
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return j
		}
		j++
	}
	return j
}
