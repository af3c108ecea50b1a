package sandbox

import (
	"log/slog"
	"time"
)

// Option configures a Server at New, Listen or Start.
type Option func(*config)

// config is what the options set; New fills in the defaults.
type config struct {
	mid, publicKey, secretKey string
	merchantName, merchantVPA string
	now                       func() time.Time
	seed                      uint64
	seeded                    bool
	latency                   time.Duration
	variants                  Variants
	intentTTL                 time.Duration
	publicURL                 string
	logger                    *slog.Logger
	requestLogLimit           int
}

// Default merchant identity. The keys get a random suffix unless
// WithCredentials or WithSeed fixes them.
const (
	DefaultMID          = "SANDBOXMID"
	DefaultMerchantName = "Sandbox Merchant"
	DefaultMerchantVPA  = "sandbox.merchant@upicollect"
	DefaultIntentTTL    = 5 * time.Minute
)

// WithMerchant sets the merchant's display name and UPI ID (VPA), which the
// intent links carry as pn and pa and the hosted pages show.
func WithMerchant(name, vpa string) Option {
	return func(c *config) { c.merchantName, c.merchantVPA = name, vpa }
}

// WithClock makes the server read time from now instead of time.Now: order
// ids, intent expiry, CreatedAt/SettledAt and recorded request times all use
// it. Tests use a fixed or stepped clock to get stable answers.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// WithSeed makes every generated value (default keys, order ids, UTRs)
// a deterministic function of seed and the order of calls. Without it they
// come from a random seed.
func WithSeed(seed uint64) Option {
	return func(c *config) { c.seed, c.seeded = seed, true }
}

// WithLatency delays every API answer by d (not the hosted pages or control
// endpoints). The delay ends early when the request's context ends.
func WithLatency(d time.Duration) Option {
	return func(c *config) { c.latency = d }
}

// WithVariants starts the server with the given real-world answer shapes;
// SetVariants changes them later.
func WithVariants(v Variants) Option {
	return func(c *config) { c.variants = v }
}

// WithIntentTTL sets how long an intent can be paid after its creation
// (default DefaultIntentTTL, the expiry the answer reports).
func WithIntentTTL(d time.Duration) Option {
	return func(c *config) { c.intentTTL = d }
}

// WithPublicURL sets the base URL used in the absolute links the server
// returns (payment_url, payment_link, dynamicQR) instead of the scheme and
// Host of each request. Use it when the handler sits behind a proxy.
func WithPublicURL(u string) Option {
	return func(c *config) { c.publicURL = u }
}

// WithLogger logs one line per request (method, path, op, status, duration)
// to l. By default nothing is logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// WithRequestLogLimit keeps only the last n recorded requests (n <= 0: all,
// the default). Long-running servers such as `upicollect sandbox` set it so
// that memory stays bounded.
func WithRequestLogLimit(n int) Option {
	return func(c *config) { c.requestLogLimit = n }
}
