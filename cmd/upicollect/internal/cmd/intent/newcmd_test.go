package intent

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/qr"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/sandbox"
)

// runTimeout bounds every run, so that a hang fails the test.
const runTimeout = 30 * time.Second

// testFactory is the Factory of an in-process run with env as its whole
// environment, its stdout and stderr in buffers.
func testFactory(env map[string]string) (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	f := cmdutil.New(context.Background(), strings.NewReader(""), &stdout, &stderr, func(k string) string { return env[k] })
	return f, &stdout, &stderr
}

// startSandbox is a sandbox whose answers are the same on every run: a
// fixed clock, seeded IDs and a fixed public URL in its links.
func startSandbox(t *testing.T) (*sandbox.Server, map[string]string) {
	s := sandbox.Start(t, sandbox.WithClock(func() time.Time { return time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC) }),
		sandbox.WithSeed(1), sandbox.WithPublicURL("https://sandbox.example"))
	c := s.Credentials()
	return s, map[string]string{cmdutil.EnvBaseURL: s.URL(), cmdutil.EnvMID: c.MID,
		cmdutil.EnvPublicKey: c.PublicKey, cmdutil.EnvSecretKey: c.SecretKey}
}

// customer are the flags of every create but the order ID.
var customer = []string{"--amount", "499", "--note", "Order 42", "--name", "Ravi Kumar",
	"--email", "ravi@example.com", "--mobile", "9876543210", "--redirect-url", "https://shop.example/thanks"}

