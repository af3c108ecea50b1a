package wire

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEnvelopeOf: the envelope of an answer, or why it has none. What an
// envelope means (an answer, a refusal, its code) is the root package's
// judge to say (TestAnswers there, which also holds the acceptance rows
// this table had).
func TestEnvelopeOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		http       int
		body       string
		unreadable string
	}{
		{"success", 200, `{"status":true,"statusCode":200,"data":{}}`, ""},
		{"success 299", 299, `{"status":true}`, ""},
		{"success in a 500", 500, `{"status":true}`, ""},
		{"success in a 199", 199, `{"status":true}`, ""},
		{"refusal", 200, `{"status":false,"statusCode":409}`, ""},
		{"missing auth", 200, `{"status":false,"message":"Authorization header is required"}`, ""},
		{"redirect", 303, `{"status":true}`, "redirect not followed"},
		{"redirect 300", 300, `{"status":true}`, "redirect not followed"},
		{"redirect 399", 399, ``, "redirect not followed"},
		{"400 is no redirect", 400, `{"status":true}`, ""},
		{"not the envelope", 404, `<html>404</html>`, "body is not a JSON object"},
		{"empty 200", 200, ``, "empty body"},
	}
	for _, tt := range tests {
		env, err := EnvelopeOf(tt.http, []byte(tt.body))
		if tt.unreadable != "" {
			assert.EqualError(t, err, tt.unreadable, tt.name)
			assert.Nil(t, env, tt.name)
			continue
		}
		assert.NoError(t, err, tt.name)
		assert.NotNil(t, env, tt.name)
	}
}

func TestEnvelopeShapes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		body                  string
		missingAuth, notFound bool
	}{
		{`{"status":false,"message":"Authorization header is required"}`, true, true},
		{`{"status":false,"message":"x","statusCode":401}`, false, true},
		{`{"status":false,"msg":"x"}`, false, true},
		{`{"status":false,"msg":"x","txnStatus":"PENDING"}`, false, false},
		{`{"status":true,"message":"x"}`, true, false},
	} {
		env, err := DecodeEnvelope([]byte(tt.body))
		require.NoError(t, err)
		assert.Equal(t, tt.missingAuth, env.MissingAuth(), tt.body)
		assert.Equal(t, tt.notFound, env.NotFound(), tt.body)
	}
}

func TestEffectiveCode(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		env  Envelope
		http int
		want int
	}{
		{Envelope{}, 500, 500},
		{Envelope{HasStatusCode: true, StatusCode: 200}, 500, 500},
		{Envelope{HasStatusCode: true, StatusCode: 0}, 502, 502},
		{Envelope{HasStatusCode: true, StatusCode: 409}, 200, 409},
		{Envelope{HasStatusCode: false, StatusCode: 409}, 200, 200},
	} {
		assert.Equal(t, tt.want, EffectiveCode(&tt.env, tt.http), "%+v in %d", tt.env, tt.http)
	}
}

func TestCheckStatusOrder(t *testing.T) {
	t.Parallel()
	none := &Envelope{}
	assert.NoError(t, CheckStatusOrder("A", none, nil))
	assert.NoError(t, CheckStatusOrder("A", none, &StatusData{}))
	assert.NoError(t, CheckStatusOrder("A", none, &StatusData{OrderID: "A"}))
	assert.NoError(t, CheckStatusOrder("A", none, &StatusData{OrderID: "A", OtherOrderIDs: []string{"A"}}))
	err := CheckStatusOrder("A", none, &StatusData{OrderID: "B"})
	assert.ErrorIs(t, err, ErrOtherOrder)
	assert.EqualError(t, err, `the answer names another order: asked "A", answer names "B"`)
	err = CheckStatusOrder("A", none, &StatusData{OrderID: "A", OtherOrderIDs: []string{"A", "C"}})
	assert.EqualError(t, err, `the answer names another order: asked "A", answer names "C"`)
	twins := &Envelope{DataTwins: []json.RawMessage{json.RawMessage(`{"orderId":"A"}`), json.RawMessage(`{"ORDER_ID":"D"}`)}}
	err = CheckStatusOrder("A", twins, nil)
	assert.EqualError(t, err, `the answer names another order: asked "A", answer names "D"`)
	err = CheckStatusOrder("A", twins, &StatusData{OrderID: "A"})
	assert.EqualError(t, err, `the answer names another order: asked "A", answer names "D"`, "a twin is checked beside the data")
	assert.NoError(t, CheckStatusOrder("A", &Envelope{DataTwins: twins.DataTwins[:1]}, &StatusData{}))
}

