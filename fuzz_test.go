package upicollect_test

import (
	"bytes"
	"context"
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
				if st, ok := res.(*upicollect.PaymentStatus); ok && st.TxnStatus == "" {
					t.Fatalf("%s: empty TxnStatus", op)
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
