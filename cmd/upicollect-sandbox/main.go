// Command upicollect-sandbox serves the sandbox of the Payment Collection
// Service on loopback, as `upicollect sandbox` does, and builds from the
// SDK's module alone: no command-line framework, no database driver, so
// that it starts in seconds on a cold build cache.
//
//	go run github.com/upicollect/upicollect-go/cmd/upicollect-sandbox@latest
//
// It takes the same flags and environment as `upicollect sandbox`
// (sandbox.ServeConfig's flags, and --mid, --public-key and --secret-file
// over UPICOLLECT_MID, UPICOLLECT_PUBLIC_KEY and UPICOLLECT_SECRET_KEY)
// and prints the same JSON line on stdout:
//
//	{"base_url":…,"mid":…,"public_key":…,"secret_key":…}
//
// Exit codes: 2 for a usage error, 1 when it cannot serve (the address is
// taken), 130 when stopped by Ctrl-C (143 by SIGTERM).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

// Exit codes, as `upicollect` has them.
const (
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130 // Ctrl-C, or an end of the context without a signal
)

// maxSecretFile bounds what --secret-file reads: a key is a few dozen
// bytes, and a file named by mistake must not be read whole.
const maxSecretFile = 4 << 10

const usageText = `Usage: upicollect-sandbox [flags]

Serve a fake Payment Collection Service on the loopback interface and print
one JSON line on stdout:
  {"base_url":…,"mid":…,"public_key":…,"secret_key":…}
The same sandbox as 'upicollect sandbox', built from the SDK's module alone.
The MID and keys come from the flags, else from UPICOLLECT_MID,
UPICOLLECT_PUBLIC_KEY and UPICOLLECT_SECRET_KEY, else the sandbox's defaults
(a random key pair). Logs go to stderr. Stop with Ctrl-C (exit 130).

Variants (--variant NAME, repeatable): %s.
Faults (--fault SPEC, repeatable): comma-separated key=value pairs, as
'go doc github.com/upicollect/upicollect-go/sandbox ParseFault' lists them.
The clock runs at real time and moves forward only:
POST /sandbox/clock {"advance":"2h"}, or 'upicollect sandbox advance 2h'.

Flags:
`

func main() {
	ctx, stop := signalContext()
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// signalled is the cause of a context ended by a signal.
type signalled struct{ sig os.Signal }

func (s signalled) Error() string { return "interrupted by " + s.sig.String() }

// signalContext is cancelled by the first SIGINT or SIGTERM, with the
// signal as its cause; a second signal kills the process as usual.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		if sig, ok := <-sigs; ok {
			signal.Stop(sigs)
			cancel(signalled{sig})
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(sigs)
		cancel(nil)
	}
}

// interruptedCode is 128 plus the number of the signal that ended ctx, as
// shells report it; 130 when no signal is known.
func interruptedCode(ctx context.Context) int {
	var s signalled
	if errors.As(context.Cause(ctx), &s) {
		if n, ok := s.sig.(syscall.Signal); ok {
			return 128 + int(n)
		}
	}
	return exitInterrupted
}

// run serves the sandbox that args and getenv describe until ctx ends and
// returns the exit code; it is main without the process, for tests.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, err := parse(args, getenv, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "upicollect-sandbox: %v\nRun 'upicollect-sandbox --help' for usage.\n", err)
		return exitUsage
	}
	err = sandbox.Serve(ctx, cfg, stdout, stderr)
	var ce *sandbox.ConfigError
	switch {
	case errors.As(err, &ce):
		fmt.Fprintf(stderr, "upicollect-sandbox: %v\n", err)
		return exitUsage
	case err != nil:
		fmt.Fprintf(stderr, "upicollect-sandbox: %v\n", err)
		return exitFailure
	}
	return interruptedCode(ctx)
}

// parse reads the flags over the environment into a sandbox.ServeConfig,
// before any I/O but --secret-file's. --help prints the usage on stderr
// and returns flag.ErrHelp.
func parse(args []string, getenv func(string) string, stderr io.Writer) (*sandbox.ServeConfig, error) {
	cfg := sandbox.NewServeConfig()
	fs := flag.NewFlagSet("upicollect-sandbox", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, by run
	cfg.AddFlags(fs)
	var mid, publicKey, secretFile, secretKey string
	fs.StringVar(&mid, "mid", "", "merchant `ID` (default $"+upicollect.EnvMID+", else the sandbox's)")
	fs.StringVar(&publicKey, "public-key", "", "public `KEY` (default $"+upicollect.EnvPublicKey+", else the sandbox's)")
	fs.StringVar(&secretFile, "secret-file", "", "read the secret key from `FILE` (default $"+upicollect.EnvSecretKey+", else the sandbox's)")
	fs.StringVar(&secretKey, "secret-key", "", "") // a trap: refused below
	fs.Usage = func() { usage(fs, stderr) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.Usage()
		}
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q: upicollect-sandbox takes flags only", fs.Arg(0))
	}
	if secretKey != "" {
		return nil, errors.New("--secret-key is not accepted: flags show in ps and shell history; set " +
			upicollect.EnvSecretKey + " or use --secret-file FILE")
	}
	cfg.Credentials = upicollect.Credentials{MID: pick(mid, getenv(upicollect.EnvMID)),
		PublicKey: pick(publicKey, getenv(upicollect.EnvPublicKey)), SecretKey: getenv(upicollect.EnvSecretKey)}
	if secretFile != "" {
		sk, err := readSecretFile(secretFile)
		if err != nil {
			return nil, fmt.Errorf("--secret-file: %w", err)
		}
		cfg.Credentials.SecretKey = sk
	}
	return cfg, nil
}

// usage prints the help: what the command does, then every flag but the
// --secret-key trap.
func usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, usageText, strings.Join(sandbox.VariantNames(), ", "))
	fs.VisitAll(func(f *flag.Flag) {
		if f.Usage == "" {
			return
		}
		name, text := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			text += " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(w, "%s\n      %s\n", line, text)
	})
}

// pick is a flag's value, or the environment's when the flag is unset.
func pick(flagValue, env string) string {
	if flagValue != "" {
		return flagValue
	}
	return env
}

// readSecretFile reads a secret from path: its first line, trimmed, of a
// file of at most maxSecretFile bytes.
func readSecretFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxSecretFile {
		return "", fmt.Errorf("%s is larger than %d bytes: not a secret key", path, maxSecretFile)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line), nil
}
