package sandbox

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// post sends form to op and returns the raw outcome, error included.
func post(ctx context.Context, s *Server, op, body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+apiPrefix+op, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	c := s.Credentials()
	req.SetBasicAuth(c.PublicKey, c.SecretKey)
	return s.HTTPClient().Do(req)
}

func TestFaultStatus(t *testing.T) {
	s := fixed(t)
	s.InjectFault(Fault{
		Op: OpCreatePaymentIntent, Status: 503, Body: []byte(`<html>busy</html>`),
		Header: http.Header{"Retry-After": {"7"}, "Content-Type": {"text/html"}},
	})
	form := with(intentForm(s), "order_id", "f-1")
	a := call(t, s, OpCreatePaymentIntent, form)
	assert.Equal(t, 503, a.code)
	assert.Equal(t, "7", a.header.Get("Retry-After"))
	assert.Equal(t, "text/html", a.header.Get("Content-Type"))
	assert.Equal(t, "<html>busy</html>", string(a.body))
	assert.Zero(t, len(s.Orders()), "a Status fault does not process the request")

	a = call(t, s, OpCreatePaymentIntent, form)
	assert.Equal(t, 200, a.code, "the fault applied once")
	assert.Equal(t, 1, len(s.Orders()))

	recs := s.Requests()
	require.Len(t, recs, 2)
	assert.True(t, recs[0].Fault)
	assert.Equal(t, 503, recs[0].Status)
	assert.False(t, recs[1].Fault)
	assert.Equal(t, 200, recs[1].Status)
}

func TestFaultProcessed(t *testing.T) {
	s := fixed(t)
	s.InjectFault(Fault{Op: OpCreatePaymentRequest, Status: 500, Processed: true,
		Body: []byte(`{"status":false,"statusCode":500,"msg":"Internal error"}`)})
	form := with(requestForm(s), "order_id", "f-2")
	a := call(t, s, OpCreatePaymentRequest, form)
	assert.Equal(t, 500, a.code)
	assert.Equal(t, 1, len(s.Orders()), "the create took effect before the 500")
	a = call(t, s, OpCreatePaymentRequest, form)
	assert.Equal(t, 409, a.code, "a retry with the same order_id meets the first attempt")
	assert.Equal(t, 1, len(s.Orders()))
}

func TestFaultResetBeforeProcessing(t *testing.T) {
	s := fixed(t)
	s.InjectFault(Fault{Op: OpCreatePaymentLink, ResetBeforeProcessing: true})
	_, err := post(context.Background(), s, OpCreatePaymentLink, linkForm(s).Encode())
	require.Error(t, err)
	assert.Zero(t, len(s.Orders()))
	recs := s.Requests()
	require.Len(t, recs, 1, "the client did not silently resend")
	assert.Zero(t, recs[0].Status)
	assert.True(t, recs[0].Fault)
}

func TestFaultResetAfterProcessing(t *testing.T) {
	s := fixed(t)
	s.InjectFault(Fault{ResetAfterProcessing: true}) // any op
	_, err := post(context.Background(), s, OpCreatePaymentLink, linkForm(s).Encode())
	require.Error(t, err)
	assert.Equal(t, 1, len(s.Orders()), "the order exists though the client got no answer")
}