func TestNewCmdIntent(t *testing.T) {
	full := cmdutil.CreateFlags{Amount: upicollect.Rupees(499), Note: "Order 42",
		Customer: upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"}}
	tests := []struct {
		name    string
		args    []string
		want    IntentOptions
		wantErr string
	}{
		{name: "defaults", args: nil, want: IntentOptions{}},
		{name: "every create flag", args: append([]string{"--order-id", "o-1"}, customer...),
			want: IntentOptions{Create: full, OrderID: "o-1", RedirectURL: "https://shop.example/thanks"}},
		{name: "rupees to paise", args: []string{"--amount", "1.08"}, want: IntentOptions{Create: cmdutil.CreateFlags{Amount: 108}}},
		{name: "qr", args: []string{"--qr"}, want: IntentOptions{ShowQR: true}},
		{name: "json", args: []string{"--json"}, want: IntentOptions{JSON: true}},
		{name: "connection", args: []string{"--base-url", "http://127.0.0.1:9", "--mid", "M", "--public-key", "P",
			"--secret-file", "/dev/null", "--dry-run"},
			want: IntentOptions{Conn: cmdutil.ConnFlags{BaseURL: "http://127.0.0.1:9", DryRun: true,
				CredFlags: cmdutil.CredFlags{MID: "M", PublicKey: "P", SecretFile: "/dev/null"}}}},
		{name: "bad amount names the flag", args: []string{"--amount", "4.999"}, wantErr: `invalid argument "4.999" for "--amount" flag`},
		{name: "qr and json", args: []string{"--qr", "--json"}, wantErr: "[json qr] were all set"},
		{name: "argument", args: []string{"o-1"}, wantErr: `unknown command "o-1" for "intent`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, stdout, _ := testFactory(nil)
			var got *IntentOptions
			cmd := NewCmdIntent(f, func(o *IntentOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SilenceUsage, cmd.SilenceErrors = true, true
			ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
			defer cancel()
			err := cmd.ExecuteContext(ctx)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			require.NotNil(t, got, "runF runs instead of intentRun")
			assert.Empty(t, stdout.String(), "intentRun did not run")
			assert.Same(t, f.IOStreams, got.IO)
			assert.Equal(t, ctx, got.Ctx)
			require.NotNil(t, got.Client)
			assert.Equal(t, tt.want.Create, got.Create)
			assert.Equal(t, tt.want.OrderID, got.OrderID)
			assert.Equal(t, tt.want.RedirectURL, got.RedirectURL)
			assert.Equal(t, tt.want.ShowQR, got.ShowQR)
			assert.Equal(t, tt.want.JSON, got.JSON)
			assert.Equal(t, tt.want.Conn, got.Conn)
		})
	}
}

// TestNewCmdIntentClient: the options' client is the Factory's, built from
// the flags when the command asks for it.
func TestNewCmdIntentClient(t *testing.T) {
	f, _, _ := testFactory(map[string]string{cmdutil.EnvMID: "M"})
	var got *IntentOptions
	cmd := NewCmdIntent(f, func(o *IntentOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--public-key", "P"})
	require.NoError(t, cmd.Execute())
	_, _, err := got.Client()
	require.Error(t, err)
	assert.Equal(t, "missing UPICOLLECT_BASE_URL or --base-url, UPICOLLECT_SECRET_KEY or --secret-file (see 'upicollect help environment')", err.Error())
	code, kind := cmdutil.Classify(context.Background(), err)
	assert.Equal(t, cmdutil.ExitUsage, code)
	assert.Equal(t, cmdutil.KindUsage, kind)
}

const wantLinks = `Link       upi://pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=o-1&tn=Order%2042&cu=INR
  cred     credpay://upi/pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=o-1&tn=Order%2042&cu=INR
  gpay     tez://upi/pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=o-1&tn=Order%2042&cu=INR
  paytm    paytmmp://pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=o-1&tn=Order%2042&cu=INR
  phonepe  phonepe://pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=o-1&tn=Order%2042&cu=INR
QR         https://sandbox.example/sandbox/qr/o-1.png
`

// TestIntentRun creates intents on a sandbox and checks what is printed
// and how a failure ends.
func TestIntentRun(t *testing.T) {
	terminalQR, err := qr.Terminal("upi://pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=o-1&tn=Order%2042&cu=INR")
	require.NoError(t, err)
	human := "Order      o-1\nAmount     ₹499.00\nExpires    2026-11-26T15:35:00+05:30\n" + wantLinks
	tests := []struct {
		name   string
		args   []string
		stdout string // with {{BASE_URL}} and {{GO}} for the sandbox's URL and runtime.Version
		code   int
		kind   string
		errMsg string
	}{
		{name: "human", args: nil, stdout: human},
		{name: "qr", args: []string{"--qr"}, stdout: human + "\n" + terminalQR},
		{name: "json", args: []string{"--json"}, stdout: `{"order_id":"o-1","amount":"499.00",` +
			`"link":"upi://pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=o-1&tn=Order%2042&cu=INR",` +
			`"app_links":{"cred":"credpay://upi/pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=o-1&tn=Order%2042&cu=INR",` +
			`"gpay":"tez://upi/pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=o-1&tn=Order%2042&cu=INR",` +
			`"paytm":"paytmmp://pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=o-1&tn=Order%2042&cu=INR",` +
			`"phonepe":"phonepe://pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=o-1&tn=Order%2042&cu=INR"},` +
			`"dynamic_qr":"https://sandbox.example/sandbox/qr/o-1.png","expires_at":"2026-11-26T15:35:00+05:30",` +
			`"message":"Payment intent created successfully"}` + "\n"},
		{name: "dry run", args: []string{"--dry-run"}, stdout: "POST {{BASE_URL}}/v1/payments/createPaymentIntent\n" +
			"Accept: application/json\nAuthorization: Basic [REDACTED]\nContent-Type: application/x-www-form-urlencoded\n" +
			"User-Agent: upicollect-go/" + upicollect.Version + " ({{GO}}) upicollect-cli/" + cmdutil.Version() + "\n\n" +
			"amount=499&customer_email=ravi%40example.com&customer_mobile=9876543210&customer_name=Ravi+Kumar&mid=SANDBOXMID" +
			"&note=Order+42&order_id=o-1&redirect_url=https%3A%2F%2Fshop.example%2Fthanks\n\n(dry run: nothing sent)\n"},
		{name: "validation names the flag", args: []string{"--mobile", "12"}, code: cmdutil.ExitUsage, kind: cmdutil.KindValidation,
			errMsg: "createPaymentIntent: invalid parameters: --mobile: must be a 10-digit mobile number"},
		{name: "missing settings", args: nil, code: cmdutil.ExitUsage, kind: cmdutil.KindUsage,
			errMsg: "missing UPICOLLECT_BASE_URL or --base-url (see 'upicollect help environment')"},
		{name: "refused", args: []string{"--mid", "NOSUCH"}, code: cmdutil.ExitUnauthorized, kind: cmdutil.KindUnauthorized,
			errMsg: "createPaymentIntent: HTTP 401: Invalid mid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, env := startSandbox(t)
			if tt.name == "missing settings" {
				delete(env, cmdutil.EnvBaseURL)
			}
			f, stdout, stderr := testFactory(env)
			cmd := NewCmdIntent(f, nil)
			cmd.SetArgs(append(append([]string{"--order-id", "o-1"}, customer...), tt.args...))
			cmd.SilenceUsage, cmd.SilenceErrors = true, true
			ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
			defer cancel()
			err := cmd.ExecuteContext(ctx)
			if tt.code != 0 {
				require.Error(t, err)
				code, kind := cmdutil.Classify(ctx, err)
				assert.Equal(t, tt.code, code)
				assert.Equal(t, tt.kind, kind)
				assert.Equal(t, tt.errMsg, cmdutil.ErrorMessage(cmd, err), "the message names the flag to change")
				assert.Empty(t, stdout.String())
				assert.Empty(t, s.Orders(), "nothing was created")
				return
			}
			require.NoError(t, err)
			want := strings.NewReplacer("{{BASE_URL}}", s.URL(), "{{GO}}", runtime.Version()).Replace(tt.stdout)
			assert.Equal(t, want, stdout.String())
			assert.Empty(t, stderr.String())
		})
	}
}