// TestStatusAnswerOrder reads status answers as the SDK does (the
// envelope, its data, the order check): the order is named by
// data.order_id or data.orderId alone, and an order key in any other
// spelling, repeated, or in a twin of data that names another order makes
// the answer refused.
func TestStatusAnswerOrder(t *testing.T) {
	t.Parallel()
	const ok, other = "", "the answer names another order"
	for _, tt := range []struct {
		name  string
		data  string // the envelope's members after "status"
		named bool
		err   string // "" or the refusal's text, after ErrOtherOrder's
	}{
		{"order_id", `"data":{"order_id":"ORD-A","amount":"499.00"}`, true, ok},
		{"orderId", `"data":{"orderId":"ORD-A"}`, true, ok},
		{"numeric order_id", `"data":{"order_id":12345}`, false, `: asked "ORD-A", answer names "12345"`},
		{"both exact keys, the same", `"data":{"order_id":"ORD-A","orderId":"ORD-A"}`, true, ok},
		{"both exact keys, another", `"data":{"order_id":"ORD-A","orderId":"ORD-B"}`, false, `: asked "ORD-A", answer names "ORD-B"`},
		{"empty order_id, orderId names it", `"data":{"order_id":"","orderId":"ORD-A"}`, true, ok},
		{"no order key", `"data":{"amount":"499.00","status":"SUCCESS","UTR":"1"}`, false, ok},
		{"order_id null", `"data":{"order_id":null}`, false, ok},
		{"order_id empty", `"data":{"order_id":""}`, false, ok},
		{"order_id an object", `"data":{"order_id":{"id":"ORD-B"}}`, false, ok},
		{"exact, escaped", `"data":{"order\u005fid":"ORD-A"}`, true, ok},

		{"ORDER_ID, another", `"data":{"ORDER_ID":"ORD-B","amount":"499.00","status":"SUCCESS","UTR":"1"}`, false, `: asked "ORD-A", answer names "ORD-B"`},
		{"Order_Id, another", `"data":{"Order_Id":"ORD-B"}`, false, `: asked "ORD-A", answer names "ORD-B"`},
		{"orderID, another", `"data":{"orderID":"ORD-B"}`, false, `: asked "ORD-A", answer names "ORD-B"`},
		{"ORDERID numeric", `"data":{"ORDERID":499}`, false, `: asked "ORD-A", answer names "499"`},
		{"order-id, another", `"data":{"order-id":"ORD-B"}`, false, `: asked "ORD-A", answer names "ORD-B"`},
		{"_order__id_, another", `"data":{"_order__id_":"ORD-B"}`, false, `: asked "ORD-A", answer names "ORD-B"`},
		{"dotted capital I, another", `"data":{"ORDER_İD":"ORD-B"}`, false, `: asked "ORD-A", answer names "ORD-B"`},
		{"escaped variant, another", `"data":{"ORDER\u005fID":"ORD-B"}`, false, `: asked "ORD-A", answer names "ORD-B"`},
		{"variant beside the exact key", `"data":{"order_id":"ORD-A","ORDER_ID":"ORD-B"}`, false, `: asked "ORD-A", answer names "ORD-B"`},
		{"variant, the order asked", `"data":{"ORDER_ID":"ORD-A"}`, false, ok},
		{"variant, another case of it", `"data":{"ORDER_ID":"ord-a"}`, false, `: asked "ORD-A", answer names "ord-a"`},
		{"variant empty", `"data":{"orderID":"","order_id":"ORD-A"}`, true, ok},
		{"repeated order_id, another first", `"data":{"order_id":"ORD-B","order_id":"ORD-A"}`, false, `: asked "ORD-A", answer names "ORD-B"`},
		{"repeated order_id, another last", `"data":{"order_id":"ORD-A","order_id":"ORD-B"}`, false, `: asked "ORD-A", answer names "ORD-B"`},
		{"order_ids: not an order key", `"data":{"order_ids":"ORD-B","orderId":"ORD-A"}`, true, ok},
		{"sub_order_id: not an order key", `"data":{"sub_order_id":"ORD-B"}`, false, ok},
		{"nested: not read", `"data":{"payment":{"order_id":"ORD-B"}}`, false, ok},

		{"Data twin, another", `"data":{"amount":"499.00"},"Data":{"ORDER_ID":"ORD-B"}`, false, `: asked "ORD-A", answer names "ORD-B"`},
		{"Data twin, exact key, another", `"data":{"order_id":"ORD-A"},"Data":{"order_id":"ORD-B"}`, false, `: asked "ORD-A", answer names "ORD-B"`},
		{"DATA twin without data", `"DATA":{"orderId":"ORD-B","amount":499}`, false, `: asked "ORD-A", answer names "ORD-B"`},
		{"Data twin, the order asked", `"data":{"amount":"499.00"},"Data":{"order_id":"ORD-A"}`, false, ok},
		{"Data twin not an object", `"data":{"order_id":"ORD-A"},"Data":"ORD-B"`, true, ok},
		{"repeated data, another first", `"data":{"order_id":"ORD-B"},"data":{"order_id":"ORD-A"}`, false, `: asked "ORD-A", answer names "ORD-B"`},
		{"repeated data, another last", `"data":{"order_id":"ORD-A"},"data":{"order_id":"ORD-B"}`, false, `: asked "ORD-A", answer names "ORD-B"`},
		{"repeated data, null last", `"data":{"order_id":"ORD-B"},"data":null`, false, `: asked "ORD-A", answer names "ORD-B"`},
		{"escaped twin key", `"data":{},"D\u0061ta":{"order_id":"ORD-B"}`, false, `: asked "ORD-A", answer names "ORD-B"`},
		{"datas: not a twin", `"data":{"order_id":"ORD-A"},"datas":{"order_id":"ORD-B"}`, true, ok},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env, err := DecodeEnvelope([]byte(`{"status":true,` + tt.data + `}`))
			require.NoError(t, err)
			var d *StatusData
			if env.Data != nil {
				d, err = DecodeStatusData(env.Data)
				require.NoError(t, err)
			}
			err = CheckStatusOrder("ORD-A", env, d)
			if tt.err == ok {
				require.NoError(t, err)
				assert.Equal(t, tt.named, d != nil && d.OrderID == "ORD-A", "named")
				return
			}
			assert.ErrorIs(t, err, ErrOtherOrder)
			assert.EqualError(t, err, other+tt.err)
		})
	}
}

