// Command upicollect talks to the Payment Collection Service from the shell
// and serves a local sandbox of it.
//
// Usage:
//
//	upicollect <command> [flags]
//
// Each command is registered from its own file (sandbox_cmd.go, ...).
// Run `upicollect help` for the list.
//
// Exit codes: 0 success, 1 unexpected failure, 2 usage or validation,
// 3 the service refused, 4 unauthorized, 5 outcome unknown or wait timed
// out, 6 payment ended FAIL or REJECT.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
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
)

// command is one subcommand. run gets the arguments after the command's
// name and returns the exit code.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

// commands holds the subcommands by name; each file registers its own in
// init so that adding one touches no other file.
var commands = map[string]command{}

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

// run dispatches args[0] to its command; it is main without the process,
// for tests.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "upicollect: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return c.run(ctx, args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: upicollect <command> [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'upicollect <command> -h' for a command's flags.")
}
