package wire

import (
	"bytes"
	"encoding/json"
	"unicode"
	"unicode/utf8"
)

// isOrderKey reports whether key spells an order key: "orderid" once
// lower-cased, with every '_' and '-' dropped (order_id, orderId, ORDER_ID,
// Order_Id, orderID, ORDERID, order-id). Only order_id and orderId, exactly,
// name the order an answer is about; a lenient reader (encoding/json
// matches keys case-insensitively) may read another spelling as one, so an
// answer in which one names another order is refused (CheckStatusOrder).
// Lower-casing is Unicode's: U+0130 (İ) is i.
func isOrderKey(key []byte) bool {
	const want = "orderid"
	n := 0
	for len(key) > 0 {
		r, size := utf8.DecodeRune(key)
		key = key[size:]
		if r == '_' || r == '-' {
			continue
		}
		if n == len(want) || unicode.ToLower(r) != rune(want[n]) {
			return false
		}
		n++
	}
	return n == len(want)
}

// isDataKey reports whether key is "data" in any case: the envelope's data,
// or a twin of it (Data, DATA).
func isDataKey(key []byte) bool { return bytes.EqualFold(key, []byte("data")) }

// textOf is Text's answer as bytes, without a copy for a plain string.
func textOf(v []byte) []byte {
	if s, ok := plainString(v); ok {
		return s
	}
	return []byte(Text(v))
}

// orderNames gathers the texts under an object's order keys (isOrderKey)
// that are not named: the order the object names under its exact keys, ""
// to gather them all.
type orderNames struct {
	named string
	names []string
}

// add takes one member of the object.
func (o *orderNames) add(key, val []byte) {
	if !isOrderKey(key) {
		return
	}
	if t := textOf(val); len(t) != 0 && string(t) != o.named {
		o.names = append(o.names, string(t))
	}
}

// otherOrderNames returns the texts under the order keys of data, read
// into o, in any spelling and repeats included, that are not named, in the
// order they come; nil when there are none. A plain object is read from
// its members without a copy; any other is read again, member by member, so
// that a repeated key is seen every time (json.Unmarshal keeps the last).
func otherOrderNames(data []byte, o *object, named string) []string {
	if o.m == nil {
		names := orderNames{named: named}
		for _, mb := range o.members[:o.n] {
			names.add(mb.key, mb.val)
		}
		return names.names
	}
	names := &orderNames{named: named}
	eachMember(data, func(key string, val json.RawMessage) { names.add([]byte(key), val) })
	return names.names
}

// eachMember calls fn for every member of data, a JSON object that
// json.Unmarshal read without error, in order and repeats included, with
// its key decoded. It reads nothing of a value that is not an object.
func eachMember(data []byte, fn func(key string, val json.RawMessage)) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return
		}
		fn(t.(string), val)
	}
}
