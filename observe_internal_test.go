package upicollect

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/internal/redact"
)

// TestServerOf: CallInfo's server is the base URL's host and port, the
// scheme's default port when the URL names none.
func TestServerOf(t *testing.T) {
	for _, tt := range []struct {
		url  string
		host string
		port int
	}{
		{"https://api.example.com", "api.example.com", 443},
		{"http://127.0.0.1", "127.0.0.1", 80},
		{"https://api.example.com:8443/base", "api.example.com", 8443},
		{"http://[::1]:8787", "::1", 8787},
	} {
		u, err := url.Parse(tt.url)
		require.NoError(t, err)
		host, port := serverOf(u)
		assert.Equal(t, tt.host, host, tt.url)
		assert.Equal(t, tt.port, port, tt.url)
	}
}

// seen records what an Observer was given.
type seen struct {
	NopObserver
	calls    []CallInfo
	attempts []AttemptEnd
	ends     []CallEnd
	finals   []FinalState
}

func (s *seen) StartCall(ctx context.Context, c CallInfo) context.Context {
	s.calls = append(s.calls, c)
	return context.WithValue(ctx, seenKey{}, len(s.calls))
}

func (s *seen) StartAttempt(ctx context.Context, c CallInfo, _ int) context.Context {
	s.calls = append(s.calls, c)
	return context.WithValue(ctx, seenKey{}, len(s.calls))
}

func (s *seen) EndAttempt(_ context.Context, c CallInfo, a AttemptEnd) {
	s.calls = append(s.calls, c)
	s.attempts = append(s.attempts, a)
}

func (s *seen) EndCall(_ context.Context, c CallInfo, e CallEnd) {
	s.calls = append(s.calls, c)
	s.ends = append(s.ends, e)
}

func (s *seen) FinalState(_ context.Context, f FinalState) { s.finals = append(s.finals, f) }

type seenKey struct{}

// TestNewObserver: the client's one observer is a no-op without a logger
// and an Observer, the log's or the caller's alone, or both, the log
// first; the caller's is shown no path, answer or error, and the starts'
// contexts pass from one to the next.
func TestNewObserver(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	f := redact.New("pub", "sec")
	s := &seen{}
	assert.Equal(t, NopObserver{}, newObserver(nil, nil, f))
	assert.Equal(t, logObserver{log: logger, filter: f}, newObserver(logger, nil, f))
	assert.Equal(t, outside{s}, newObserver(nil, s, f))
	both := newObserver(logger, s, f)
	assert.Equal(t, observers{logObserver{log: logger, filter: f}, outside{s}}, both)

	ctx := context.Background()
	call := CallInfo{Op: "checkPaymentStatus", OrderID: "ORD-1", path: "/v1/payments/checkPaymentStatus"}
	cctx := both.StartCall(ctx, call)
	assert.Equal(t, 1, cctx.Value(seenKey{}))
	actx := both.StartAttempt(cctx, call, 1)
	assert.Equal(t, 2, actx.Value(seenKey{}))
	resp := &Response{HTTPStatus: 503}
	both.EndAttempt(actx, call, AttemptEnd{Attempt: 1, HTTPStatus: 503, resp: resp, err: errors.New("quoted")})
	both.EndCall(cctx, call, CallEnd{Attempts: 1, Reason: "not retryable", err: errors.New("quoted")})
	both.FinalState(ctx, FinalState{OrderID: "ORD-1"})
	public := CallInfo{Op: "checkPaymentStatus", OrderID: "ORD-1"}
	assert.Equal(t, []CallInfo{public, public, public, public}, s.calls)
	assert.Equal(t, []AttemptEnd{{Attempt: 1, HTTPStatus: 503}}, s.attempts)
	assert.Equal(t, []CallEnd{{Attempts: 1, Reason: "not retryable"}}, s.ends)
	assert.Equal(t, []FinalState{{OrderID: "ORD-1"}}, s.finals)
}

// TestClientObserver: Observer is the observer the client reports to, the
// one newObserver made: a no-op, the log's, the caller's behind its
// wrapper, or both; a client NewClient did not make panics as every
// method does.
func TestClientObserver(t *testing.T) {
	creds := Credentials{MID: "m", PublicKey: "p", SecretKey: "s"}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	s := &seen{}
	for _, tt := range []struct {
		name string
		opts []Option
		want func(c *Client) Observer
	}{
		{"neither", nil, func(*Client) Observer { return NopObserver{} }},
		{"log", []Option{WithLogger(logger)}, func(c *Client) Observer { return logObserver{log: logger, filter: c.filter} }},
		{"observer", []Option{WithObserver(s)}, func(*Client) Observer { return outside{s} }},
		{"both", []Option{WithLogger(logger), WithObserver(s)}, func(c *Client) Observer {
			return observers{logObserver{log: logger, filter: c.filter}, outside{s}}
		}},
	} {
		c, err := NewClient(creds, append([]Option{WithBaseURL("http://127.0.0.1:1")}, tt.opts...)...)
		require.NoError(t, err)
		assert.Equal(t, tt.want(c), c.Observer(), tt.name)
		assert.Equal(t, c.observer, c.Observer(), tt.name)
	}
	assert.PanicsWithValue(t, errZeroClient, func() { (&Client{}).Observer() })
	assert.PanicsWithValue(t, errZeroClient, func() { (*Client)(nil).Observer() })
}
