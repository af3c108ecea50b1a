package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/upicollect/upicollect-go/upilink"
)

// maxQRInput bounds what qr reads from stdin: a QR code holds under 3 KB.
const maxQRInput = 4096

func (a *app) qrCmd() *cobra.Command {
	var (
		pngFile string
		size    int
		force   bool
	)
	cmd := &cobra.Command{
		Use:   "qr LINK|-",
		Short: "Draw a UPI link as a QR code, on the terminal or as a PNG",
		Long: `Draw LINK (or the first line of standard input with -) as a QR code that a
phone's camera or UPI app can scan: with Unicode half blocks on the terminal,
or as a PNG image with --png FILE (--png - writes the image to stdout).

A upi: link is checked first: one that a payer's app would misread is
refused (--force draws it anyway), and what is legal but known to fail in
payers' apps is listed on stderr.`,
		Example: `  upicollect qr 'upi://pay?pa=shop@okaxis&pn=Shop&am=499.00&cu=INR'
  upicollect intent ... --json | jq -r .link | upicollect qr - --png pay.png`,
		Args:              exactArgs("LINK or -"),
		ValidArgsFunction: cobra.NoFileCompletions, // order IDs and links are not files
		RunE: a.runE(func(_ *cobra.Command, args []string) error {
			text, err := a.qrInput(args[0])
			if err != nil {
				return err
			}
			if err := a.lintUPI(text, force); err != nil {
				return err
			}
			if pngFile == "" {
				qr, err := qrTerminal(text)
				if err != nil {
					return usageError(err)
				}
				_, err = io.WriteString(a.stdout, qr)
				return err
			}
			img, err := qrPNG(text, size)
			if err != nil {
				return usageError(err)
			}
			if pngFile == "-" {
				_, err := a.stdout.Write(img)
				return err
			}
			if err := os.WriteFile(pngFile, img, 0o644); err != nil {
				return err
			}
			return writeLine(a.stderr, "wrote "+pngFile)
		}),
	}
	cmd.Flags().StringVar(&pngFile, "png", "", "write a PNG image to `FILE` instead (- for stdout)")
	cmd.Flags().IntVar(&size, "size", 512, "PNG width and height in pixels")
	cmd.Flags().BoolVar(&force, "force", false, "draw a upi: link even when it cannot be read as one")
	return cmd
}

// lintUPI checks text when it is a upi: link: a link upilink.Parse refuses
// is an error unless force, and each problem Lint finds is a warning on
// stderr. Other text (an app's own link, any URL) is drawn as it is.
func (a *app) lintUPI(text string, force bool) error {
	scheme, _, ok := strings.Cut(text, ":")
	if !ok || !strings.EqualFold(scheme, "upi") {
		return nil
	}
	l, err := upilink.Parse(text)
	switch {
	case err != nil && force:
		return writeLine(a.stderr, "upicollect: warning: drawn anyway (--force): "+terminalSafe(err.Error()))
	case err != nil:
		return usageError(fmt.Errorf("not a UPI link a payer's app can read: %w (--force draws it anyway)", err))
	}
	for _, p := range l.Lint() {
		if err := writeLine(a.stderr, "upicollect: warning: "+terminalSafe(p.Param+": "+p.Message)); err != nil {
			return err
		}
	}
	return nil
}

// qrInput is the text to encode: arg itself, or stdin's first line for "-".
func (a *app) qrInput(arg string) (string, error) {
	text := arg
	if arg == "-" {
		b, err := a.readStdin(maxQRInput + 1)
		if err != nil {
			return "", err
		}
		if len(b) > maxQRInput {
			return "", usageError(fmt.Errorf("input longer than %d bytes: too long for a QR code", maxQRInput))
		}
		text, _, _ = strings.Cut(string(b), "\n")
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return "", usageError(errors.New("nothing to encode"))
	}
	return text, nil
}

// readStdin reads up to n bytes of stdin, or stops when the run's context
// ends: Ctrl-C must work while a terminal waits for input.
func (a *app) readStdin(n int64) ([]byte, error) {
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(a.stdin, n))
		done <- read{b, err}
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-a.ctx.Done():
		return nil, a.ctx.Err()
	}
}
