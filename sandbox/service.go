package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/http"
	"sync"
	"time"

	mrand "math/rand/v2"

	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/internal/redact"
)

// Service is the fake payment service as an http.Handler: the API, the
// hosted pages, QR images and the control endpoints of one merchant, with
// its orders in memory. Server serves one over loopback; mount a Service
// yourself to serve it from another server (at the root of a host: its
// paths are absolute). It is safe for concurrent use.
type Service struct {
	cfg   config
	store *store
	log   *requestLog
	mux   *http.ServeMux // the route table
	quota *quota         // nil: no quota
	stats *counters

	// ctx ends at Close, ending every delay and drip in progress.
	ctx    context.Context
	cancel context.CancelFunc

	clockMu sync.Mutex // makes POST /sandbox/clock's check and move one step

	mu       sync.Mutex // guards variants, faults, rng and selfURL
	variants variantSet
	faults   []*faultState
	rng      *mrand.Rand
	selfURL  string // where the Server listens, for requests without Host
}

// NewService returns a Service configured by opts.
func NewService(opts ...Option) (*Service, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if !cfg.seeded {
		var b [8]byte
		_, _ = rand.Read(b[:]) // crypto/rand does not fail on supported platforms
		cfg.seed = binary.LittleEndian.Uint64(b[:])
	}
	s := &Service{
		cfg:      cfg,
		store:    newStore(),
		variants: cfg.variants,
		rng:      mrand.New(mrand.NewPCG(cfg.seed, cfg.seed^0x9e3779b97f4a7c15)),
		quota:    newQuota(cfg.ratePerSecond, cfg.rateBurst),
		stats:    newCounters(),
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if s.cfg.publicKey == "" {
		s.cfg.publicKey = "pk_sandbox_" + s.randHex(8)
	}
	if s.cfg.secretKey == "" {
		s.cfg.secretKey = "sk_sandbox_" + s.randHex(16)
	}
	s.log = newRequestLog(cfg.requestLogBytes, cfg.requestLogCount, redact.New(s.cfg.publicKey, s.cfg.secretKey))
	for _, f := range cfg.faults {
		s.InjectFault(f)
	}
	s.mux = s.newMux()
	return s, nil
}

// Close ends every delay and drip in progress; later API calls still work.
// Server.Close calls it.
func (s *Service) Close() { s.cancel() }

// setSelfURL tells s where it is served, for requests without a Host.
func (s *Service) setSelfURL(u string) {
	s.mu.Lock()
	s.selfURL = u
	s.mu.Unlock()
}

// now reads the configured clock.
func (s *Service) now() time.Time { return s.cfg.now() }

// sleep waits d, or until ctx or the service ends; it reports whether the
// full time passed.
func (s *Service) sleep(ctx context.Context, d time.Duration) bool {
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

// randHex returns n random bytes in hex from the service's source.
func (s *Service) randHex(n int) string {
	b := make([]byte, n)
	s.mu.Lock()
	for i := range b {
		b[i] = byte(s.rng.Uint32())
	}
	s.mu.Unlock()
	return hex.EncodeToString(b)
}

// newUTR returns a 12-digit bank reference.
func (s *Service) newUTR() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("%012d", s.rng.Int64N(1e12))
}

// newOrderID returns a service-style id as live makes them: "utz_" and 13
// lower-case hex digits, e.g. utz_65a4f3c2b1d0e.
func (s *Service) newOrderID() string { return "utz_" + s.randHex(7)[:13] }

// baseURL is where absolute links point: WithPublicURL, else the request's
// own scheme and Host, else (HTTP/1.0 without Host) where s is served.
func (s *Service) baseURL(r *http.Request) string {
	if s.cfg.publicURL != "" {
		return s.cfg.publicURL
	}
	if r.Host == "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.selfURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// Pay settles a PENDING order as SUCCESS now, with a generated 12-digit
// UTR, and returns the UTR: the payer paying at the checkout, SettleWith's
// shorthand.
func (s *Service) Pay(orderID string) (utr string, err error) {
	o, err := s.SettleWith(orderID, Settlement{Result: StatusSuccess})
	return o.UTR, err
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

// SettleWith moves a PENDING order to st.Result now, as the payer's
// choice at the checkout does, and returns the order as it then is. It
// fails with ErrOrderNotFound, ErrOrderSettled (a final state stays final
// for the payer; only Settle's bank outcome may turn FAIL or REJECT into
// SUCCESS), ErrInvalidResult, ErrInvalidUTR, ErrInvalidAmount (PaidPaise
// out of range) or ErrIntentExpired (paying an intent after its expiry).
// HTTP: POST /sandbox/orders/{order_id}/pay without after.
func (s *Service) SettleWith(orderID string, st Settlement) (Order, error) {
	return s.settle(orderID, ScheduledChange{Result: st.Result, UTR: st.UTR, PaidPaise: st.PaidPaise}, false)
}

// Settle schedules the bank's outcome result for the order at sandbox
// time at (WithClock's clock; at not after now means now). From then on
// the status check, Order, Orders and the hosted pages report it; before,
// they show it under Order.Scheduled. A FAIL or REJECT may later become
// SUCCESS, as a bank's late authorisation does, so a test can schedule
// FAIL in a minute and SUCCESS in five hours; SUCCESS is final. A SUCCESS
// gets a generated UTR. An intent's expiry bounds when the payer can
// start paying, not when the bank answers: Settle refuses SUCCESS for an
// intent that expired unpaid before now (ErrIntentExpired), not one
// whose payment settles after its expiry.
//
// It fails with ErrOrderNotFound, ErrInvalidResult, ErrIntentExpired, or
// ErrOrderSettled when the change does not fit the order's states up to
// at (SUCCESS before it, or a change after it that would no longer be
// allowed). HTTP: POST /sandbox/orders/{order_id}/pay with after.
func (s *Service) Settle(orderID string, result upicollect.TxnStatus, at time.Time) error {
	_, err := s.settle(orderID, ScheduledChange{Result: string(result), At: at}, true)
	return err
}

// settle is the one path by which an order's state changes: the payer's
// choice now (SettleWith, Pay, the pay endpoint without after) or the
// bank's outcome at c.At (Settle, the pay endpoint with after). It answers
// the order as it then is.
func (s *Service) settle(orderID string, c ScheduledChange, bank bool) (Order, error) {
	if err := checkChange(c); err != nil {
		return Order{}, err
	}
	if !bank {
		return s.store.settleNow(orderID, c, s.now(), s.newUTR)
	}
	if c.UTR == "" && c.Result == StatusSuccess {
		c.UTR = s.newUTR() // now, so that a seed gives the same UTRs however often orders are read
	}
	return s.store.schedule(orderID, c, s.now())
}

// Orders returns a snapshot of every order, oldest first.
func (s *Service) Orders() []Order { return s.store.list(s.now()) }

// Order returns a snapshot of one order.
func (s *Service) Order(id string) (Order, bool) { return s.store.get(id, s.now()) }

// Requests returns copies of the recorded requests, oldest first.
func (s *Service) Requests() []RecordedRequest { return s.log.snapshot() }

// Part names what Clear empties: what the sandbox gathers besides its
// orders.
type Part int

// The parts Clear empties.
const (
	Faults           Part = iota + 1 // the queued faults (InjectFault, WithFault)
	RecordedRequests                 // the request log (Requests)
	Counts                           // the counts Stats reports
)

// Clear empties the named parts, or all of them when none is named, as
// between a test's phases or benchmark runs. The orders, variants and
// clock stay.
func (s *Service) Clear(parts ...Part) {
	if len(parts) == 0 {
		parts = []Part{Faults, RecordedRequests, Counts}
	}
	for _, p := range parts {
		switch p {
		case Faults:
			s.mu.Lock()
			s.faults = nil
			s.mu.Unlock()
		case RecordedRequests:
			s.log.clear()
		case Counts:
			s.stats.clear()
		}
	}
}