func TestEnvelopeOfCarriesTheRefusal(t *testing.T) {
	t.Parallel()
	env, err := EnvelopeOf(200, []byte(`{"status":false,"statusCode":"409","msg":"Order ID already exists"}`))
	require.NoError(t, err)
	assert.Equal(t, 409, env.StatusCode)
	assert.Equal(t, "Order ID already exists", env.Msg)
	env, err = EnvelopeOf(401, []byte(`{"status":false,"message":"Authorization header is required"}`))
	require.NoError(t, err)
	assert.Equal(t, 0, env.StatusCode)
	assert.Equal(t, "Authorization header is required", env.Msg)
}

// FuzzEnvelopeOf: any answer is an envelope or unreadable, never both nor
// neither, a redirect never an envelope, and never a panic. (That an
// unreadable answer or a redirect is never accepted is the root package's
// FuzzJudge.)
func FuzzEnvelopeOf(f *testing.F) {
	for _, s := range []string{`{"status":true}`, `{"status":false,"statusCode":404}`, `{"status":false,"message":"x"}`,
		`{"status":false,"statusCode":200,"txnStatus":"PENDING"}`, `<html>`, ``} {
		f.Add(200, []byte(s))
		f.Add(500, []byte(s))
		f.Add(302, []byte(s))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		env, err := EnvelopeOf(status, body)
		if (env == nil) == (err == nil) {
			t.Fatalf("EnvelopeOf(%d, %q) = %v, %v", status, body, env, err)
		}
		if env != nil && status >= 300 && status < 400 {
			t.Fatalf("EnvelopeOf(%d, %q) read a redirect's body", status, body)
		}
	})
}
