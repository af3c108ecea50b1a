// Package root is the upicollect command: its tree of commands, its help
// topics, and Execute, which runs a command line and reports its failure
// once, with its exit code.
package root

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/intent"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/link"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/order"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/qr"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/reconcile"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/request"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/sandbox"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/status"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/version"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/wait"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
)

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

// NewCmdRoot is the upicollect command with every command below it.
func NewCmdRoot(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{
		Use:           "upicollect",
		Short:         "Collect UPI payments from the shell",
		Long:          rootLong,
		Example:       rootExample,
		Version:       cmdutil.Version(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetVersionTemplate("upicollect {{.Version}}\n")
	root.SetIn(f.IOStreams.In)
	root.SetOut(f.IOStreams.Out)
	root.SetErr(f.IOStreams.ErrOut)
	root.SetContext(f.Context)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(
		intent.NewCmdIntent(f, nil), request.NewCmdRequest(f, nil), order.NewCmdOrder(f, nil),
		link.NewCmdLink(f, nil), status.NewCmdStatus(f, nil), wait.NewCmdWait(f, nil),
		qr.NewCmdQR(f, nil), reconcile.NewCmdReconcile(f), sandbox.NewCmdSandbox(f, nil),
		version.NewCmdVersion(f, nil),
	)
	root.AddCommand(helpTopics()...)
	withPlainBoolFlags(root)
	return root
}

// Execute runs args with f and returns the exit code, reporting a failure
// once: as a JSON error document on stdout when the command has --json
// set, as a line on stderr otherwise. Every exit code but 0 comes from
// the error the command returned (see cmdutil.Classify).
func Execute(f *cmdutil.Factory, args []string) int {
	ios := f.IOStreams
	root := NewCmdRoot(f)
	if len(args) == 0 {
		root.SetOut(ios.ErrOut)
		_ = root.Usage()
		return cmdutil.ExitUsage
	}
	ran := false // a command's own code started; errors before it are usage errors
	markRun(root, &ran)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return cmdutil.ExitOK
	}
	ownText := !ran // cobra's and pflag's own words: a suggestion spans lines
	if ownText {
		err = cmdutil.UsageError(err)
	}
	code, kind := cmdutil.Classify(f.Context, err)
	var ee *cmdutil.ExitError
	if errors.As(err, &ee) && ee.Err == nil {
		return code // the command said all there is to say
	}
	msg := cmdutil.ErrorMessage(cmd, err)
	if !ownText {
		msg = iostreams.OneLine(msg) // a driver's error over many lines (PostgreSQL's, SQLite's) is one
	}
	if kind == cmdutil.KindInterrupted && !strings.HasPrefix(msg, "interrupted") {
		msg = "interrupted: " + msg
	}
	if jsonSet(cmd) || WantsJSON(args) {
		_ = ios.PrintJSON(cmdutil.ErrorJSON{Error: cmdutil.ErrorBody{Kind: kind, Message: msg}})
		return code
	}
	text := cmdutil.HumanError(cmd, err, msg) // escaped: see HumanError
	if ownText {
		text = iostreams.MultilineSafe(msg)
	}
	fmt.Fprintf(ios.ErrOut, "upicollect: %s\n", text)
	if code == cmdutil.ExitUsage && kind == cmdutil.KindUsage {
		fmt.Fprintf(ios.ErrOut, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return code
}

// markRun makes every command below cmd set *ran when its own code
// starts, so that Execute tells its errors from cobra's usage errors.
func markRun(cmd *cobra.Command, ran *bool) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			*ran = true
			return run(c, args)
		}
	}
	for _, c := range cmd.Commands() {
		markRun(c, ran)
	}
}

// jsonSet reports whether cmd, the command that ran, has its own --json
// set.
func jsonSet(cmd *cobra.Command) bool {
	if cmd == nil || cmd.Flags().Lookup("json") == nil {
		return false
	}
	on, err := cmd.Flags().GetBool("json")
	return err == nil && on
}

// WantsJSON reports whether args ask for --json, for errors raised before
// the flags were parsed.
func WantsJSON(args []string) bool {
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
