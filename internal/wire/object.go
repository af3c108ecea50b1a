package wire

import (
	"encoding/json"
	"unicode/utf8"
)

// maxMembers bounds the objects read in one pass: the service's envelopes
// and data objects hold about a dozen members.
const maxMembers = 24

// member is one key and its value's JSON text, both slices of the object's
// bytes.
type member struct {
	key []byte // unquoted; no escapes, valid UTF-8
	val []byte
}

// object holds one JSON object's members for lookups by key. A plain object
// is read in one pass into members, with no allocation; any other is read by
// json.Unmarshal into m. Both give the same answer to every lookup.
type object struct {
	n       int
	members [maxMembers]member
	m       map[string]json.RawMessage // set when the object was not plain
}

// readObject reads data, a JSON object, into o. A plain object (keys
// without escapes, in valid UTF-8, each once, at most maxMembers of them) is
// read in one pass and its values alias data; any other is left to
// json.Unmarshal, whose rules (escapes decoded, the last repeated key wins)
// a plain object cannot disagree with. The error is json.Unmarshal's.
func readObject(data []byte, o *object) error {
	if o.scan(data) {
		return nil
	}
	o.n = 0
	m, err := unmarshalObject(data)
	o.m = m
	return err
}

// unmarshalObject is the general reading, apart so that only an object that
// needs it pays for the map.
func unmarshalObject(data []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	err := json.Unmarshal(data, &m)
	return m, err
}

// scan reads data into o.members and reports whether data is a plain
// object.
func (o *object) scan(data []byte) bool {
	// Validity first: the scan then only has to find the boundaries of
	// values, not check them.
	if !json.Valid(data) {
		return false
	}
	i := skipSpace(data, 0)
	if data[i] != '{' {
		return false
	}
	i++
	o.n = 0
	for {
		i = skipSpace(data, i)
		switch data[i] {
		case '}':
			return true
		case ',':
			i = skipSpace(data, i+1)
		}
		keyEnd, escaped := scanString(data, i)
		key := data[i+1 : keyEnd-1]
		if escaped || !utf8.Valid(key) || o.n == maxMembers || o.has(key) {
			return false
		}
		i = skipSpace(data, skipSpace(data, keyEnd)+1) // past ':'
		end := skipValue(data, i)
		o.members[o.n] = member{key: key, val: data[i:end]}
		o.n++
		i = end
	}
}

func (o *object) has(key []byte) bool {
	for _, mb := range o.members[:o.n] {
		if string(mb.key) == string(key) {
			return true
		}
	}
	return false
}

// get returns the value of key and whether the object has it.
func (o *object) get(key string) (json.RawMessage, bool) {
	if o.m != nil {
		v, ok := o.m[key]
		return v, ok
	}
	for _, mb := range o.members[:o.n] {
		if string(mb.key) == key {
			return mb.val, true
		}
	}
	return nil, false
}

// each calls fn for every member, in no particular order. key is only
// valid during the call.
func (o *object) each(fn func(key []byte, val json.RawMessage)) {
	if o.m != nil {
		for k, v := range o.m {
			fn([]byte(k), v)
		}
		return
	}
	for _, mb := range o.members[:o.n] {
		fn(mb.key, mb.val)
	}
}

// firstString returns the first non-empty string value among keys.
func (o *object) firstString(keys ...string) string {
	for _, k := range keys {
		if v, ok := o.get(k); ok {
			if s, ok := ReadString(v); ok && s != "" {
				return s
			}
		}
	}
	return ""
}

// firstText is firstString for values that may be strings or numbers.
func (o *object) firstText(keys ...string) string {
	for _, k := range keys {
		if v, ok := o.get(k); ok {
			if s := Text(v); s != "" {
				return s
			}
		}
	}
	return ""
}
