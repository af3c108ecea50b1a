// Package qr is `upicollect qr`: draw a UPI link as a QR code, on the
// terminal or as a PNG.
package qr

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/sandbox"
	"github.com/upicollect/upicollect-go/upilink"
)

// MaxInput bounds what qr reads from stdin: a QR code holds under 3 KB.
const MaxInput = 4096

// QROptions are what `upicollect qr` runs with.
type QROptions struct {
	IO  *iostreams.IOStreams
	Ctx context.Context

	Arg     string // LINK, or - for standard input
	PNGFile string
	Size    int
	Force   bool
}

// NewCmdQR is `upicollect qr`; runF, when not nil, runs instead of qrRun
// (tests).
func NewCmdQR(f *cmdutil.Factory, runF func(*QROptions) error) *cobra.Command {
	opts := &QROptions{IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "qr LINK|-",
		Short: "Draw a UPI link as a QR code, on the terminal or as a PNG",
		Long: `Draw LINK (or the first line of standard input with -) as a QR code that a
phone's camera or UPI app can scan: with Unicode half blocks on the terminal,
or as a PNG image with --png FILE (--png - writes the image to stdout).

A upi: link is checked first: one that a payer's app would misread is
refused (--force draws it anyway), and what is legal but known to fail in
payers' apps is listed on stderr. The sandbox's own links (to
sandbox.merchant@upicollect) name the order as tr without a merchant code,
as the service's do, and are not warned about for that.`,
		Example: `  upicollect qr 'upi://pay?pa=shop@okaxis&pn=Shop&am=499.00&cu=INR'
  upicollect intent ... --json | jq -r .link | upicollect qr - --png pay.png`,
		Args:              cmdutil.ExactArgs("LINK or -"),
		ValidArgsFunction: cobra.NoFileCompletions, // order IDs and links are not files
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx = cmd.Context()
			opts.Arg = args[0]
			if runF != nil {
				return runF(opts)
			}
			return qrRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.PNGFile, "png", "", "write a PNG image to `FILE` instead (- for stdout)")
	cmd.Flags().IntVar(&opts.Size, "size", 512, "PNG width and height in pixels")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "draw a upi: link even when it cannot be read as one")
	return cmd
}

func qrRun(opts *QROptions) error {
	text, err := input(opts.Ctx, opts.IO.In, opts.Arg)
	if err != nil {
		return err
	}
	if err := lintUPI(opts.IO, text, opts.Force); err != nil {
		return err
	}
	if opts.PNGFile == "" {
		code, err := Terminal(text)
		if err != nil {
			return cmdutil.UsageError(err)
		}
		_, err = io.WriteString(opts.IO.Out, code)
		return err
	}
	img, err := drawPNG(text, opts.Size)
	if err != nil {
		return cmdutil.UsageError(err)
	}
	if opts.PNGFile == "-" {
		_, err := opts.IO.Out.Write(img)
		return err
	}
	if err := os.WriteFile(opts.PNGFile, img, 0o644); err != nil {
		return err
	}
	return iostreams.WriteLine(opts.IO.ErrOut, "wrote "+opts.PNGFile)
}

// lintUPI checks text when it is a upi: link: a link upilink.Parse refuses
// is an error unless force, and each problem Lint finds is a warning on
// stderr. Other text (an app's own link, any URL) is drawn as it is.
func lintUPI(ios *iostreams.IOStreams, text string, force bool) error {
	scheme, _, ok := strings.Cut(text, ":")
	if !ok || !strings.EqualFold(scheme, "upi") {
		return nil
	}
	l, err := upilink.Parse(text)
	switch {
	case err != nil && force:
		return iostreams.WriteLine(ios.ErrOut, "upicollect: warning: drawn anyway (--force): "+iostreams.TerminalSafe(err.Error()))
	case err != nil:
		return cmdutil.UsageError(fmt.Errorf("not a UPI link a payer's app can read: %w (--force draws it anyway)", err))
	}
	for _, p := range l.Lint() {
		if p.Param == "mc" && sandboxLink(l) {
			continue
		}
		if err := iostreams.WriteLine(ios.ErrOut, "upicollect: warning: "+iostreams.TerminalSafe(p.Param+": "+p.Message)); err != nil {
			return err
		}
	}
	return nil
}

// sandboxLink reports whether l pays the sandbox's merchant
// (sandbox.DefaultMerchantVPA), as every link `upicollect sandbox` makes
// does. The sandbox writes its links as the service does: the order id as
// the transaction reference and no merchant code, which Lint reports as a
// person-to-person shape ("mc"); that is the service's choice, not a
// mistake in the link, so qr does not warn about it there.
func sandboxLink(l *upilink.Link) bool {
	return strings.EqualFold(l.PayeeVPA, sandbox.DefaultMerchantVPA)
}

// input is the text to encode: arg itself, or stdin's first line for "-".
func input(ctx context.Context, stdin io.Reader, arg string) (string, error) {
	text := arg
	if arg == "-" {
		b, err := readStdin(ctx, stdin, MaxInput+1)
		if err != nil {
			return "", err
		}
		if len(b) > MaxInput {
			return "", cmdutil.UsageError(fmt.Errorf("input longer than %d bytes: too long for a QR code", MaxInput))
		}
		text, _, _ = strings.Cut(string(b), "\n")
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return "", cmdutil.UsageError(errors.New("nothing to encode"))
	}
	return text, nil
}

// readStdin reads up to n bytes of stdin, or stops when ctx, the run's
// context, ends: Ctrl-C must work while a terminal waits for input.
func readStdin(ctx context.Context, stdin io.Reader, n int64) ([]byte, error) {
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(stdin, n))
		done <- read{b, err}
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// drawPNG draws text with upilink.PNG: --size is the image's width in pixels,
// as upilink means it. Its error names the flag, not the function.
func drawPNG(text string, size int) ([]byte, error) {
	img, err := upilink.PNG(text, size)
	if err != nil {
		return nil, errors.New("--size " + strings.TrimPrefix(err.Error(), "upilink: PNG: "))
	}
	return img, nil
}

// Terminal draws text with upilink.Terminal, failing when the text is
// too long for a QR code.
func Terminal(text string) (string, error) {
	out := upilink.Terminal(text)
	if out == "" {
		return "", errors.New("text too long to encode as a QR code")
	}
	return out, nil
}
