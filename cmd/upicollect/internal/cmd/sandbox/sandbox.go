// Package sandbox is `upicollect sandbox`: serve a local sandbox of the
// service, and drive a running one's clock and payments (advance, pay).
package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/sandbox"
)

// defaultSandboxAddr is fixed so that scripts and the quickstart can find a
// sandbox started by hand without reading its output.
const defaultSandboxAddr = "127.0.0.1:8787"

// Info is the one JSON line printed on stdout: what a script needs
// to talk to the sandbox. Printing the secret is intended: it is fake.
type Info struct {
	BaseURL   string `json:"base_url"`
	MID       string `json:"mid"`
	PublicKey string `json:"public_key"`
	SecretKey string `json:"secret_key"`
}

// SandboxOptions are what `upicollect sandbox` runs with.
type SandboxOptions struct {
	IO  *iostreams.IOStreams
	Ctx context.Context
	// Credentials resolves the MID and keys, flags over environment.
	Credentials func() (upicollect.Credentials, error)

	creds              cmdutil.CredFlags
	addr, publicURL    string
	variants, faults   []string
	strict, quiet      bool
	intentTTL, latency time.Duration
	rateLimit          float64
}

const sandboxLong = `Serve a fake Payment Collection Service on the loopback interface and print
one JSON line on stdout:
  {"base_url":…,"mid":…,"public_key":…,"secret_key":…}
The MID and keys come from the flags, else from UPICOLLECT_MID,
UPICOLLECT_PUBLIC_KEY and UPICOLLECT_SECRET_KEY, else the sandbox's defaults
(a random key pair). Logs go to stderr. Stop with Ctrl-C (exit 130).

Variants (--variant NAME, repeatable): %s.

Faults (--fault SPEC, repeatable) are comma-separated key=value pairs. Keys:
op, times, latency, status, header (Name:Value), reset (before|after),
slow_body, huge_body, processed, body (last; takes the rest, commas included).
At run time: GET/POST /sandbox/variants, POST/DELETE /sandbox/faults (JSON).

Sandbox time is real time plus what was advanced: from another shell,
'upicollect sandbox pay ORDER_ID --after 3h' schedules a late payment and
'upicollect sandbox advance 3h' (POST /sandbox/clock) brings it due.`

const sandboxExample = `  upicollect sandbox
  upicollect sandbox --addr 127.0.0.1:0 --variant status-in-data --quiet
  upicollect sandbox --fault op=createPaymentIntent,status=500,times=2
  upicollect sandbox --fault latency=3s --fault status=429,header=Retry-After:2
  upicollect sandbox --rate-limit 10
  upicollect sandbox pay ORDER_ID --result FAIL && upicollect sandbox advance 2h`

// NewCmdSandbox is `upicollect sandbox` with its subcommands advance and
// pay; runF, when not nil, runs instead of sandboxRun (tests).
func NewCmdSandbox(f *cmdutil.Factory, runF func(*SandboxOptions) error) *cobra.Command {
	sf := &SandboxOptions{IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:     "sandbox",
		Short:   "Serve a local sandbox of the service",
		Long:    fmt.Sprintf(sandboxLong, strings.Join(sandbox.VariantNames(), ", ")),
		Example: sandboxExample,
		Args:    cmdutil.UnknownSubcommand,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sf.Ctx = cmd.Context()
			sf.Credentials = func() (upicollect.Credentials, error) { return f.Credentials(&sf.creds) }
			if runF != nil {
				return runF(sf)
			}
			return sandboxRun(sf)
		},
	}
	cmd.AddCommand(NewCmdAdvance(f, nil), NewCmdPay(f, nil))
	fl := cmd.Flags()
	fl.StringVar(&sf.addr, "addr", defaultSandboxAddr, "`HOST:PORT` to listen on (port 0: any free port)")
	cmdutil.AddCredFlags(cmd, &sf.creds, ", else the sandbox's")
	fl.StringVar(&sf.publicURL, "public-url", "", "base `URL` for links in answers (default: the request's host)")
	fl.StringArrayVar(&sf.variants, "variant", nil, "switch on an answer variant `NAME` (repeatable)")
	fl.StringArrayVar(&sf.faults, "fault", nil, "queue a scripted fault `SPEC` (repeatable; see above)")
	fl.BoolVar(&sf.strict, "strict", false, "refuse unknown fields and JSON nulls (the live service ignores them)")
	fl.DurationVar(&sf.intentTTL, "intent-ttl", sandbox.DefaultIntentTTL, "how long an intent can be paid")
	fl.BoolVar(&sf.quiet, "quiet", false, "log nothing per request")
	fl.DurationVar(&sf.latency, "latency", 0, "delay every API answer by this much")
	fl.Float64Var(&sf.rateLimit, "rate-limit", 0, "answer 429 with Retry-After beyond `N` requests a second, as a live quota does (0: no limit)")
	return cmd
}

