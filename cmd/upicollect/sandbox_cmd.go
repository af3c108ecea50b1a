package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

// defaultSandboxAddr is fixed so that scripts and the quickstart can find a
// sandbox started by hand without reading its output.
const defaultSandboxAddr = "127.0.0.1:8787"

func init() {
	register(command{name: "sandbox", summary: "serve a local sandbox of the service", run: runSandbox})
}

// sandboxInfo is the one JSON line printed on stdout: what a script needs
// to talk to the sandbox. Printing the secret is intended: it is fake.
type sandboxInfo struct {
	BaseURL   string `json:"base_url"`
	MID       string `json:"mid"`
	PublicKey string `json:"public_key"`
	SecretKey string `json:"secret_key"`
}

// runSandbox serves the sandbox until ctx ends (SIGINT or SIGTERM).
func runSandbox(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("upicollect sandbox", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: upicollect sandbox [flags]\n\n"+
			"Serves a fake Payment Collection Service and prints one JSON line on stdout:\n"+
			`{"base_url":…,"mid":…,"public_key":…,"secret_key":…}`+"\nLogs go to stderr. Stop with Ctrl-C.\n\nFlags:")
		fs.PrintDefaults()
	}
	addr := fs.String("addr", defaultSandboxAddr, "`HOST:PORT` to listen on (port 0: any free port)")
	mid := fs.String("mid", "", "merchant ID (default "+sandbox.DefaultMID+")")
	pk := fs.String("public-key", "", "public key (default random pk_sandbox_…)")
	sk := fs.String("secret-key", "", "secret key (default random sk_sandbox_…)")
	publicURL := fs.String("public-url", "", "base `URL` for links in answers (default: the request's host)")
	shape := fs.String("status-shape", "spec", "status answer shape: spec, data-status or bare")
	nf404 := fs.Bool("not-found-404", false, "answer unknown or unpaid orders with HTTP 404")
	strCode := fs.Bool("string-status-code", false, `write statusCode as a string ("200")`)
	strAmt := fs.Bool("string-amounts", false, `write status amounts as strings ("499.00")`)
	extras := fs.Bool("intent-extras", false, "add cred and merchantName to intent answers")
	latency := fs.Duration("latency", 0, "delay every API answer by this much")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "upicollect sandbox: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	ss, err := sandbox.ParseStatusShape(*shape)
	if err != nil {
		fmt.Fprintln(stderr, "upicollect sandbox:", err)
		return exitUsage
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	s, err := sandbox.Listen(*addr,
		sandbox.WithCredentials(upicollect.Credentials{MID: *mid, PublicKey: *pk, SecretKey: *sk}),
		sandbox.WithPublicURL(*publicURL),
		sandbox.WithVariants(sandbox.Variants{
			StatusShape: ss, NotFound404: *nf404, StringStatusCode: *strCode, StringAmounts: *strAmt, IntentExtras: *extras,
		}),
		sandbox.WithLatency(*latency),
		sandbox.WithLogger(logger),
		sandbox.WithRequestLogLimit(10000), // it may run for days: keep memory bounded
	)
	if err != nil {
		fmt.Fprintln(stderr, "upicollect sandbox:", err)
		return exitFailure
	}
	defer s.Close()
	c := s.Credentials()
	line, _ := json.Marshal(sandboxInfo{BaseURL: s.URL(), MID: c.MID, PublicKey: c.PublicKey, SecretKey: c.SecretKey})
	if _, err := fmt.Fprintf(stdout, "%s\n", line); err != nil {
		fmt.Fprintln(stderr, "upicollect sandbox:", err)
		return exitFailure
	}
	logger.Info("sandbox serving", "base_url", s.URL(), "pay_page", s.URL()+"/", "orders", s.URL()+"/sandbox/orders")
	<-ctx.Done()
	start := time.Now()
	s.Close()
	logger.Info("sandbox stopped", "took", time.Since(start).Round(time.Millisecond))
	return exitOK
}
