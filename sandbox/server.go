package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	mrand "math/rand/v2"
)

// Server is a running sandbox: the fake payment service for one merchant,
// served over real HTTP. It is safe for concurrent use.
type Server struct {
	cfg       config
	url       string
	ln        net.Listener
	srv       *http.Server
	transport *http.Transport
	handler   http.Handler
	store     *store

	// ctx ends at Close, ending every delay and drip in progress.
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex // guards variants, faults and rng
	variants Variants
	faults   []*faultState
	rng      *mrand.Rand

	recMu    sync.Mutex // guards requests
	requests []*RecordedRequest

	// active counts handlers in progress so that Close can wait for them,
	// as httptest.Server.Close does.
	activeMu sync.Mutex
	active   int
	idle     *sync.Cond
	closed   bool
}

// New starts a sandbox on 127.0.0.1 at a free port. Like httptest.NewServer
// it panics if it cannot listen; use Listen to get the error instead.
func New(opts ...Option) *Server {
	s, err := Listen("127.0.0.1:0", opts...)
	if err != nil {
		panic(fmt.Sprintf("sandbox: failed to listen on a port: %v", err))
	}
	return s
}

// Start is New for tests: the server is closed when t's test and its
// subtests end.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := New(opts...)
	t.Cleanup(s.Close)
	return s
}

// Listen starts a sandbox on addr ("127.0.0.1:8787", or port 0 for a free
// one) and returns once it is accepting connections.
func Listen(addr string, opts ...Option) (*Server, error) {
	s := newServer(opts...)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		s.cancel()
		return nil, err
	}
	s.ln = ln
	s.url = "http://" + ln.Addr().String()
	errLog := log.New(io.Discard, "", 0) // resets and drips make noise no one needs
	if s.cfg.logger != nil {
		errLog = slog.NewLogLogger(s.cfg.logger.Handler(), slog.LevelWarn)
	}
	s.srv = &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return s.ctx },
		ErrorLog:          errLog,
	}
	go func() { _ = s.srv.Serve(ln) }() // Serve returns ErrServerClosed at Close
	return s, nil
}

// newServer builds everything but the listener.
func newServer(opts ...Option) *Server {
	cfg := config{
		mid:          DefaultMID,
		merchantName: DefaultMerchantName,
		merchantVPA:  DefaultMerchantVPA,
		now:          time.Now,
		intentTTL:    DefaultIntentTTL,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if !cfg.seeded {
		var b [8]byte
		_, _ = rand.Read(b[:]) // crypto/rand does not fail on supported platforms
		cfg.seed = binary.LittleEndian.Uint64(b[:])
	}
	s := &Server{
		cfg:      cfg,
		store:    newStore(),
		variants: cfg.variants,
		rng:      mrand.New(mrand.NewPCG(cfg.seed, cfg.seed^0x9e3779b97f4a7c15)),
	}
	s.idle = sync.NewCond(&s.activeMu)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if s.cfg.publicKey == "" {
		s.cfg.publicKey = "pk_sandbox_" + s.randHex(8)
	}
	if s.cfg.secretKey == "" {
		s.cfg.secretKey = "sk_sandbox_" + s.randHex(16)
	}
	s.transport = &http.Transport{
		Proxy:               nil, // the sandbox is local; never send it through a proxy
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     30 * time.Second,
	}
	s.handler = s.routes()
	return s
}

// URL returns the base URL, such as http://127.0.0.1:4711, without a
// trailing slash. The API lives at URL()+"/v1/payments/<operation>".
func (s *Server) URL() string { return s.url }

// Handler returns the sandbox's handler (API, hosted pages, QR images and
// control endpoints) to mount at the root of another server. It shares the
// state of s. Absolute links it returns use each request's Host unless
// WithPublicURL is set.
func (s *Server) Handler() http.Handler { return s.handler }

// HTTPClient returns an http.Client for talking to s; it never uses a proxy.
// Its idle connections are closed by Close.
func (s *Server) HTTPClient() *http.Client {
	return &http.Client{Transport: s.transport}
}

// Close stops the listener, ends every delay, drip and open connection, and
// waits for the handlers in progress to return. It is safe to call twice.
func (s *Server) Close() {
	s.activeMu.Lock()
	already := s.closed
	s.closed = true
	s.activeMu.Unlock()
	if already {
		return
	}
	s.cancel()
	if s.srv != nil {
		_ = s.srv.Close()
	}
	s.activeMu.Lock()
	for s.active > 0 {
		s.idle.Wait()
	}
	s.activeMu.Unlock()
	s.transport.CloseIdleConnections()
}

// enter registers a handler in progress; it fails once Close has begun.
func (s *Server) enter() bool {
	s.activeMu.Lock()
	defer s.activeMu.Unlock()
	if s.closed {
		return false
	}
	s.active++
	return true
}

func (s *Server) leave() {
	s.activeMu.Lock()
	s.active--
	if s.active == 0 {
		s.idle.Broadcast()
	}
	s.activeMu.Unlock()
}

// now reads the configured clock.
func (s *Server) now() time.Time { return s.cfg.now() }

// sleep waits d, or until ctx or the server ends; it reports whether the
// full time passed.
func (s *Server) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.ctx.Done():
		return false
	}
}

