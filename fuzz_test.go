package upicollect_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/upicollect/upicollect-go"
)

// memTransport answers requests in memory: the fuzz target exercises the
// whole client path (send, judge, decode, result) without sockets.
type memTransport func(*http.Request) (*http.Response, error)

func (f memTransport) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// FuzzDecodeResponse serves arbitrary bytes with an arbitrary HTTP status to
// every operation. The seed corpus in testdata/fuzz/FuzzDecodeResponse holds
// every golden answer of testdata/responses.
func FuzzDecodeResponse(f *testing.F) {
	f.Add(uint16(200), []byte(`{"status":true,"statusCode":200,"txnStatus":"SUCCESS","data":{"amount":1.08}}`))
	// Status answers that name their order, or another one, in spellings
	// the SDK reads and spellings it must not read as a name.
	for _, data := range []string{
		`"data":{"order_id":"ORD-F1","amount":"499.00","status":"SUCCESS","UTR":"1"}`,
		`"data":{"orderId":"ORD-F1","amount":"499.00","status":"SUCCESS","UTR":"1"}`,
		`"data":{"ORDER_ID":"ORD-B","amount":"499.00","status":"SUCCESS","UTR":"1"}`,
		`"data":{"Order_Id":"ORD-B","amount":"499.00","status":"SUCCESS","UTR":"1"}`,
		`"data":{"orderID":"ORD-B","amount":"499.00","status":"SUCCESS","UTR":"1"}`,
		`"data":{"ORDERID":499,"amount":"499.00","status":"SUCCESS","UTR":"1"}`,
		`"data":{"ORDER_ID":"ORD-F1","amount":"499.00","status":"SUCCESS","UTR":"1"}`,
		`"data":{"order_id":"ORD-B","order_id":"ORD-F1","amount":"499.00","status":"SUCCESS","UTR":"1"}`,
		`"data":{"amount":"499.00","status":"SUCCESS","UTR":"1"},"Data":{"ORDER_ID":"ORD-B"}`,
		`"data":{"order_id":"ORD-B"},"data":{"order_id":"ORD-F1","amount":"499.00","status":"SUCCESS","UTR":"1"}`,
	} {
		f.Add(uint16(200), []byte(`{"status":true,"statusCode":200,"msg":"ok",`+data+`}`))
	}
	f.Fuzz(func(t *testing.T, status uint16, body []byte) {
		code := int(status)
		if code < 100 || code > 599 {
			code = 100 + code%500
		}
		hc := &http.Client{
			Transport: memTransport(func(r *http.Request) (*http.Response, error) {
				_, _ = io.Copy(io.Discard, r.Body)
				return &http.Response{
					StatusCode: code, Header: http.Header{"Content-Type": {"application/json"}},
					Body: io.NopCloser(bytes.NewReader(body)), Request: r,
				}, nil
			}),
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
		c, err := upicollect.NewClient(testCreds, upicollect.WithBaseURL("https://api.example.com"),
			upicollect.WithHTTPClient(hc), upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1}),
			upicollect.WithClock(newFakeClock()), upicollect.WithRand(fixedRand))
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range allOps {
			res, resp, err := callOp(context.Background(), c, op, "ORD-F1")
			if err == nil {
				if res == nil || resp == nil {
					t.Fatalf("%s: nil result without an error", op)
				}
				if resp.HTTPStatus != code || !bytes.Equal(resp.Body, body) || resp.Attempts != 1 {
					t.Fatalf("%s: Response %d/%d/%q, want %d/1/%q", op, resp.HTTPStatus, resp.Attempts, resp.Body, code, body)
				}
				if st, ok := res.(*upicollect.PaymentStatus); ok {
					if st.TxnStatus == "" {
						t.Fatalf("%s: empty TxnStatus", op)
					}
					checkOrderNamed(t, st, body)
				}
				if pl, ok := res.(*upicollect.PaymentLink); ok && pl.URL == "" {
					t.Fatalf("%s: empty payment link", op)
				}
				continue
			}
			if res != nil {
				t.Fatalf("%s: result and error", op)
			}
			var ae *upicollect.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("%s: every answered failure is an *APIError, got %T %v", op, err, err)
			}
			if ae.Op != op || ae.HTTPStatus != code || ae.Response == nil || !bytes.Equal(ae.Response.Body, body) {
				t.Fatalf("%s: APIError %+v does not describe the answer", op, ae)
			}
			if errors.Is(err, upicollect.ErrValidation) {
				t.Fatalf("%s: an answer is not a validation error", op)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "upicollect: "+op+": ") {
				t.Fatalf("%s: bad error text %q", op, msg)
			}
			if errors.Is(err, upicollect.ErrDuplicateOrderID) && errors.Is(err, upicollect.ErrOutcomeUnknown) {
				t.Fatalf("%s: duplicate and outcome unknown at once", op)
			}
			if op == opStatus && errors.Is(err, upicollect.ErrOutcomeUnknown) {
				t.Fatalf("%s: a read-only call cannot have an unknown outcome", op)
			}
		}
	})
}

// checkOrderNamed holds a status result of body, the answer about ORD-F1,
// to the rule of its order, read here by encoding/json (the last of a
// repeated key): OrderNamed says data.order_id or data.orderId is a
// non-empty string or a number, and no order key in any spelling, in data
// or in a twin of it, names another order.
func checkOrderNamed(t *testing.T, st *upicollect.PaymentStatus, body []byte) {
	t.Helper()
	var env map[string]json.RawMessage
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("a status result of a body that is not a JSON object: %v", err)
	}
	named := false
	for key, raw := range env {
		if !strings.EqualFold(key, "data") {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var data map[string]any
		if dec.Decode(&data) != nil {
			continue // not an object: no data
		}
		for k, v := range data {
			var text string
			switch v := v.(type) {
			case string:
				text = v
			case json.Number:
				text = v.String()
			}
			if text == "" {
				continue
			}
			if key == "data" && (k == "order_id" || k == "orderId") {
				named = true
			}
			if strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(k)) == "orderid" && text != "ORD-F1" {
				t.Fatalf("a status result of an answer whose %s.%s names %q", key, k, text)
			}
		}
	}
	if st.OrderNamed != named {
		t.Fatalf("OrderNamed %v for %q", st.OrderNamed, body)
	}
}
