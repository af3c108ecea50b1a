package qr

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdtest"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/upilink"
)

const payLink = "upi://pay?pa=shop@okaxis&pn=Shop&am=499.00&cu=INR"

func TestNewCmdQR(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    QROptions
		wantErr string
	}{
		{name: "defaults", args: []string{payLink}, want: QROptions{Arg: payLink, Size: 512}},
		{name: "stdin", args: []string{"-"}, want: QROptions{Arg: "-", Size: 512}},
		{name: "png", args: []string{payLink, "--png", "pay.png", "--size", "256", "--force"},
			want: QROptions{Arg: payLink, PNGFile: "pay.png", Size: 256, Force: true}},
		{name: "no link", args: nil, wantErr: "missing LINK or -"},
		{name: "two links", args: []string{payLink, payLink}, wantErr: "one LINK or - expected, got 2 arguments"},
		{name: "bad size names the flag", args: []string{payLink, "--size", "big"}, wantErr: `invalid argument "big" for "--size" flag`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, stdout, _ := cmdtest.Factory(nil)
			var got *QROptions
			cmd := NewCmdQR(f, func(o *QROptions) error { got = o; return nil })
			ctx, err := cmdtest.Execute(t, cmd, tt.args...)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			require.NotNil(t, got, "runF runs instead of qrRun")
			assert.Empty(t, stdout.String(), "qrRun did not run")
			assert.Same(t, f.IOStreams, got.IO)
			assert.Equal(t, ctx, got.Ctx)
			assert.Equal(t, tt.want.Arg, got.Arg)
			assert.Equal(t, tt.want.PNGFile, got.PNGFile)
			assert.Equal(t, tt.want.Size, got.Size)
			assert.Equal(t, tt.want.Force, got.Force)
		})
	}
}

// terminal is upilink's drawing of text, which qr prints as it is.
func terminal(t *testing.T, text string) string {
	s := upilink.Terminal(text)
	require.NotEmpty(t, s)
	return s
}

// pngOf is upilink's PNG of text at size.
func pngOf(t *testing.T, text string, size int) string {
	b, err := upilink.PNG(text, size)
	require.NoError(t, err)
	return string(b)
}

// TestQRRun draws links and text from the argument and from stdin, on the
// terminal and as PNG, and checks every refusal.
func TestQRRun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pay.png")
	const twoProblems = "upi://pay?pa=shop@okaxis&pn=Shop&am=499.00&cu=USD&tr=T1"
	tests := []struct {
		name   string
		args   []string
		stdin  io.Reader
		stdout string
		stderr string
		file   string // what file must hold after the run
		code   int    // 0: success
		errMsg string
	}{
		{name: "link", args: []string{payLink}, stdout: terminal(t, payLink)},
		{name: "spaces trimmed", args: []string{"  " + payLink + "\n"}, stdout: terminal(t, payLink)},
		{name: "web link not linted", args: []string{"https://shop.example/pay"}, stdout: terminal(t, "https://shop.example/pay")},
		{name: "stdin's first line", args: []string{"-"}, stdin: strings.NewReader(payLink + "\nsecond line\n"), stdout: terminal(t, payLink)},
		{name: "stdin at the limit", args: []string{"-"}, stdin: strings.NewReader(strings.Repeat("a", MaxInput)),
			code: cmdutil.ExitUsage, errMsg: "text too long to encode as a QR code"},
		{name: "stdin over the limit", args: []string{"-"}, stdin: strings.NewReader(strings.Repeat("a", MaxInput+1)),
			code: cmdutil.ExitUsage, errMsg: "input longer than 4096 bytes: too long for a QR code"},
		{name: "stdin empty", args: []string{"-"}, stdin: strings.NewReader("\nsecond line\n"),
			code: cmdutil.ExitUsage, errMsg: "nothing to encode"},
		{name: "stdin fails", args: []string{"-"}, stdin: iotest.ErrReader(errors.New("disk on fire")),
			code: cmdutil.ExitFailure, errMsg: "disk on fire"},
		{name: "blank argument", args: []string{" "}, code: cmdutil.ExitUsage, errMsg: "nothing to encode"},
		{name: "too long", args: []string{strings.Repeat("a", 3000)}, code: cmdutil.ExitUsage, errMsg: "text too long to encode as a QR code"},
		{name: "unreadable upi link", args: []string{"upi://pay?am=499.00"}, code: cmdutil.ExitUsage,
			errMsg: "not a UPI link a payer's app can read: upilink: pa: missing: a UPI link names its payee (--force draws it anyway)"},
		{name: "forced", args: []string{"upi://pay?am=499.00", "--force"}, stdout: terminal(t, "upi://pay?am=499.00"),
			stderr: "upicollect: warning: drawn anyway (--force): upilink: pa: missing: a UPI link names its payee\n"},
		{name: "every lint problem warned", args: []string{twoProblems}, stdout: terminal(t, twoProblems),
			stderr: "upicollect: warning: mc: a transaction reference without a merchant code\n" +
				"upicollect: warning: cu: currency USD: UPI settles INR only\n"},
		{name: "png on stdout", args: []string{payLink, "--png", "-"}, stdout: pngOf(t, payLink, 512)},
		{name: "png size", args: []string{payLink, "--png", "-", "--size", "200"}, stdout: pngOf(t, payLink, 200)},
		{name: "png file", args: []string{payLink, "--png", file}, stderr: "wrote " + file + "\n", file: pngOf(t, payLink, 512)},
		{name: "png file not writable", args: []string{payLink, "--png", filepath.Join(dir, "none", "pay.png")},
			code: cmdutil.ExitFailure, errMsg: filepath.Join("none", "pay.png")},
		{name: "bad size names the flag", args: []string{payLink, "--png", "-", "--size", "-1"}, code: cmdutil.ExitUsage, errMsg: "--size "},
		{name: "png of unreadable link", args: []string{"upi://pay?am=499.00", "--png", "-"}, code: cmdutil.ExitUsage,
			errMsg: "not a UPI link a payer's app can read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdin := tt.stdin
			if stdin == nil {
				stdin = strings.NewReader("")
			}
			f, stdout, stderr := cmdtest.FactoryStdin(stdin, nil)
			cmd := NewCmdQR(f, nil)
			ctx, err := cmdtest.Execute(t, cmd, tt.args...)
			if tt.code != 0 {
				require.Error(t, err)
				code, _ := cmdutil.Classify(ctx, err)
				assert.Equal(t, tt.code, code)
				assert.Contains(t, err.Error(), tt.errMsg)
				assert.Empty(t, stdout.String(), "nothing drawn")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.stdout, stdout.String())
			assert.Equal(t, tt.stderr, stderr.String())
			if tt.file != "" {
				b, err := os.ReadFile(file)
				require.NoError(t, err)
				assert.Equal(t, tt.file, string(b))
			}
		})
	}
}
