package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// generalObject reads data the general way only.
func generalObject(t *testing.T, data []byte) *object {
	t.Helper()
	m, err := unmarshalObject(data)
	require.NoError(t, err)
	return &object{m: m}
}

// requireSameData fails unless every data decoder gives the same result
// from the one-pass reading of data as from json.Unmarshal's; it reports
// whether data was read in one pass.
func requireSameData(t *testing.T, data []byte) (plain bool) {
	t.Helper()
	var fast object
	if !fast.scan(data) {
		return false
	}
	general := generalObject(t, data)
	require.Len(t, general.m, fast.n, "members of %q", data)
	for k, v := range general.m {
		got, ok := fast.get(k)
		require.True(t, ok, "key %q of %q", k, data)
		require.Equal(t, string(v), string(got), "value of %q in %q", k, data)
	}
	require.Equal(t, readStatusData(data, general), readStatusData(data, &fast), "status data %q", data)
	wantIntent, wantErr := readIntentData(general)
	gotIntent, gotErr := readIntentData(&fast)
	require.Equal(t, wantIntent, gotIntent, "intent data %q", data)
	require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), "intent data's error %q", data)
	require.Equal(t, readPaymentRequestData(general), readPaymentRequestData(&fast), "request data %q", data)
	require.Equal(t, readLinkData(general), readLinkData(&fast), "link data %q", data)
	return true
}

// seedData are the data objects of the recorded answers.
func seedData(tb testing.TB) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, body := range seedBodies(tb) {
		if env, err := DecodeEnvelope(body); err == nil && env.Data != nil {
			out = append(out, env.Data)
		}
	}
	require.NotEmpty(tb, out)
	return out
}

// TestObjectRecordedData: every recorded data object is read in one pass,
// the same way as by json.Unmarshal.
func TestObjectRecordedData(t *testing.T) {
	t.Parallel()
	for _, data := range seedData(t) {
		assert.True(t, requireSameData(t, data), "%s was not read in one pass", data)
	}
}

func TestObjectPlain(t *testing.T) {
	t.Parallel()
	many := make([]string, maxMembers+1)
	for i := range many {
		many[i] = fmt.Sprintf(`"k%d":%d`, i, i)
	}
	tests := []struct {
		name      string
		data      string
		wantPlain bool
	}{
		{"empty", `{}`, true},
		{"spaces", " { \"a\" : \"x\" ,\n\"b\":[1,{\"c\":\"}\"}] }\t", true},
		{"status shape", `{"order_id":"A","amount":"499","UTR":123456789012,"status":"SUCCESS","vpa":"a@ybl"}`, true},
		{"intent shape", `{"intent":"upi://pay?pa=a@ybl","phonepe":"phonepe://pay","count":3,"note":"tea","amount":null}`, true},
		{"unicode value", `{"payment_link":"https://pay.example/भुगतान"}`, true},
		{"escaped value", `{"orderId":"A\u0042","payment_url":"https:\/\/x"}`, true},
		{"invalid utf-8 value", "{\"vpa\":\"a\xffb\"}", true},
		{"at the cap", "{" + strings.Join(many[:maxMembers], ",") + "}", true},

		{"over the cap", "{" + strings.Join(many, ",") + "}", false},
		{"repeated key", `{"orderId":"A","orderId":"B"}`, false},
		{"escaped key", `{"order\u005fid":"A"}`, false},
		{"invalid utf-8 key", "{\"a\xff\":\"A\"}", false},
		{"array", `[1]`, false},
		{"null", `null`, false},
		{"not JSON", `{"a":`, false},
		{"empty input", ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.wantPlain, requireSameData(t, []byte(tt.data)))
		})
	}
}

// TestObjectGeneral: objects the one-pass reading declines still decode,
// by json.Unmarshal's rules.
func TestObjectGeneral(t *testing.T) {
	t.Parallel()
	d, err := DecodePaymentRequestData([]byte(`{"orderId":"A","orderId":"B","payment_\u0075rl":"https://x"}`))
	require.NoError(t, err)
	assert.Equal(t, &PaymentRequestData{OrderID: "B", PaymentURL: "https://x"}, d, "last repeated key wins; escaped key read")

	_, err = DecodeStatusData([]byte(`[1]`))
	require.Error(t, err)
	s, err := DecodeStatusData([]byte(`null`))
	require.NoError(t, err)
	assert.Equal(t, &StatusData{}, s)
}

// TestDataDecodersAllocate: a plain status answer's data costs only the
// result and the strings it holds.
func TestDataDecodersAllocate(t *testing.T) {
	if raceEnabled() {
		t.Skip("allocation counts vary under -race")
	}
	data := []byte(`{"order_id":"ORD-1","amount":"499.00","UTR":"123456789012","status":"SUCCESS","vpa":"a@ybl"}`)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := DecodeStatusData(data); err != nil {
			panic(err)
		}
	})
	assert.Equal(t, 5.0, allocs, "StatusData and its four strings")

	data = []byte(`{"intent":"upi://pay?pa=a@b","phonepe":"phonepe://pay","paytm":"paytmmp://pay","gpay":"tez://upi/pay","cred":"credpay://x","app_a":"appa:pay","app_b":"appb:pay","app_c":"appc:pay"}`)
	allocs = testing.AllocsPerRun(100, func() {
		if _, err := DecodeIntentData(data); err != nil {
			panic(err)
		}
	})
	// IntentData, its map (two allocations), eight link strings: no key is
	// copied, the apps' names are constants, and no link is parsed here
	// (the caller checks them all together).
	assert.Equal(t, 11.0, allocs)
}

// FuzzObjectMatches: whenever an object is read in one pass, every lookup
// and every data decoder agrees with json.Unmarshal's reading.
func FuzzObjectMatches(f *testing.F) {
	for _, data := range seedData(f) {
		f.Add(data)
	}
	f.Add([]byte(`{"a":"x","b":{"c":[1,"]"]},"d":-1.5e3,"e":true,"f":null}`))
	f.Add([]byte(`{"order_id":"A","ORDER_ID":"B","orderId":"A","Order-Id":7,"orderID":"","ORDERID":null}`))
	f.Add([]byte(`{"order_id":"A","order_id":"B","ORDER\u005fID":"C"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		requireSameData(t, data)
	})
}

// referenceString is ReadString before its fast path: json.Unmarshal.
func referenceString(v []byte) (string, bool) {
	if string(bytes.TrimSpace(v)) == "null" {
		return "", false
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false
	}
	return s, true
}

// FuzzScalars: ReadString and readBool give what json.Unmarshal gives.
func FuzzScalars(f *testing.F) {
	for _, s := range []string{`"a"`, `"\u00e9"`, "\"\xff\"", `"a"b"`, `"`, `""`, ` "a" `, `null`, `true`, ` false`, `"true"`, `1`, "\"\t\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		got, ok := ReadString(v)
		want, wantOK := referenceString(v)
		require.Equal(t, wantOK, ok, "ok of %q", v)
		require.Equal(t, want, got, "text of %q", v)

		b, ok := readBool(v)
		var wantB bool
		wantOK = string(bytes.TrimSpace(v)) != "null" && json.Unmarshal(v, &wantB) == nil
		if !wantOK {
			if s, sok := referenceString(v); sok {
				switch strings.TrimSpace(s) {
				case "true", "1", "t", "T", "TRUE", "True":
					wantB, wantOK = true, true
				case "false", "0", "f", "F", "FALSE", "False":
					wantB, wantOK = false, true
				}
			}
		}
		require.Equal(t, wantOK, ok, "bool ok of %q", v)
		require.Equal(t, wantB, b, "bool of %q", v)
	})
}
