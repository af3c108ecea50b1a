package sandbox

import (
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"time"

	upicollect "github.com/upicollect/upicollect-go"
)

// Server is a Service served over HTTP on loopback, in the manner of
// httptest.Server. The Service's methods (Pay, Settle, Order, Requests,
// InjectFault, ...) are reachable on it directly, and Server.Service is
// the http.Handler to mount elsewhere with the same state.
type Server struct {
	*Service
	ts *httptest.Server
}

// Timeouts bound how long a connection may hold the server. A zero field
// keeps its default.
type Timeouts struct {
	// ReadHeader bounds reading a request's header (default 10s).
	ReadHeader time.Duration
	// Read bounds reading a whole request, body included (default 30s);
	// a client that drips its body is cut off. Answers are not bounded: a
	// scripted delay runs its course.
	Read time.Duration
	// Idle bounds a keep-alive connection between requests (default 60s).
	Idle time.Duration
}

// DefaultTimeouts are the Timeouts a server uses unless WithTimeouts says
// otherwise.
var DefaultTimeouts = Timeouts{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Idle: 60 * time.Second}

// WithTimeouts sets the server's connection timeouts.
func WithTimeouts(t Timeouts) Option {
	return func(c *config) error {
		if t.ReadHeader < 0 || t.Read < 0 || t.Idle < 0 {
			return fmt.Errorf("sandbox: WithTimeouts: negative timeout in %+v", t)
		}
		if t.ReadHeader == 0 {
			t.ReadHeader = DefaultTimeouts.ReadHeader
		}
		if t.Read == 0 {
			t.Read = DefaultTimeouts.Read
		}
		if t.Idle == 0 {
			t.Idle = DefaultTimeouts.Idle
		}
		c.timeouts = t
		return nil
	}
}

// maxHeaderBytes bounds a request's header: clients send a few hundred.
const maxHeaderBytes = 64 << 10

// New starts a sandbox on 127.0.0.1 at a free port. Like httptest.NewServer
// it panics if it cannot listen, and also on a bad option; use Listen to
// get the error instead.
func New(opts ...Option) *Server {
	s, err := Listen("127.0.0.1:0", opts...)
	if err != nil {
		panic(fmt.Sprintf("sandbox: %v", err))
	}
	return s
}

// TB is the part of testing.TB that Start uses; *testing.T, *testing.B,
// *testing.F and testing.TB itself all satisfy it. Start takes TB rather
// than testing.TB so that this package does not import "testing": a
// program that serves the sandbox, such as the upicollect command, would
// otherwise link the testing package and its flags into its binary.
type TB interface {
	Helper()
	Cleanup(func())
	Fatalf(format string, args ...any)
}

// Start is New for tests: a failure fails t, and the server is closed when
// t's test and its subtests end. Call it with a *testing.T, *testing.B or
// testing.TB.
func Start(t TB, opts ...Option) *Server {
	t.Helper()
	s, err := Listen("127.0.0.1:0", opts...)
	if err != nil {
		t.Fatalf("sandbox: %v", err)
		return nil // a TB whose Fatalf returns
	}
	t.Cleanup(s.Close)
	return s
}

// Listen starts a sandbox on addr ("127.0.0.1:8787", or port 0 for a free
// one) and returns once it is accepting connections.
func Listen(addr string, opts ...Option) (*Server, error) {
	svc, err := NewService(opts...)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	errLog := log.New(io.Discard, "", 0) // resets and drips make noise no one needs
	if svc.cfg.logger != nil {
		errLog = slog.NewLogLogger(svc.cfg.logger.Handler(), slog.LevelWarn)
	}
	t := svc.cfg.timeouts
	ts := &httptest.Server{Listener: ln, Config: &http.Server{
		Handler:           svc,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          errLog,
		ConnState: func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				svc.stats.connections.Add(1)
			}
		},
	}}
	ts.Start()
	if tr, ok := ts.Client().Transport.(*http.Transport); ok {
		// As many idle connections as the SDK's own client keeps (2 by
		// default): a batch of checks reuses them instead of opening new
		// ones, so a benchmark measures the SDK, not connection set-up.
		tr.MaxIdleConnsPerHost = upicollect.DefaultMaxConns
		tr.MaxIdleConns = max(tr.MaxIdleConns, upicollect.DefaultMaxConns)
	}
	svc.setSelfURL(ts.URL)
	return &Server{Service: svc, ts: ts}, nil
}

// URL returns the base URL, such as http://127.0.0.1:4711, without a
// trailing slash. The API lives at URL()+"/v1/payments/<operation>".
func (s *Server) URL() string { return s.ts.URL }

// HTTPClient returns a new http.Client for talking to s, sharing one
// transport whose idle connections Close closes. It never uses a proxy,
// keeps up to upicollect.DefaultMaxConns idle connections, as the SDK's
// own client does, and follows redirects; Client's does not.
func (s *Server) HTTPClient() *http.Client {
	c := *s.ts.Client()
	return &c
}

// Close ends every delay and drip in progress, closes every connection and
// waits for the handlers to return. It is safe to call twice.
func (s *Server) Close() {
	s.Service.Close()
	s.ts.CloseClientConnections()
	s.ts.Close()
}
