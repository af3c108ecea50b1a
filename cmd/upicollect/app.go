package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// app is one run of the command line: its streams, environment and the
// state its command leaves behind. Every run builds a fresh app and a fresh
// command tree, so that tests may call run many times.
type app struct {
	ctx       context.Context
	stdin     io.Reader
	stdout    io.Writer // redacting: see secrets
	stderr    io.Writer // redacting: see secrets
	getenv    func(string) string
	now       func() time.Time // the clock of progress rates; tests set their own
	stderrTTY bool             // stderr is a terminal: the spinner may draw on it
	stdoutTTY bool             // stdout is a terminal: what stderr draws must make way for its lines

	secrets *secrets // credentials never printed, set once they are read
	json    bool     // --json on the command that ran
	ran     bool     // a command's own code started; errors before it are usage errors
}

func newApp(ctx context.Context, stdin io.Reader, getenv func(string) string, stdout, stderr io.Writer) *app {
	s := &secrets{}
	return &app{
		ctx:       ctx,
		stdin:     stdin,
		stdout:    &redactWriter{w: stdout, secrets: s},
		stderr:    &redactWriter{w: stderr, secrets: s},
		getenv:    getenv,
		now:       time.Now,
		stderrTTY: isTerminal(stderr),
		stdoutTTY: isTerminal(stdout),
		secrets:   s,
	}
}

// execute runs args and returns the exit code, reporting a failure once:
// as a JSON error document on stdout with --json, as a line on stderr
// without. Every exit code but 0 comes from the error the command returned
// (see exitError).
func (a *app) execute(args []string) int {
	root := a.newRoot()
	if len(args) == 0 {
		root.SetOut(a.stderr)
		_ = root.Usage()
		return exitUsage
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	ownText := !a.ran // cobra's and pflag's own words: a suggestion spans lines
	if ownText {
		err = usageError(err)
	}
	code, kind := a.classify(err)
	var ee *exitError
	if errors.As(err, &ee) && ee.err == nil {
		return code // the command said all there is to say
	}
	msg := errorMessage(cmd, err)
	if kind == kindInterrupted && !strings.HasPrefix(msg, "interrupted") {
		msg = "interrupted: " + msg
	}
	if a.json || wantsJSON(args) {
		_ = a.printJSON(errorJSON{errorBody{Kind: kind, Message: msg}})
		return code
	}
	text := humanError(cmd, err, msg) // escaped: see humanError
	if ownText {
		text = multilineSafe(msg)
	}
	fmt.Fprintf(a.stderr, "upicollect: %s\n", text)
	if code == exitUsage && kind == kindUsage {
		fmt.Fprintf(a.stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return code
}

// runE marks the start of a command's own code (so that its errors are not
// taken for usage errors) and runs fn.
func (a *app) runE(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		a.ran = true
		return fn(cmd, args)
	}
}

const rootLong = `upicollect creates UPI payments with the Payment Collection Service, checks
and waits for their status, draws UPI links as QR codes and serves a local
sandbox of the service.

Credentials come from the environment (see 'upicollect help environment');
exit codes are listed by 'upicollect help exit-codes'.`

const rootExample = `  # terminal 1: a local sandbox of the service
  upicollect sandbox

  # terminal 2
  export UPICOLLECT_BASE_URL=http://127.0.0.1:8787 UPICOLLECT_MID=... UPICOLLECT_PUBLIC_KEY=... UPICOLLECT_SECRET_KEY=...
  upicollect intent --amount 499 --note "Order 42" --name "Ravi Kumar" --email ravi@example.com \
    --mobile 9876543210 --redirect-url https://shop.example/thanks --qr
  upicollect wait ORDER_ID`

func (a *app) newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "upicollect",
		Short:         "Collect UPI payments from the shell",
		Long:          rootLong,
		Example:       rootExample,
		Version:       cliVersion(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetVersionTemplate("upicollect {{.Version}}\n")
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetContext(a.ctx)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	root.AddCommand(
		a.intentCmd(), a.requestCmd(), a.orderCmd(), a.linkCmd(), a.statusCmd(), a.waitCmd(),
		a.qrCmd(), a.reconcileCmd(), a.sandboxCmd(), a.versionCmd(),
	)
	root.AddCommand(helpTopics()...)
	withPlainBoolFlags(root)
	return root
}

// wantsJSON reports whether args ask for --json, for errors raised before
// the flags were parsed.
func wantsJSON(args []string) bool {
	for _, s := range args {
		switch {
		case s == "--":
			return false
		case s == "--json", strings.HasPrefix(s, "--json=") && s != "--json=false" && s != "--json=0":
			return true
		}
	}
	return false
}
