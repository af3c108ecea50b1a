package sandbox

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"
)

// Option configures a Service or Server. Options check their input: New
// panics on a bad one, Listen and NewService return its error.
type Option func(*config) error

// config is what the options set; newConfig fills in the defaults.
type config struct {
	mid, publicKey, secretKey string
	merchantName, merchantVPA string
	now                       func() time.Time
	movable                   MovableClock // nil: POST /sandbox/clock refuses
	seed                      uint64
	seeded                    bool
	latency                   time.Duration
	variants                  variantSet
	strict                    bool
	intentTTL                 time.Duration
	publicURL                 string
	logger                    *slog.Logger
	requestLogCount           int
	requestLogBytes           int
	timeouts                  Timeouts
	faults                    []Fault
	ratePerSecond             float64 // 0: no quota
	rateBurst                 int
}

// Default merchant identity and limits. The keys get a random suffix unless
// WithCredentials or WithSeed fixes them.
const (
	DefaultMID             = "SANDBOXMID"
	DefaultMerchantName    = "Sandbox Merchant"
	DefaultMerchantVPA     = "sandbox.merchant@upicollect"
	DefaultIntentTTL       = 5 * time.Minute
	DefaultRequestLogBytes = 4 << 20 // 4 MiB
)

func newConfig(opts []Option) (config, error) {
	cfg := config{
		mid:             DefaultMID,
		merchantName:    DefaultMerchantName,
		merchantVPA:     DefaultMerchantVPA,
		now:             time.Now,
		intentTTL:       DefaultIntentTTL,
		requestLogBytes: DefaultRequestLogBytes,
		timeouts:        DefaultTimeouts,
	}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// WithMerchant sets the merchant's display name and UPI ID (VPA), which the
// intent links carry as pn and pa and the hosted pages show.
func WithMerchant(name, vpa string) Option {
	return func(c *config) error {
		if name == "" || vpa == "" {
			return errors.New("sandbox: WithMerchant: name and VPA must not be empty")
		}
		c.merchantName, c.merchantVPA = name, vpa
		return nil
	}
}

// WithClock makes the server read time from now instead of time.Now: this
// is sandbox time. Intent expiry, CreatedAt/SettledAt, when Settle's
// scheduled changes take effect, the quota of WithRateLimit, recorded
// request times and GET /sandbox/clock all use it. Tests use a fixed clock
// or a ManualClock (WithClock(c.Now)) to get stable answers and to walk
// hours of sandbox time at once; nothing in the sandbox sleeps on it.
func WithClock(now func() time.Time) Option {
	return func(c *config) error {
		if now == nil {
			return errors.New("sandbox: WithClock: nil clock")
		}
		c.now, c.movable = now, nil
		return nil
	}
}

// WithSeed makes every generated value (default keys, order ids, UTRs)
// a deterministic function of seed and the order of calls. Without it they
// come from a random seed.
func WithSeed(seed uint64) Option {
	return func(c *config) error { c.seed, c.seeded = seed, true; return nil }
}

// WithLatency delays every API answer by d (not the hosted pages or control
// endpoints). The delay ends early when the request's context ends.
func WithLatency(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("sandbox: WithLatency: negative duration %v", d)
		}
		c.latency = d
		return nil
	}
}

// WithVariant starts the server with the named answer variants switched on
// (VariantStatusInData, ...; the list is in the package documentation).
// An unknown name, or two variants that exclude each other, is an error.
func WithVariant(names ...string) Option {
	return func(c *config) error {
		v, err := c.variants.with(names, nil)
		c.variants = v
		return err
	}
}

// Strict makes the server refuse what the live service lets pass: fields an
// operation does not accept and JSON nulls are answered 400. The SDK's own
// tests use it to prove that it sends exactly the right fields.
func Strict() Option {
	return func(c *config) error { c.strict = true; return nil }
}

// WithIntentTTL sets how long an intent can be paid after its creation
// (default DefaultIntentTTL, the expiry the answer reports).
func WithIntentTTL(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("sandbox: WithIntentTTL: %v is not positive", d)
		}
		c.intentTTL = d
		return nil
	}
}

// WithPublicURL sets the base URL used in the absolute links the server
// returns (payment_url, payment_link, dynamicQR) instead of the scheme and
// Host of each request. Use it when the handler sits behind a proxy or is
// reached from another device; its host is also accepted by the order list
// and control endpoints. An empty u keeps the default.
func WithPublicURL(u string) Option {
	return func(c *config) error {
		if u == "" {
			return nil
		}
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Errorf("sandbox: WithPublicURL: %q is not an absolute http or https URL", u)
		}
		c.publicURL = u
		return nil
	}
}

// WithLogger logs one line per request (method, path, op, status, duration)
// to l. By default nothing is logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error { c.logger = l; return nil }
}

// WithRequestLog bounds the request log (Requests): it keeps only the
// last count requests (count <= 0: no bound by count) in at most maxBytes
// of memory (maxBytes <= 0: DefaultRequestLogBytes); the oldest records
// go first.
func WithRequestLog(count, maxBytes int) Option {
	return func(c *config) error {
		c.requestLogCount = count
		if maxBytes > 0 {
			c.requestLogBytes = maxBytes
		}
		return nil
	}
}

// WithFault queues f as InjectFault would, from the start.
func WithFault(f Fault) Option {
	return func(c *config) error {
		if err := f.check(); err != nil {
			return err
		}
		c.faults = append(c.faults, f)
		return nil
	}
}
