package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"time"

	upicollect "github.com/upicollect/upicollect-go"
)

// DefaultAddr is where a sandbox served from the command line listens
// unless told otherwise: fixed, so that scripts and the quickstart find a
// sandbox started by hand without reading its output.
const DefaultAddr = "127.0.0.1:8787"

// ServeConfig is a sandbox served from a command line: what `upicollect
// sandbox` and cmd/upicollect-sandbox read from their flags and the
// environment, and Serve runs. NewServeConfig returns the defaults;
// AddFlags binds the fields to flags.
type ServeConfig struct {
	// Addr is the HOST:PORT to listen on (port 0: any free port).
	Addr string
	// Credentials are the merchant's MID and keys; empty fields keep the
	// sandbox's defaults (WithCredentials).
	Credentials upicollect.Credentials
	// PublicURL is the base URL of links in answers (WithPublicURL).
	PublicURL string
	// Variants are the answer variants switched on at start (WithVariant).
	Variants []string
	// Faults are scripted faults queued at start, in ParseFault's text.
	Faults []string
	// Strict refuses unknown fields and JSON nulls (Strict).
	Strict bool
	// IntentTTL is how long an intent can be paid (WithIntentTTL).
	IntentTTL time.Duration
	// Quiet logs nothing per request.
	Quiet bool
	// Latency delays every API answer (WithLatency).
	Latency time.Duration
	// RateLimit answers 429 beyond this many requests a second
	// (WithRateLimit); 0 is no limit.
	RateLimit float64
}

// NewServeConfig returns the defaults of a sandbox served from a command
// line: DefaultAddr and DefaultIntentTTL, nothing else set.
func NewServeConfig() *ServeConfig {
	return &ServeConfig{Addr: DefaultAddr, IntentTTL: DefaultIntentTTL}
}

// AddFlags binds c's fields, but not the credentials, to flags of fs
// (--addr, --public-url, --variant, --fault, --strict, --intent-ttl,
// --quiet, --latency, --rate-limit), with c's values as their defaults.
// cmd/upicollect-sandbox parses them with the standard library and
// `upicollect sandbox` adds the same set to its own, so the two take the
// same flags.
func (c *ServeConfig) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.Addr, "addr", c.Addr, "`HOST:PORT` to listen on (port 0: any free port)")
	fs.StringVar(&c.PublicURL, "public-url", c.PublicURL, "base `URL` for links in answers (default: the request's host)")
	fs.Var((*stringsFlag)(&c.Variants), "variant", "switch on an answer variant `NAME` (repeatable)")
	fs.Var((*stringsFlag)(&c.Faults), "fault", "queue a scripted fault `SPEC` (repeatable; see the help)")
	fs.BoolVar(&c.Strict, "strict", c.Strict, "refuse unknown fields and JSON nulls (the live service ignores them)")
	fs.DurationVar(&c.IntentTTL, "intent-ttl", c.IntentTTL, "how long an intent can be paid")
	fs.BoolVar(&c.Quiet, "quiet", c.Quiet, "log nothing per request")
	fs.DurationVar(&c.Latency, "latency", c.Latency, "delay every API answer by this much")
	fs.Float64Var(&c.RateLimit, "rate-limit", c.RateLimit, "answer 429 with Retry-After beyond `N` requests a second, as a live quota does (0: no limit)")
}

// stringsFlag is a repeatable flag: each use appends one value. Its Type
// makes it a pflag value too, so that a command built on pflag shows and
// parses it as its own string arrays.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, ",") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }
func (s *stringsFlag) Type() string       { return "stringArray" }

// Options are the sandbox options c names, on a clock that runs at real
// time and moves forward at POST /sandbox/clock (an OffsetClock), logging
// each request to logger unless Quiet. A fault that does not parse is an
// error.
func (c *ServeConfig) Options(logger *slog.Logger) ([]Option, error) {
	opts := []Option{
		WithCredentials(c.Credentials),
		WithPublicURL(c.PublicURL),
		WithVariant(c.Variants...),
		WithIntentTTL(c.IntentTTL),
		WithLatency(c.Latency),
		WithMovableClock(NewOffsetClock(nil)),
	}
	for _, spec := range c.Faults {
		fault, err := ParseFault(spec)
		if err != nil {
			return nil, err
		}
		opts = append(opts, WithFault(fault))
	}
	if c.Strict {
		opts = append(opts, Strict())
	}
	if c.RateLimit != 0 {
		opts = append(opts, WithRateLimit(c.RateLimit, 0))
	}
	if !c.Quiet {
		opts = append(opts, WithLogger(logger))
	}
	return opts, nil
}

// Info is the one JSON line Serve prints on stdout: what a script needs to
// talk to the sandbox. Printing the secret key is intended: it is fake.
type Info struct {
	BaseURL   string `json:"base_url"`
	MID       string `json:"mid"`
	PublicKey string `json:"public_key"`
	SecretKey string `json:"secret_key"`
}

// ConfigError is Serve's error for a configuration the sandbox refuses
// (an unknown variant, a fault that does not parse, a bad rate): a usage
// error, where a network's refusal to listen is not one.
type ConfigError struct{ Err error }

// Error is the refusal's text.
func (e *ConfigError) Error() string { return e.Err.Error() }

// Unwrap returns the refusal.
func (e *ConfigError) Unwrap() error { return e.Err }

// Serve listens on c.Addr, prints Info as one JSON line on stdout, logs to
// stderr, and serves until ctx ends (a command's SIGINT or SIGTERM); then
// it closes the sandbox and returns nil. A configuration the sandbox
// refuses is a *ConfigError; a network that refuses the address, or a
// stdout that cannot be written, is returned as it is.
func Serve(ctx context.Context, c *ServeConfig, stdout, stderr io.Writer) error {
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	opts, err := c.Options(logger)
	if err != nil {
		return &ConfigError{err}
	}
	s, err := Listen(c.Addr, opts...)
	if err != nil {
		var opErr *net.OpError
		if errors.As(err, &opErr) {
			return err
		}
		return &ConfigError{err}
	}
	defer s.Close()
	creds := s.Credentials()
	line, _ := json.Marshal(Info{BaseURL: s.URL(), MID: creds.MID, PublicKey: creds.PublicKey, SecretKey: creds.SecretKey})
	if _, err := fmt.Fprintf(stdout, "%s\n", line); err != nil {
		return err
	}
	logger.Info("sandbox serving",
		"api_base_url", s.URL(),
		"order_list_page", s.URL()+"/",
		"orders_json", s.URL()+ordersPath,
		"pay_endpoint", s.URL()+"/sandbox/orders/{order_id}/pay",
		"variants_endpoint", s.URL()+variantsPath,
		"faults_endpoint", s.URL()+faultsPath,
		"clock_endpoint", s.URL()+clockPath)
	<-ctx.Done()
	start := time.Now()
	s.Close()
	logger.Info("sandbox stopped", "took", time.Since(start).Round(time.Millisecond))
	return nil
}
