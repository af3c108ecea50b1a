package main

import (
	"context"
	"io"

	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/qr"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/root"
	sandboxcmd "github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/sandbox"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/sandbox"
)

// The exit codes, error kinds and environment names the end-to-end tests
// assert on, by the names the tests were written with.
const (
	exitOK            = cmdutil.ExitOK
	exitFailure       = cmdutil.ExitFailure
	exitUsage         = cmdutil.ExitUsage
	exitRefused       = cmdutil.ExitRefused
	exitUnauthorized  = cmdutil.ExitUnauthorized
	exitUnknown       = cmdutil.ExitUnknown
	exitPaymentFailed = cmdutil.ExitPaymentFailed
	exitInterrupted   = cmdutil.ExitInterrupted

	envBaseURL   = cmdutil.EnvBaseURL
	envMID       = cmdutil.EnvMID
	envPublicKey = cmdutil.EnvPublicKey
	envSecretKey = cmdutil.EnvSecretKey
	// envDSN and envWebhookSecret are the reconcile command's variables.
	envDSN           = "UPICOLLECT_RECONCILE_DSN"
	envWebhookSecret = "UPICOLLECT_WEBHOOK_SECRET"

	kindUsage   = cmdutil.KindUsage
	kindRefused = cmdutil.KindRefused

	maxSecretFile = cmdutil.MaxSecretFile
	clearLine     = "\r\x1b[2K"
)

// kindTransport is the SDK's word for a call that got no answer.
var kindTransport = cmdutil.KindTransport

// unsafeRune reports whether r must not reach a terminal as it is.
func unsafeRune(r rune) bool { return !upicollect.SafeToShow(r) }

// newFactory is the Factory of an in-process run, with getenv as its whole
// environment.
func newFactory(ctx context.Context, stdin io.Reader, getenv func(string) string, stdout, stderr io.Writer) *cmdutil.Factory {
	return cmdutil.New(ctx, stdin, stdout, stderr, getenv)
}

// sandboxInfo is the JSON line `upicollect sandbox` prints.
type sandboxInfo = sandbox.Info

// wantsJSON reports whether args ask for --json.
func wantsJSON(args []string) bool { return root.WantsJSON(args) }

// maxQRInput bounds what `upicollect qr -` reads.
const maxQRInput = qr.MaxInput

// clockJSON is what `upicollect sandbox advance --json` prints.
type clockJSON = sandboxcmd.ClockJSON
