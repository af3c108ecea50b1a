// Command upicollect talks to the Payment Collection Service from the shell
// and serves a local sandbox of it.
//
// Usage:
//
//	upicollect <command> [flags] [arguments]
//
// Commands: intent, request, order, link, status, wait, qr, reconcile (run,
// track, show, list, serve), sandbox (with sandbox advance and sandbox pay,
// which drive a running sandbox's clock and payments), version and
// completion; `upicollect help exit-codes` and `upicollect help environment`
// describe the exit codes and the environment. Run `upicollect help` for the
// list and `upicollect <command> --help` for a command's flags and an
// example.
//
// Exit codes: 0 success, 1 unexpected failure, 2 usage or validation,
// 3 the service refused, 4 unauthorized, 5 outcome unknown or wait timed
// out, 6 payment ended FAIL or REJECT, 130 interrupted (143 on SIGTERM).
//
// Each command lives in a package of its own under internal/cmd, built
// from a cmdutil.Factory (streams, configuration, the SDK client).
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/root"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
)

func main() {
	ctx, stop := signalContext()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// signalContext is cancelled by the first SIGINT or SIGTERM, with the
// signal as its cause (see cmdutil.InterruptedCode); commands then shut
// down cleanly. A second signal kills the process as usual.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		if sig, ok := <-sigs; ok {
			signal.Stop(sigs)
			cancel(cmdutil.Signalled{Sig: sig})
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(sigs) // no signal comes after Stop: the goroutine ends
		cancel(nil)
	}
}

// run executes the command line args and returns the exit code; it is main
// without the process, for tests.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return root.Execute(cmdutil.New(ctx, os.Stdin, stdout, stderr, os.Getenv), args)
}
