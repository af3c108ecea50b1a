package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/internal/testkit/rawhttp"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// t0 is the fixed time golden answers are made at: 15:30 in India.
var t0 = time.Date(2025, 1, 15, 10, 0, 0, 0, time.UTC)

// newFakeClock is a clock tests move by hand, at t0.
func newFakeClock() *ManualClock { return NewManualClock(t0) }

// fixed starts a sandbox whose ids, UTRs and times are reproducible.
func fixed(t *testing.T, opts ...Option) *Server {
	t.Helper()
	return Start(t, append([]Option{WithSeed(1), WithClock(func() time.Time { return t0 })}, opts...)...)
}

// answer is what one API call got back.
type answer struct {
	code   int
	header http.Header
	body   []byte
}

func (a answer) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(a.body, &m), "body: %s", a.body)
	return m
}

// call posts form to op with the server's credentials.
func call(t *testing.T, s *Server, op string, form url.Values) answer {
	t.Helper()
	req := newReq(t, s, op, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	c := s.Credentials()
	req.SetBasicAuth(c.PublicKey, c.SecretKey)
	return send(t, s, req)
}

func newReq(t *testing.T, s *Server, op, contentType string, body io.Reader) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL()+"/v1/payments/"+op, body)
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req
}

func send(t *testing.T, s *Server, req *http.Request) answer {
	t.Helper()
	resp, err := s.HTTPClient().Do(req)
	require.NoError(t, err)
	return readAnswer(t, resp)
}

// readAnswer reads and closes resp.
func readAnswer(t *testing.T, resp *http.Response) answer {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{resp.StatusCode, resp.Header, b}
}

// rawExchange writes msg, a whole HTTP request, to s over a new
// connection, as clients with their own HTTP code do, and reads the answer.
func rawExchange(t *testing.T, s *Server, msg []byte) answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, body, err := rawhttp.Exchange(ctx, strings.TrimPrefix(s.URL(), "http://"), msg)
	require.NoError(t, err)
	return answer{resp.StatusCode, resp.Header, body}
}

// Valid bodies for each operation, with the server's mid.
func intentForm(s *Server) url.Values {
	return url.Values{
		"mid": {s.Credentials().MID}, "amount": {"499"}, "redirect_url": {"https://shop.example/done"},
		"note": {"Order #42 & more"}, "customer_name": {"Ravi Kumar"},
		"customer_email": {"ravi@example.com"}, "customer_mobile": {"9876543210"},
	}
}

func requestForm(s *Server) url.Values {
	return url.Values{
		"mid": {s.Credentials().MID}, "amount": {"250"}, "vpa": {"ravi.kumar@oksbi"},
		"note": {"Invoice 7"}, "customer_name": {"Ravi Kumar"},
		"customer_email": {"ravi@example.com"}, "customer_mobile": {"9876543210"},
	}
}

func linkForm(s *Server) url.Values {
	return url.Values{
		"mid": {s.Credentials().MID}, "amount": {"1"}, "note": {"Tip"}, "customer_name": {"Ravi Kumar"},
		"customer_email": {"ravi@example.com"}, "customer_mobile": {"9876543210"},
	}
}

func statusForm(s *Server, id string) url.Values {
	return url.Values{"mid": {s.Credentials().MID}, "order_id": {id}}
}

func with(v url.Values, kv ...string) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	for i := 0; i < len(kv); i += 2 {
		out.Set(kv[i], kv[i+1])
	}
	return out
}

func without(v url.Values, keys ...string) url.Values {
	out := with(v)
	for _, k := range keys {
		out.Del(k)
	}
	return out
}

// golden compares body, with the server's address normalised, to
// testdata/name.json byte for byte after indenting (which keeps key order).
func golden(t *testing.T, s *Server, name string, a answer) {
	t.Helper()
	body := bytes.ReplaceAll(a.body, []byte(s.URL()), []byte("http://sandbox.test"))
	var buf bytes.Buffer
	require.NoError(t, json.Indent(&buf, bytes.TrimSpace(body), "", "  "), "body: %s", a.body)
	buf.WriteByte('\n')
	path := filepath.Join("testdata", name+".json")
	if *update {
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create %s", path)
	require.Equal(t, string(want), buf.String(), "golden %s", path)
}
