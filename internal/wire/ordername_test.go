package wire

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIsOrderKey(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		key  string
		want bool
	}{
		{"order_id", true},
		{"orderId", true},
		{"ORDER_ID", true},
		{"Order_Id", true},
		{"orderID", true},
		{"ORDERID", true},
		{"order-id", true},
		{"_order_id_", true},
		{"o_r-d_e-r_i-d", true},
		{"ORDER_İD", true}, // U+0130 lower-cases to i
		{"orderid", true},

		{"", false},
		{"_", false},
		{"order", false},
		{"orderi", false},
		{"order_ids", false},
		{"orderidx", false},
		{"sub_order_id", false},
		{"order id", false},
		{"order.id", false},
		{"ordeR_ıd", false}, // U+0131 lower-cases to itself
		{"order\u200bid", false},
		{"\xffrderid", false},
	} {
		assert.Equal(t, tt.want, isOrderKey([]byte(tt.key)), "%q", tt.key)
	}
}

func TestIsDataKey(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]bool{"data": true, "Data": true, "DATA": true, "dAtA": true,
		"": false, "dat": false, "datas": false, "_data": false, "d_ata": false} {
		assert.Equal(t, want, isDataKey([]byte(key)), "%q", key)
	}
}

// TestOtherOrderIDs: the one-pass and the general reading of a status
// answer's data gather the same order keys' texts, in order, that are not
// the order it names.
func TestOtherOrderIDs(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		data      string
		named     string
		others    []string
		wantPlain bool
	}{
		{`{"order_id":"A","amount":1}`, "A", nil, true},
		{`{"order_id":"A","orderId":"A","ORDER_ID":"A"}`, "A", nil, true},
		{`{"ORDER_ID":"B","orderId":"A","Order-Id":7,"orderID":"","ORDERID":null,"order_Id":true}`, "A", []string{"B", "7"}, true},
		{`{"orderID":"B"}`, "", []string{"B"}, true},
		{`{"orderID":"B\u0043"}`, "", []string{"BC"}, true},
		{`{"order_id":"A","order_id":"B"}`, "B", []string{"A"}, false},
		{`{"ORDER_ID":"B","ORDER_ID":"C","order_id":"A"}`, "A", []string{"B", "C"}, false},
		{`{"ORDER\u005fID":"B","order_id":"A"}`, "A", []string{"B"}, false},
	} {
		d, err := DecodeStatusData([]byte(tt.data))
		require.NoError(t, err, tt.data)
		assert.Equal(t, tt.named, d.OrderID, tt.data)
		assert.Equal(t, tt.others, d.OtherOrderIDs, tt.data)
		var o object
		assert.Equal(t, tt.wantPlain, o.scan([]byte(tt.data)), tt.data)
	}
}

// TestDataTwins: the envelope keeps every other object under a key that is
// data in any case, and every "data" but the last, on either decoder.
func TestDataTwins(t *testing.T) {
	t.Parallel()
	obj := func(s ...string) []json.RawMessage {
		var out []json.RawMessage
		for _, x := range s {
			out = append(out, json.RawMessage(x))
		}
		return out
	}
	for _, tt := range []struct {
		body  string
		data  string
		twins []json.RawMessage
		fast  bool
	}{
		{`{"status":true,"data":{"a":1}}`, `{"a":1}`, nil, true},
		{`{"status":true,"data":{"a":1},"Data":{"b":2}}`, `{"a":1}`, obj(`{"b":2}`), true},
		{`{"status":true,"DATA":{"c":3},"data":{"a":1},"Data":{"b":2}}`, `{"a":1}`, obj(`{"c":3}`, `{"b":2}`), true},
		{`{"status":true,"Data":{"b":2}}`, ``, obj(`{"b":2}`), true},
		{`{"status":true,"data":{"a":1},"Data":"x","DATA":null,"dAtA":[1]}`, `{"a":1}`, nil, true},
		{`{"status":true,"data":{"a":1},"datas":{"b":2},"_data":{"c":3}}`, `{"a":1}`, nil, true},
		{`{"status":true,"data":{"a":1},"data":{"b":2}}`, `{"b":2}`, obj(`{"a":1}`), false},
		{`{"status":true,"data":{"a":1},"data":null}`, ``, obj(`{"a":1}`), false},
		{`{"status":true,"data":{"a":1},"data":{"b":2},"data":{"c":3}}`, `{"c":3}`, obj(`{"a":1}`, `{"b":2}`), false},
		{`{"status":true,"data":{"a":1},"Data":{"b":2},"data":{"c":3}}`, `{"c":3}`, obj(`{"a":1}`, `{"b":2}`), false},
		{`{"status":true,"msg":"a\"b","data":{"a":1},"Data":{"b":2}}`, `{"a":1}`, obj(`{"b":2}`), false},
		{`{"status":true,"msg":"a\"b","data":{"a":1}}`, `{"a":1}`, nil, false},
		{`{"status":true,"msg":"a\"b","D\u0041TA":{"b":2}}`, ``, obj(`{"b":2}`), false},
		{`{"status":true,"msg":"a\"b"}`, ``, nil, false},
	} {
		env, err := DecodeEnvelope([]byte(tt.body))
		require.NoError(t, err, tt.body)
		assert.Equal(t, tt.data, string(env.Data), tt.body)
		assert.Equal(t, tt.twins, env.DataTwins, tt.body)
		assert.Equal(t, tt.fast, requireSameEnvelope(t, []byte(tt.body)), tt.body)
	}
}

func TestEachMember(t *testing.T) {
	t.Parallel()
	var got []string
	eachMember([]byte(` { "a" : 1 , "b\u0043" : {"x":[1,2]}, "a": "z" } `), func(k string, v json.RawMessage) {
		got = append(got, k+"="+string(v))
	})
	assert.Equal(t, []string{`a=1`, `bC={"x":[1,2]}`, `a="z"`}, got)
	for _, data := range []string{`[{"a":1}]`, `"a"`, `{"a":1`, `{"a"`, `{1:2}`} {
		n := 0
		eachMember([]byte(data), func(string, json.RawMessage) { n++ })
		assert.LessOrEqual(t, n, 1, data)
	}
}