// options turns the flags into sandbox options.
func (sf *SandboxOptions) options(creds upicollect.Credentials, logger *slog.Logger) ([]sandbox.Option, error) {
	opts := []sandbox.Option{
		sandbox.WithCredentials(creds),
		sandbox.WithPublicURL(sf.publicURL),
		sandbox.WithVariant(sf.variants...),
		sandbox.WithIntentTTL(sf.intentTTL),
		sandbox.WithLatency(sf.latency),
		// Real time, movable forward from a shell: `upicollect sandbox advance`.
		sandbox.WithMovableClock(sandbox.NewOffsetClock(nil)),
	}
	for _, spec := range sf.faults {
		fault, err := sandbox.ParseFault(spec)
		if err != nil {
			return nil, err
		}
		opts = append(opts, sandbox.WithFault(fault))
	}
	if sf.strict {
		opts = append(opts, sandbox.Strict())
	}
	if sf.rateLimit != 0 {
		opts = append(opts, sandbox.WithRateLimit(sf.rateLimit, 0))
	}
	if !sf.quiet {
		opts = append(opts, sandbox.WithLogger(logger))
	}
	return opts, nil
}

// sandboxRun serves the sandbox until the run's context ends (SIGINT or
// SIGTERM), which is an interruption like any other command's.
func sandboxRun(sf *SandboxOptions) error {
	creds, err := sf.Credentials()
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(sf.IO.ErrOut, nil))
	opts, err := sf.options(creds, logger)
	if err != nil {
		return cmdutil.UsageError(err)
	}
	s, err := sandbox.Listen(sf.addr, opts...)
	if err != nil {
		var opErr *net.OpError
		if errors.As(err, &opErr) {
			return err // the network refused: exit 1
		}
		return cmdutil.UsageError(err) // a bad variant or option
	}
	defer s.Close()
	c := s.Credentials()
	line, _ := json.Marshal(Info{BaseURL: s.URL(), MID: c.MID, PublicKey: c.PublicKey, SecretKey: c.SecretKey})
	if _, err := fmt.Fprintf(sf.IO.Out, "%s\n", line); err != nil {
		return err
	}
	logger.Info("sandbox serving",
		"api_base_url", s.URL(),
		"order_list_page", s.URL()+"/",
		"orders_json", s.URL()+"/sandbox/orders",
		"pay_endpoint", s.URL()+"/sandbox/orders/{order_id}/pay",
		"variants_endpoint", s.URL()+"/sandbox/variants",
		"faults_endpoint", s.URL()+"/sandbox/faults",
		"clock_endpoint", s.URL()+"/sandbox/clock")
	<-sf.Ctx.Done()
	start := time.Now()
	s.Close()
	logger.Info("sandbox stopped", "took", time.Since(start).Round(time.Millisecond))
	return cmdutil.Interrupted(sf.Ctx, errors.New("sandbox stopped"))
}
