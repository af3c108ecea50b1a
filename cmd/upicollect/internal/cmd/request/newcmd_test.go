package request

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
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

// customer are the create flags every create shares.
var customer = []string{"--amount", "499", "--note", "Order 42", "--name", "Ravi Kumar",
	"--email", "ravi@example.com", "--mobile", "9876543210"}

// fullCreate is what customer sets.
var fullCreate = cmdutil.CreateFlags{Amount: upicollect.Rupees(499), Note: "Order 42",
	Customer: upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"}}

// connFlags are flags that set every connection setting, with the secret
// key in a file of t's, and what they set.
func connFlags(t *testing.T) ([]string, cmdutil.ConnFlags) {
	secret := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secret, []byte("sk\n"), 0o600))
	return []string{"--base-url", "http://127.0.0.1:9", "--mid", "M", "--public-key", "P", "--secret-file", secret, "--dry-run"},
		cmdutil.ConnFlags{BaseURL: "http://127.0.0.1:9", DryRun: true,
			CredFlags: cmdutil.CredFlags{MID: "M", PublicKey: "P", SecretFile: secret}}
}

// dryRunHead is what --dry-run prints before the form of a POST to op.
func dryRunHead(base, op string) string {
	return "POST " + base + "/v1/payments/" + op + "\n" +
		"Accept: application/json\nAuthorization: Basic [REDACTED]\nContent-Type: application/x-www-form-urlencoded\n" +
		"User-Agent: upicollect-go/" + upicollect.Version + " (" + runtime.Version() + ") upicollect-cli/" + cmdutil.Version() + "\n\n"
}

func TestNewCmdRequest(t *testing.T) {
	connArgs, conn := connFlags(t)
	tests := []struct {
		name    string
		args    []string
		want    RequestOptions
		wantErr string
	}{
		{name: "defaults", args: nil, want: RequestOptions{}},
		{name: "create flags", args: customer, want: RequestOptions{Create: fullCreate}},
		{name: "rupees to paise", args: []string{"--amount", "1.08"}, want: RequestOptions{Create: cmdutil.CreateFlags{Amount: 108}}},
		{name: "order and vpa", args: []string{"--order-id", "o-3", "--vpa", "ravi@okaxis"}, want: RequestOptions{OrderID: "o-3", VPA: "ravi@okaxis"}},
		{name: "json", args: []string{"--json"}, want: RequestOptions{JSON: true}},
		{name: "connection", args: connArgs, want: RequestOptions{Conn: conn}},
		{name: "bad amount names the flag", args: []string{"--amount", "4.999"}, wantErr: `invalid argument "4.999" for "--amount" flag`},
		{name: "argument", args: []string{"o-1"}, wantErr: `unknown command "o-1" for "request"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, stdout, _ := testFactory(nil)
			var got *RequestOptions
			cmd := NewCmdRequest(f, func(o *RequestOptions) error { got = o; return nil })
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
			require.NotNil(t, got, "runF runs instead of requestRun")
			assert.Empty(t, stdout.String(), "requestRun did not run")
			assert.Same(t, f.IOStreams, got.IO)
			assert.Equal(t, ctx, got.Ctx)
			assert.Equal(t, tt.want.Create, got.Create)
			assert.Equal(t, tt.want.OrderID, got.OrderID)
			assert.Equal(t, tt.want.VPA, got.VPA)
			assert.Equal(t, tt.want.JSON, got.JSON)
			assert.Equal(t, tt.want.Conn, got.Conn)

			// The client is the Factory's, built from the flags when asked.
			require.NotNil(t, got.Client)
			_, _, err = got.Client()
			if tt.want.Conn.BaseURL == "" {
				require.Error(t, err)
				code, kind := cmdutil.Classify(ctx, err)
				assert.Equal(t, cmdutil.ExitUsage, code)
				assert.Equal(t, cmdutil.KindUsage, kind)
				assert.Contains(t, err.Error(), "missing UPICOLLECT_BASE_URL or --base-url")
			} else {
				assert.NoError(t, err)
			}
		})
	}
}

// TestRequestRun creates on a sandbox and checks what is printed and how
// a failure ends.
func TestRequestRun(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stdout string // {{BASE_URL}} stands for the sandbox's URL
		code   int
		kind   string
		errMsg string
	}{
		{name: "human", stdout: "Order    o-3\nPay at   https://sandbox.example/sandbox/pay/o-3\nMessage  Payment request created successfully\n"},
		{name: "json", args: []string{"--json"}, stdout: `{"order_id":"o-3","payment_url":"https://sandbox.example/sandbox/pay/o-3","message":"Payment request created successfully"}` + "\n"},
		{name: "dry run", args: []string{"--dry-run"}, stdout: dryRunHead("{{BASE_URL}}", "createPaymentRequest") +
			"amount=499&customer_email=ravi%40example.com&customer_mobile=9876543210&customer_name=Ravi+Kumar&mid=SANDBOXMID&note=Order+42&order_id=o-3&vpa=ravi%40okaxis\n\n(dry run: nothing sent)\n"},
		{name: "validation", args: []string{"--mobile", "12"}, code: cmdutil.ExitUsage, kind: cmdutil.KindValidation,
			errMsg: "createPaymentRequest: invalid parameters: --mobile: must be a 10-digit mobile number"},
		{name: "missing settings", args: nil, code: cmdutil.ExitUsage, kind: cmdutil.KindUsage,
			errMsg: "missing UPICOLLECT_BASE_URL or --base-url (see 'upicollect help environment')"},
		{name: "refused", args: []string{"--mid", "NOSUCH"}, code: cmdutil.ExitUnauthorized, kind: cmdutil.KindUnauthorized,
			errMsg: "createPaymentRequest: HTTP 401: Invalid mid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, env := startSandbox(t)
			if tt.name == "missing settings" {
				delete(env, cmdutil.EnvBaseURL)
			}
			f, stdout, stderr := testFactory(env)
			cmd := NewCmdRequest(f, nil)
			cmd.SetArgs(append(append(append([]string{}, customer...), []string{"--order-id", "o-3", "--vpa", "ravi@okaxis"}...), tt.args...))
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
			assert.Equal(t, strings.ReplaceAll(tt.stdout, "{{BASE_URL}}", s.URL()), stdout.String())
			assert.Empty(t, stderr.String())
		})
	}
}