// randHex returns n random bytes in hex from the server's source.
func (s *Server) randHex(n int) string {
	b := make([]byte, n)
	s.mu.Lock()
	for i := range b {
		b[i] = byte(s.rng.Uint32())
	}
	s.mu.Unlock()
	return hex.EncodeToString(b)
}

// newUTR returns a 12-digit bank reference.
func (s *Server) newUTR() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("%012d", s.rng.Int64N(1e12))
}

// orderIDAlphabet is upper-case and digits without look-alikes: URL-safe.
const orderIDAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// newOrderID returns a service-style id: "ORD", the time in India, and
// eight random characters, e.g. ORD20250101103000K7QX2M9A.
func (s *Server) newOrderID() string {
	b := make([]byte, 8)
	s.mu.Lock()
	for i := range b {
		b[i] = orderIDAlphabet[s.rng.IntN(len(orderIDAlphabet))]
	}
	s.mu.Unlock()
	return "ORD" + s.now().In(indiaTime).Format("20060102150405") + string(b)
}

// indiaTime is UTC+05:30 as a fixed zone, so no tzdata is needed.
var indiaTime = time.FixedZone("IST", 5*3600+30*60)

// Pay settles a PENDING order as SUCCESS with a generated 12-digit UTR and
// returns the UTR.
func (s *Server) Pay(orderID string) (utr string, err error) {
	o, err := s.Settle(orderID, StatusSuccess, "")
	return o.UTR, err
}

// Settle moves a PENDING order to result (StatusSuccess, StatusFail or
// StatusReject). utr is the bank reference to report; empty means a
// generated one for SUCCESS and none otherwise. It fails with
// ErrOrderNotFound, ErrOrderSettled (terminal states are final),
// ErrInvalidResult, ErrInvalidUTR, or ErrIntentExpired (paying an intent
// after its expiry).
func (s *Server) Settle(orderID, result, utr string) (Order, error) {
	return s.SettleWith(orderID, Settlement{Result: result, UTR: utr})
}

// Settlement says how SettleWith ends an order.
type Settlement struct {
	Result string // StatusSuccess, StatusFail or StatusReject
	UTR    string // "" for a generated one on SUCCESS
	// PaidPaise, if non-zero, is the amount the status check reports
	// instead of the order's own: how to make the service answer a
	// decimal amount such as 1.08 (108).
	PaidPaise int64
}

// SettleWith is Settle with every detail; it also fails with
// ErrInvalidAmount for a PaidPaise out of range.
func (s *Server) SettleWith(orderID string, st Settlement) (Order, error) {
	return s.store.settle(orderID, st, s.now(), s.newUTR)
}

// Orders returns a snapshot of every order, oldest first.
func (s *Server) Orders() []Order { return s.store.list() }

// Order returns a snapshot of one order.
func (s *Server) Order(id string) (Order, bool) { return s.store.get(id) }

// OrderCount returns how many orders exist: the proof that a retried create
// did not make a second one.
func (s *Server) OrderCount() int { return s.store.count() }
