package cmdutil

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/sandbox"
)

// testFactory is a Factory over buffers with env as its whole
// environment.
func testFactory(env map[string]string) (f *Factory, out, errOut *iostreams.SyncBuffer) {
	out, errOut = &iostreams.SyncBuffer{}, &iostreams.SyncBuffer{}
	return New(context.Background(), nil, out, errOut, func(k string) string { return env[k] }), out, errOut
}

// sandboxEnv is the environment that points a run at s.
func sandboxEnv(s *sandbox.Server) map[string]string {
	c := s.Credentials()
	return map[string]string{EnvBaseURL: s.URL(), EnvMID: c.MID, EnvPublicKey: c.PublicKey, EnvSecretKey: c.SecretKey}
}

// TestCallOnce: the call's result is shown; a client that cannot be built
// or a call that fails is the command's error and nothing is shown; under
// --dry-run the request is printed, nothing reaches the service and the
// result is not shown.
func TestCallOnce(t *testing.T) {
	s := sandbox.Start(t)
	const order = "ord_callonce_1"
	badKey := sandboxEnv(s)
	badKey[EnvSecretKey] = "sk_wrong"
	tests := []struct {
		name    string
		env     map[string]string
		flags   ConnFlags
		jsonOut bool
		orderID string
		wantErr func(*testing.T, error)
		shown   bool
		out     func(*testing.T, string)
		sent    int // requests the sandbox saw
	}{
		{
			name: "result shown", env: sandboxEnv(s), orderID: order, shown: true, sent: 1,
			out: func(t *testing.T, out string) { assert.Equal(t, "shown "+order+"\n", out) },
		},
		{
			name: "no client", env: map[string]string{}, orderID: order,
			wantErr: func(t *testing.T, err error) {
				code, kind := Classify(context.Background(), err)
				assert.Equal(t, ExitUsage, code)
				assert.Equal(t, KindUsage, kind)
				assert.Contains(t, err.Error(), "missing "+EnvBaseURL)
			},
			out: func(t *testing.T, out string) { assert.Empty(t, out) },
		},
		{
			name: "call fails", env: badKey, orderID: order, sent: 1,
			wantErr: func(t *testing.T, err error) {
				assert.ErrorIs(t, err, upicollect.ErrUnauthorized)
				code, _ := Classify(context.Background(), err)
				assert.Equal(t, ExitUnauthorized, code)
			},
			out: func(t *testing.T, out string) { assert.Empty(t, out) },
		},
		{
			name: "dry run", env: sandboxEnv(s), flags: ConnFlags{DryRun: true}, orderID: order,
			out: func(t *testing.T, out string) {
				assert.Contains(t, out, "POST "+s.URL()+"/v1/payments/")
				assert.Contains(t, out, "Authorization: Basic [REDACTED]\n")
				assert.Contains(t, out, "order_id="+order)
				assert.Contains(t, out, "\n\n(dry run: nothing sent)\n")
				assert.NotContains(t, out, s.Credentials().SecretKey)
				assert.NotContains(t, out, "shown")
			},
		},
		{
			name: "dry run json", env: sandboxEnv(s), flags: ConnFlags{DryRun: true}, jsonOut: true, orderID: order,
			out: func(t *testing.T, out string) {
				var doc dryRunJSON
				require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
				assert.Equal(t, "POST", doc.Method)
				assert.Equal(t, order, doc.Form["order_id"])
				assert.Equal(t, "Basic [REDACTED]", doc.Headers["Authorization"])
			},
		},
		{
			name: "dry run refused before any request", env: sandboxEnv(s), flags: ConnFlags{DryRun: true}, orderID: "",
			wantErr: func(t *testing.T, err error) {
				var ve *upicollect.ValidationError
				assert.ErrorAs(t, err, &ve)
			},
			out: func(t *testing.T, out string) { assert.Empty(t, out) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.Clear(sandbox.RecordedRequests)
			f, out, _ := testFactory(tt.env)
			calls, shown := 0, 0
			err := CallOnce(f.IOStreams, tt.jsonOut, func() (*upicollect.Client, *DryRun, error) { return f.Client(&tt.flags) },
				func(c *upicollect.Client) (*upicollect.PaymentStatus, error) {
					calls++
					return c.CheckPaymentStatus(context.Background(), tt.orderID)
				},
				func(st *upicollect.PaymentStatus) error {
					shown++
					return iostreams.WriteLine(f.IOStreams.Out, "shown "+st.OrderID)
				})
			if tt.wantErr == nil {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				tt.wantErr(t, err)
			}
			if tt.shown {
				assert.Equal(t, 1, shown)
			} else {
				assert.Zero(t, shown)
			}
			if tt.name == "no client" {
				assert.Zero(t, calls, "no call without a client")
			} else {
				assert.Equal(t, 1, calls)
			}
			tt.out(t, out.String())
			assert.Len(t, s.Requests(), tt.sent)
		})
	}

	// What show returns is the command's error.
	f, _, _ := testFactory(sandboxEnv(s))
	errShow := errors.New("show failed")
	err := CallOnce(f.IOStreams, false, func() (*upicollect.Client, *DryRun, error) { return f.Client(&ConnFlags{}) },
		func(c *upicollect.Client) (*upicollect.PaymentStatus, error) {
			return c.CheckPaymentStatus(context.Background(), order)
		},
		func(*upicollect.PaymentStatus) error { return errShow })
	assert.ErrorIs(t, err, errShow)
}

func TestPrintPayPage(t *testing.T) {
	p := PayPageJSON{OrderID: "ORD-1", PaymentURL: "https://pay.example/p?id=1&x=2", Message: ""}
	f, out, _ := testFactory(nil)
	require.NoError(t, PrintPayPage(f.IOStreams, true, p))
	assert.Equal(t, `{"order_id":"ORD-1","payment_url":"https://pay.example/p?id=1&x=2","message":""}`+"\n", out.String())

	f, out, _ = testFactory(nil)
	p.Message = "created\x1b[2J"
	require.NoError(t, PrintPayPage(f.IOStreams, false, p))
	assert.Equal(t, "Order    ORD-1\nPay at   https://pay.example/p?id=1&x=2\nMessage  created\\x1b[2J\n", out.String())
}
