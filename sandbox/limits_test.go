package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closedWithin reports whether the server closes conn before the bounded
// wait ends: a read that ends in EOF or a reset, not in our own deadline.
func closedWithin(t *testing.T, conn net.Conn, wait time.Duration) bool {
	t.Helper()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(wait)))
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// TestConnectionTimeouts: a client that drips its header or body, or keeps
// an idle connection, is cut off by the configured timeouts.
func TestConnectionTimeouts(t *testing.T) {
	short := Timeouts{ReadHeader: 100 * time.Millisecond, Read: 200 * time.Millisecond, Idle: 200 * time.Millisecond}
	tests := []struct {
		name string
		send func(conn net.Conn, s *Server)
	}{
		{"header drip", func(conn net.Conn, _ *Server) {
			_, _ = io.WriteString(conn, "POST /v1/payments/createPaymentLink HTTP/1.1\r\nHost: x\r\n")
		}},
		{"body drip", func(conn net.Conn, s *Server) {
			_, _ = fmt.Fprintf(conn, "POST /v1/payments/createPaymentLink HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\n"+
				"Content-Length: 1000\r\n\r\nmid=", basic(s.Credentials().PublicKey, s.Credentials().SecretKey))
		}},
		{"idle keep-alive", func(conn net.Conn, _ *Server) {
			_, _ = io.WriteString(conn, "GET /sandbox/orders HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Start(t, WithTimeouts(short))
			conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL(), "http://"))
			require.NoError(t, err)
			defer conn.Close()
			tt.send(conn, s)
			assert.True(t, closedWithin(t, conn, 10*time.Second), "the server closed the connection")
		})
	}
	// Without the short timeouts the same drip is still open when our wait ends:
	// the check above can fail.
	s := Start(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL(), "http://"))
	require.NoError(t, err)
	defer conn.Close()
	tests[0].send(conn, s)
	assert.False(t, closedWithin(t, conn, 300*time.Millisecond))
}

// TestScriptedDelayOutlivesReadTimeout: the read timeout bounds reading a
// request, not a scripted delay in answering it.
func TestScriptedDelayOutlivesReadTimeout(t *testing.T) {
	s := Start(t, WithTimeouts(Timeouts{Read: 50 * time.Millisecond}))
	s.InjectFault(Fault{Latency: 300 * time.Millisecond})
	a := call(t, s, OpCheckPaymentStatus, statusForm(s, "x"))
	assert.Equal(t, 200, a.code)
}

// TestRequestLogIsBounded: bodies of unauthenticated calls are not kept,
// others are cut to 4 KiB, and the log stays under its byte cap.
func TestRequestLogIsBounded(t *testing.T) {
	const capBytes = 64 << 10
	s := Start(t, WithRequestLog(0, capBytes))
	big := strings.Repeat("n", 100<<10)
	a := call(t, s, OpCreatePaymentLink, with(linkForm(s), "note", big))
	require.Equal(t, 200, a.code)
	rec := s.Requests()[0]
	assert.True(t, rec.FormTruncated)
	assert.LessOrEqual(t, len(rec.Form.Get("note")), maxRecordedForm)
	assert.Equal(t, s.Credentials().MID, rec.Form.Get("mid"), "short fields come first by name")

	unauth := newReq(t, s, OpCreatePaymentLink, "application/x-www-form-urlencoded", strings.NewReader(with(linkForm(s), "note", big).Encode()))
	unauth.SetBasicAuth("pk", "wrong")
	require.Equal(t, 401, send(t, s, unauth).code)
	last := s.Requests()[len(s.Requests())-1]
	assert.Nil(t, last.Form, "no body kept for an unauthenticated call")
	assert.Equal(t, 401, last.Status)

	resp, err := s.HTTPClient().PostForm(s.URL()+ordersPath+"/nope/pay", url.Values{"result": {"SUCCESS"}, "pad": {big}})
	require.NoError(t, err)
	resp.Body.Close()
	last = s.Requests()[len(s.Requests())-1]
	assert.Equal(t, "/sandbox/orders/nope/pay", last.Path)
	assert.Nil(t, last.Form, "control calls carry no credentials: their bodies are not kept either")

	for range 200 {
		call(t, s, OpCheckPaymentStatus, with(statusForm(s, "x"), "pad", strings.Repeat("p", 2000)))
	}
	assert.LessOrEqual(t, s.log.storedBytes(), capBytes)
	assert.Less(t, len(s.Requests()), 200, "the oldest went")
}

// TestUnauthenticatedFloodMemory sends 1,000 unauthenticated 1 MiB
// requests and checks that the log holds only their headers. It reports
// the heap in use afterwards.
func TestUnauthenticatedFloodMemory(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 100
	}
	s := Start(t)
	c := s.HTTPClient()
	body := bytes.Repeat([]byte("x"), 1<<20-1)
	for i := range n {
		req, err := http.NewRequest("POST", s.URL()+"/v1/payments/createPaymentLink", bytes.NewReader(body))
		require.NoError(t, err)
		if i%2 == 0 {
			req.SetBasicAuth("pk", "wrong")
		}
		resp, err := c.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Equal(t, 401, resp.StatusCode)
	}
	recs := s.Requests()
	require.Len(t, recs, n)
	for _, r := range recs {
		require.Nil(t, r.Form)
	}
	stored := s.log.storedBytes()
	assert.Less(t, stored, n*1024, "about a few hundred bytes per request, no bodies")
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	t.Logf("after %d unauthenticated 1 MiB requests: log %d bytes, heap in use %.1f MiB", n, stored, float64(m.HeapInuse)/(1<<20))
}
