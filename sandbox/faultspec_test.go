package sandbox

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFault(t *testing.T) {
	tests := []struct {
		in   string
		want Fault
		err  string
	}{
		{"status=500", Fault{Status: 500}, ""},
		{"op=createPaymentIntent,status=500,times=2,processed", Fault{Op: OpCreatePaymentIntent, Status: 500, Times: 2, Processed: true}, ""},
		{"status=429,header=Retry-After:2", Fault{Status: 429, Header: http.Header{"Retry-After": {"2"}}}, ""},
		{"latency=1.5s,times=-1", Fault{Latency: 1500 * time.Millisecond, Times: -1}, ""},
		{"reset=before", Fault{ResetBeforeProcessing: true}, ""},
		{"reset=after,op=checkPaymentStatus", Fault{ResetAfterProcessing: true, Op: OpCheckPaymentStatus}, ""},
		{"slow-body=2s", Fault{SlowBody: 2 * time.Second}, ""},
		{"huge_body=1048576,status=200", Fault{HugeBody: 1 << 20, Status: 200}, ""},
		{"huge_body=5", Fault{HugeBody: 5}, ""},
		{"latency=0s,status=500", Fault{Status: 500}, ""},
		{"processed=true,status=500", Fault{Status: 500, Processed: true}, ""},
		{"processed=false,status=500", Fault{Status: 500}, ""},
		{`status=200,body={"status":true,"a":1}`, Fault{Status: 200, Body: []byte(`{"status":true,"a":1}`)}, ""},
		{"", Fault{}, "nothing to do"},
		{"op=refund,status=500", Fault{}, `unknown op "refund"`},
		{"status=5000", Fault{}, "not an HTTP status"},
		{"status=abc", Fault{}, "not a whole number"},
		{"latency=soon", Fault{}, "not a duration"},
		{"reset=maybe", Fault{}, "want before or after"},
		{"header=nocolon,status=500", Fault{}, "want Name:Value"},
		{"colour=red", Fault{}, `unknown key "colour"`},
		{"times=-2,status=500", Fault{}, "times -2"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseFault(tt.in)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestFaultsOverHTTP queues faults with POST /sandbox/faults and clears
// them with DELETE.
func TestFaultsOverHTTP(t *testing.T) {
	s := Start(t)
	post := func(body string) int {
		resp, err := s.HTTPClient().Post(s.URL()+faultsPath, "application/json", strings.NewReader(body))
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, http.StatusCreated, post(`{"op":"createPaymentLink","status":503,"body":"down","header":{"Retry-After":"7"},"times":2}`))
	for range 2 {
		a := call(t, s, OpCreatePaymentLink, linkForm(s))
		assert.Equal(t, 503, a.code)
		assert.Equal(t, "down", string(a.body))
		assert.Equal(t, "7", a.header.Get("Retry-After"))
	}
	assert.Equal(t, 200, call(t, s, OpCreatePaymentLink, linkForm(s)).code, "used up")
	assert.Zero(t, len(s.Orders())-1)

	require.Equal(t, http.StatusCreated, post(`{"status":500,"processed":true,"times":-1}`))
	assert.Equal(t, 500, call(t, s, OpCreatePaymentLink, linkForm(s)).code)
	assert.Equal(t, 2, len(s.Orders()), "processed before the 500")
	req, err := http.NewRequest(http.MethodDelete, s.URL()+faultsPath, nil)
	require.NoError(t, err)
	resp, err := s.HTTPClient().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	assert.Equal(t, 200, call(t, s, OpCreatePaymentLink, linkForm(s)).code)

	for _, bad := range []string{`{"status":"500"}`, `{"nope":1}`, `{}`, `{"latency":"x"}`, `[`, `null`, `{"reset":"maybe"}`} {
		assert.Equal(t, http.StatusBadRequest, post(bad), bad)
	}
	req, err = http.NewRequest(http.MethodPost, s.URL()+faultsPath, strings.NewReader(`{"status":500}`))
	require.NoError(t, err)
	req.Header.Set("Origin", "https://evil.example")
	resp, err = s.HTTPClient().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "a web page may not script faults")
}

func TestWithFaultOption(t *testing.T) {
	s := Start(t, WithFault(Fault{Op: OpCheckPaymentStatus, Status: 502}))
	assert.Equal(t, 502, call(t, s, OpCheckPaymentStatus, statusForm(s, "x")).code)
	_, err := Listen("127.0.0.1:0", WithFault(Fault{Op: "refund"}))
	assert.Error(t, err)
}