func TestFaultLatency(t *testing.T) {
	s := fixed(t)
	s.InjectFault(Fault{Op: OpCheckPaymentStatus, Latency: 30 * time.Millisecond})
	start := time.Now()
	a := call(t, s, OpCheckPaymentStatus, statusForm(s, "x"))
	assert.Equal(t, 200, a.code)
	assert.GreaterOrEqual(t, time.Since(start), 30*time.Millisecond)

	// A delay ends when the client gives up, and nothing is processed.
	s.InjectFault(Fault{Op: OpCreatePaymentLink, Latency: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := post(ctx, s, OpCreatePaymentLink, linkForm(s).Encode())
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Zero(t, len(s.Orders()))
}

func TestWithLatency(t *testing.T) {
	s := fixed(t, WithLatency(20*time.Millisecond))
	start := time.Now()
	assert.Equal(t, 200, call(t, s, OpCreatePaymentLink, linkForm(s)).code)
	assert.GreaterOrEqual(t, time.Since(start), 20*time.Millisecond)
}

func TestFaultSlowBody(t *testing.T) {
	s := fixed(t)
	s.InjectFault(Fault{Op: OpCreatePaymentLink, SlowBody: 40 * time.Millisecond})
	start := time.Now()
	resp, err := post(context.Background(), s, OpCreatePaymentLink, linkForm(s).Encode())
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var reads int
	var body bytes.Buffer
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		body.Write(buf[:n])
		reads++
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
	}
	assert.Greater(t, reads, 10, "the body arrived in pieces")
	assert.GreaterOrEqual(t, time.Since(start), 30*time.Millisecond)
	assert.Contains(t, body.String(), `"payment_link":"`+s.URL()+`/sandbox/pay/utz_`)
	assert.Equal(t, 1, len(s.Orders()))

	// A client that stops waiting mid-body gets an error; the order exists.
	s.InjectFault(Fault{Op: OpCreatePaymentLink, SlowBody: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	resp, err = post(ctx, s, OpCreatePaymentLink, linkForm(s).Encode())
	require.NoError(t, err, "headers come at once")
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Error(t, err)
	assert.Equal(t, 2, len(s.Orders()))
}

func TestFaultHugeBody(t *testing.T) {
	tests := []struct {
		name   string
		fault  Fault
		code   int
		orders int
	}{
		{"big", Fault{HugeBody: 8 << 20}, 200, 0},
		{"tiny", Fault{HugeBody: 5}, 200, 0},
		{"exact head and tail", Fault{HugeBody: 24}, 200, 0},
		{"with status, processed", Fault{HugeBody: 1000, Status: 502, Processed: true}, 502, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fixed(t)
			s.InjectFault(tt.fault)
			resp, err := post(context.Background(), s, OpCreatePaymentLink, linkForm(s).Encode())
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, tt.code, resp.StatusCode)
			assert.Equal(t, tt.fault.HugeBody, resp.ContentLength)
			n, err := io.Copy(io.Discard, io.TeeReader(resp.Body, &prefix{max: 22}))
			require.NoError(t, err)
			assert.Equal(t, tt.fault.HugeBody, n)
			assert.Equal(t, tt.orders, len(s.Orders()))
		})
	}
	s := fixed(t)
	s.InjectFault(Fault{HugeBody: 100})
	a := call(t, s, OpCheckPaymentStatus, statusForm(s, "x"))
	assert.True(t, strings.HasPrefix(string(a.body), `{"status":true,"pad":"xxx`))
	assert.True(t, strings.HasSuffix(string(a.body), `xx"}`))
	assert.Equal(t, true, a.json(t)["status"])
}

// prefix keeps the first bytes written to it.
type prefix struct {
	bytes.Buffer
	max int
}

func (p *prefix) Write(b []byte) (int, error) {
	if room := p.max - p.Len(); room > 0 {
		p.Buffer.Write(b[:min(room, len(b))])
	}
	return len(b), nil
}

func TestFaultQueue(t *testing.T) {
	s := fixed(t)
	s.InjectFault(Fault{Op: OpCheckPaymentStatus, Status: 500, Times: 2})
	s.InjectFault(Fault{Op: OpCheckPaymentStatus, Status: 502})
	s.InjectFault(Fault{Op: OpCreatePaymentLink, Status: 429})
	s.InjectFault(Fault{Status: 503}) // any op, after the ones above for their ops

	codes := func(op string, n int) []int {
		var out []int
		for range n {
			form := statusForm(s, "x")
			if op == OpCreatePaymentLink {
				form = linkForm(s)
			}
			out = append(out, call(t, s, op, form).code)
		}
		return out
	}
	assert.Equal(t, []int{429}, codes(OpCreatePaymentLink, 1))
	assert.Equal(t, []int{500, 500, 502, 503, 200}, codes(OpCheckPaymentStatus, 5))
	assert.Equal(t, []int{200}, codes(OpCreatePaymentLink, 1))

	s.InjectFault(Fault{Status: 500, Times: -1})
	assert.Equal(t, []int{500, 500, 500}, codes(OpCheckPaymentStatus, 3))
	s.Clear(Faults)
	assert.Equal(t, []int{200}, codes(OpCheckPaymentStatus, 1))

	// Faults are for API calls only: pages and control endpoints ignore them.
	s.InjectFault(Fault{Status: 500})
	resp, err := s.HTTPClient().Get(s.URL() + "/sandbox/orders")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, []int{500}, codes(OpCheckPaymentStatus, 1))
}

func TestCloseEndsDelays(t *testing.T) {
	s := New(WithLatency(time.Hour))
	done := make(chan error, 1)
	go func() {
		_, err := post(context.Background(), s, OpCheckPaymentStatus, statusForm(s, "x").Encode())
		done <- err
	}()
	require.Eventually(t, func() bool { return len(s.Requests()) == 1 }, 5*time.Second, time.Millisecond)
	s.Close()
	err := <-done
	require.Error(t, err)
	assert.False(t, errors.Is(err, context.DeadlineExceeded))
	s.Close() // twice is fine
}

// try is call for goroutines other than the test's: it returns errors.
func try(s *Server, op, body string) (answer, error) {
	resp, err := post(context.Background(), s, op, body)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, b}, err
}
