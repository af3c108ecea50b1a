// Package sandbox is `upicollect sandbox`: serve a local sandbox of the
// service, and drive a running one's clock and payments (advance, pay).
package sandbox

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/sandbox"
)

// defaultSandboxAddr is where the control commands look for a sandbox
// when told nothing: where `upicollect sandbox` listens by default.
const defaultSandboxAddr = sandbox.DefaultAddr

// SandboxOptions are what `upicollect sandbox` runs with.
type SandboxOptions struct {
	IO  *iostreams.IOStreams
	Ctx context.Context
	// Credentials resolves the MID and keys, flags over environment.
	Credentials func() (upicollect.Credentials, error)
	// Config is the sandbox's own flags, bound by sandbox.ServeConfig's
	// AddFlags: the same as cmd/upicollect-sandbox's.
	Config *sandbox.ServeConfig

	creds cmdutil.CredFlags
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
	sf := &SandboxOptions{IO: f.IOStreams, Config: sandbox.NewServeConfig()}
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
	goFlags := flag.NewFlagSet("sandbox", flag.ContinueOnError)
	sf.Config.AddFlags(goFlags)
	cmd.Flags().AddGoFlagSet(goFlags)
	cmdutil.AddCredFlags(cmd, &sf.creds, ", else the sandbox's")
	return cmd
}

// sandboxRun serves the sandbox with sandbox.Serve until the run's
// context ends (SIGINT or SIGTERM), which is an interruption like any
// other command's.
func sandboxRun(sf *SandboxOptions) error {
	creds, err := sf.Credentials()
	if err != nil {
		return err
	}
	cfg := *sf.Config
	cfg.Credentials = creds
	err = sandbox.Serve(sf.Ctx, &cfg, sf.IO.Out, sf.IO.ErrOut)
	var ce *sandbox.ConfigError
	switch {
	case errors.As(err, &ce):
		return cmdutil.UsageError(err) // a bad variant or option
	case err != nil:
		return err // the network refused, or stdout: exit 1
	}
	return cmdutil.Interrupted(sf.Ctx, errors.New("sandbox stopped"))
}
