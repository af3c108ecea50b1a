package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

// defaultSandboxAddr is fixed so that scripts and the quickstart can find a
// sandbox started by hand without reading its output.
const defaultSandboxAddr = "127.0.0.1:8787"

func init() {
	register(command{name: "sandbox", summary: "serve a local sandbox of the service", run: runSandbox})
}

// sandboxInfo is the one JSON line printed on stdout: what a script needs
// to talk to the sandbox. Printing the secret is intended: it is fake.
type sandboxInfo struct {
	BaseURL   string `json:"base_url"`
	MID       string `json:"mid"`
	PublicKey string `json:"public_key"`
	SecretKey string `json:"secret_key"`
}

// listFlag collects a repeatable flag's values.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// sandboxFlags are the parsed flags of `upicollect sandbox`.
type sandboxFlags struct {
	addr, mid, pk, sk, publicURL, shape string
	variants, faults                    listFlag
	strict, quiet                       bool
	intentTTL, latency                  time.Duration
}

const sandboxUsage = `Usage: upicollect sandbox [flags]

Serves a fake Payment Collection Service and prints one JSON line on stdout:
{"base_url":…,"mid":…,"public_key":…,"secret_key":…}
MID and keys come from UPICOLLECT_MID, UPICOLLECT_PUBLIC_KEY and
UPICOLLECT_SECRET_KEY when set, else from the flags, else random.
Logs go to stderr. Stop with Ctrl-C.

Variants (--variant NAME, repeatable): %s.
Faults (--fault SPEC, repeatable): comma-separated key=value pairs, e.g.
  --fault op=createPaymentIntent,status=500,times=2
  --fault latency=3s  --fault reset=after  --fault status=429,header=Retry-After:2
Keys: op, times, latency, status, header (Name:Value), reset (before|after),
slow_body, huge_body, processed, body (last; takes the rest, commas included).
At run time: GET/POST /sandbox/variants, POST/DELETE /sandbox/faults (JSON).

Flags:
`

// errUsage is a usage error already reported.
var errUsage = errors.New("usage")

// parseSandboxFlags parses args, reporting problems on stderr.
func parseSandboxFlags(args []string, stderr io.Writer) (*sandboxFlags, error) {
	f := &sandboxFlags{}
	fs := flag.NewFlagSet("upicollect sandbox", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, sandboxUsage, strings.Join(sandbox.VariantNames(), ", "))
		fs.PrintDefaults()
	}
	fs.StringVar(&f.addr, "addr", defaultSandboxAddr, "`HOST:PORT` to listen on (port 0: any free port)")
	fs.StringVar(&f.mid, "mid", "", "merchant ID if UPICOLLECT_MID is unset (default "+sandbox.DefaultMID+")")
	fs.StringVar(&f.pk, "public-key", "", "public key if UPICOLLECT_PUBLIC_KEY is unset (default random pk_sandbox_…)")
	fs.StringVar(&f.sk, "secret-key", "", "secret key if UPICOLLECT_SECRET_KEY is unset (default random sk_sandbox_…)")
	fs.StringVar(&f.publicURL, "public-url", "", "base `URL` for links in answers (default: the request's host)")
	fs.Var(&f.variants, "variant", "switch on an answer variant `NAME` (repeatable)")
	fs.Var(&f.faults, "fault", "queue a scripted fault `SPEC` (repeatable; see above)")
	fs.BoolVar(&f.strict, "strict", false, "refuse unknown fields and JSON nulls (the live service ignores them)")
	fs.DurationVar(&f.intentTTL, "intent-ttl", sandbox.DefaultIntentTTL, "how long an intent can be paid")
	fs.BoolVar(&f.quiet, "quiet", false, "log nothing per request")
	fs.DurationVar(&f.latency, "latency", 0, "delay every API answer by this much")
	fs.StringVar(&f.shape, "status-shape", "", "deprecated: use --variant status-in-data or status-bare")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "upicollect sandbox: unexpected argument %q\n", fs.Arg(0))
		return nil, errUsage
	}
	return f, nil
}

// options turns the flags and the environment into sandbox options.
func (f *sandboxFlags) options(getenv func(string) string, logger *slog.Logger) ([]sandbox.Option, error) {
	pick := func(env, flagValue string) string {
		if v := getenv(env); v != "" {
			return v
		}
		return flagValue
	}
	opts := []sandbox.Option{
		sandbox.WithCredentials(upicollect.Credentials{
			MID:       pick("UPICOLLECT_MID", f.mid),
			PublicKey: pick("UPICOLLECT_PUBLIC_KEY", f.pk),
			SecretKey: pick("UPICOLLECT_SECRET_KEY", f.sk),
		}),
		sandbox.WithPublicURL(f.publicURL),
		sandbox.WithVariant(f.variants...),
		sandbox.WithIntentTTL(f.intentTTL),
		sandbox.WithLatency(f.latency),
	}
	switch f.shape {
	case "", "spec":
	case "data-status":
		opts = append(opts, sandbox.WithVariant(sandbox.VariantStatusInData))
	case "bare":
		opts = append(opts, sandbox.WithVariant(sandbox.VariantStatusBare))
	default:
		return nil, fmt.Errorf("unknown status shape %q (use --variant)", f.shape)
	}
	for _, spec := range f.faults {
		fault, err := sandbox.ParseFault(spec)
		if err != nil {
			return nil, err
		}
		opts = append(opts, sandbox.WithFault(fault))
	}
	if f.strict {
		opts = append(opts, sandbox.Strict())
	}
	if !f.quiet {
		opts = append(opts, sandbox.WithLogger(logger))
	}
	return opts, nil
}

// runSandbox serves the sandbox until ctx ends (SIGINT or SIGTERM).
func runSandbox(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, err := parseSandboxFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil { // the flag package or parseSandboxFlags said why
		return exitUsage
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	opts, err := f.options(os.Getenv, logger)
	if err != nil {
		fmt.Fprintln(stderr, "upicollect sandbox:", err)
		return exitUsage
	}
	s, err := sandbox.Listen(f.addr, opts...)
	if err != nil {
		fmt.Fprintln(stderr, "upicollect sandbox:", err)
		if strings.HasPrefix(err.Error(), "sandbox:") {
			return exitUsage // a bad variant or option, not the network
		}
		return exitFailure
	}
	defer s.Close()
	c := s.Credentials()
	line, _ := json.Marshal(sandboxInfo{BaseURL: s.URL(), MID: c.MID, PublicKey: c.PublicKey, SecretKey: c.SecretKey})
	if _, err := fmt.Fprintf(stdout, "%s\n", line); err != nil {
		fmt.Fprintln(stderr, "upicollect sandbox:", err)
		return exitFailure
	}
	logger.Info("sandbox serving",
		"api_base_url", s.URL(),
		"order_list_page", s.URL()+"/",
		"orders_json", s.URL()+"/sandbox/orders",
		"pay_endpoint", s.URL()+"/sandbox/orders/{order_id}/pay",
		"variants_endpoint", s.URL()+"/sandbox/variants",
		"faults_endpoint", s.URL()+"/sandbox/faults")
	<-ctx.Done()
	start := time.Now()
	s.Close()
	logger.Info("sandbox stopped", "took", time.Since(start).Round(time.Millisecond))
	return exitOK
}
