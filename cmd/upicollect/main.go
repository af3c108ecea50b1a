// Command upicollect talks to the Payment Collection Service from the shell
// and serves a local sandbox of it.
//
// Usage:
//
//	upicollect <command> [flags] [arguments]
//
// Commands: intent, request, link, status, wait, qr, sandbox, version and
// completion; `upicollect help exit-codes` and `upicollect help environment`
// describe the exit codes and the environment. Run `upicollect help` for the
// list and `upicollect <command> --help` for a command's flags and an
// example.
//
// Exit codes: 0 success, 1 unexpected failure, 2 usage or validation,
// 3 the service refused, 4 unauthorized, 5 outcome unknown or wait timed
// out, 6 payment ended FAIL or REJECT, 130 interrupted.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes, shared by every command.
const (
	exitOK            = 0
	exitFailure       = 1
	exitUsage         = 2
	exitRefused       = 3
	exitUnauthorized  = 4
	exitUnknown       = 5
	exitPaymentFailed = 6
	exitInterrupted   = 130 // 128 + SIGINT, as shells report it
)

// command is a subcommand that parses its own flags: run gets the arguments
// after the command's name and returns the exit code. Files register such
// commands in init (see register); they appear in help like the others.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

// commands holds the self-parsing subcommands by name.
var commands = map[string]command{}

// register adds a self-parsing subcommand; each file registers its own in
// init so that adding one touches no other file.
func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("upicollect: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

func main() {
	// The first SIGINT or SIGTERM cancels ctx; commands shut down cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes the command line args and returns the exit code; it is main
// without the process, for tests.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return newApp(ctx, stdout, stderr).execute(args)
}
