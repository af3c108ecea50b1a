package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

// defaultSandboxAddr is fixed so that scripts and the quickstart can find a
// sandbox started by hand without reading its output.
const defaultSandboxAddr = "127.0.0.1:8787"

// sandboxInfo is the one JSON line printed on stdout: what a script needs
// to talk to the sandbox. Printing the secret is intended: it is fake.
type sandboxInfo struct {
	BaseURL   string `json:"base_url"`
	MID       string `json:"mid"`
	PublicKey string `json:"public_key"`
	SecretKey string `json:"secret_key"`
}

// sandboxFlags are the flags of `upicollect sandbox`.
type sandboxFlags struct {
	creds              credFlags
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

func (a *app) sandboxCmd() *cobra.Command {
	var sf sandboxFlags
	cmd := &cobra.Command{
		Use:     "sandbox",
		Short:   "Serve a local sandbox of the service",
		Long:    fmt.Sprintf(sandboxLong, strings.Join(sandbox.VariantNames(), ", ")),
		Example: sandboxExample,
		Args:    unknownSubcommand,
		RunE:    a.runE(func(*cobra.Command, []string) error { return a.serveSandbox(&sf) }),
	}
	cmd.AddCommand(a.sandboxAdvanceCmd(), a.sandboxPayCmd())
	f := cmd.Flags()
	f.StringVar(&sf.addr, "addr", defaultSandboxAddr, "`HOST:PORT` to listen on (port 0: any free port)")
	addCredFlags(cmd, &sf.creds, ", else the sandbox's")
	f.StringVar(&sf.publicURL, "public-url", "", "base `URL` for links in answers (default: the request's host)")
	f.StringArrayVar(&sf.variants, "variant", nil, "switch on an answer variant `NAME` (repeatable)")
	f.StringArrayVar(&sf.faults, "fault", nil, "queue a scripted fault `SPEC` (repeatable; see above)")
	f.BoolVar(&sf.strict, "strict", false, "refuse unknown fields and JSON nulls (the live service ignores them)")
	f.DurationVar(&sf.intentTTL, "intent-ttl", sandbox.DefaultIntentTTL, "how long an intent can be paid")
	f.BoolVar(&sf.quiet, "quiet", false, "log nothing per request")
	f.DurationVar(&sf.latency, "latency", 0, "delay every API answer by this much")
	f.Float64Var(&sf.rateLimit, "rate-limit", 0, "answer 429 with Retry-After beyond `N` requests a second, as a live quota does (0: no limit)")
	return cmd
}

// options turns the flags into sandbox options.
func (sf *sandboxFlags) options(creds upicollect.Credentials, logger *slog.Logger) ([]sandbox.Option, error) {
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

// serveSandbox serves the sandbox until the run's context ends (SIGINT or
// SIGTERM), which is an interruption like any other command's.
func (a *app) serveSandbox(sf *sandboxFlags) error {
	creds, err := a.credentials(&sf.creds)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(a.stderr, nil))
	opts, err := sf.options(creds, logger)
	if err != nil {
		return usageError(err)
	}
	s, err := sandbox.Listen(sf.addr, opts...)
	if err != nil {
		var opErr *net.OpError
		if errors.As(err, &opErr) {
			return err // the network refused: exit 1
		}
		return usageError(err) // a bad variant or option
	}
	defer s.Close()
	c := s.Credentials()
	line, _ := json.Marshal(sandboxInfo{BaseURL: s.URL(), MID: c.MID, PublicKey: c.PublicKey, SecretKey: c.SecretKey})
	if _, err := fmt.Fprintf(a.stdout, "%s\n", line); err != nil {
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
	<-a.ctx.Done()
	start := time.Now()
	s.Close()
	logger.Info("sandbox stopped", "took", time.Since(start).Round(time.Millisecond))
	return interrupted(a.ctx, errors.New("sandbox stopped"))
}

// unknownSubcommand refuses arguments to a command that serves without
// any and has subcommands, suggesting the subcommand a typo meant as
// cobra does for the root's ("sandbox advanc" → advance).
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t") + "\n"
	}
	return errors.New(msg)
}
