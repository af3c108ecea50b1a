package intent

import (
	"context"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/qr"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdtest"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
)

// redirect is the flag of every create here but the shared ones.
var redirect = []string{"--redirect-url", "https://shop.example/thanks"}

// view is what the shared checks read of IntentOptions.
func view(o *IntentOptions) cmdtest.CreateView {
	return cmdtest.CreateView{IO: o.IO, Ctx: o.Ctx, Client: o.Client, Conn: o.Conn, Create: o.Create, JSON: o.JSON,
		Own: []any{o.OrderID, o.RedirectURL, o.ShowQR}}
}

func TestNewCmdIntent(t *testing.T) {
	connArgs, conn := cmdtest.ConnFlags(t)
	cmdtest.NewCmdCreate(t, "intentRun", NewCmdIntent, view, []cmdtest.CreateCase[IntentOptions]{
		{Name: "defaults", Args: nil, Want: IntentOptions{}},
		{Name: "every create flag", Args: append(append([]string{"--order-id", "o-1"}, cmdtest.Customer...), redirect...),
			Want: IntentOptions{Create: cmdtest.FullCreate, OrderID: "o-1", RedirectURL: "https://shop.example/thanks"}},
		{Name: "rupees to paise", Args: []string{"--amount", "1.08"}, Want: IntentOptions{Create: cmdutil.CreateFlags{Amount: 108}}},
		{Name: "qr", Args: []string{"--qr"}, Want: IntentOptions{ShowQR: true}},
		{Name: "json", Args: []string{"--json"}, Want: IntentOptions{JSON: true}},
		{Name: "connection", Args: connArgs, Want: IntentOptions{Conn: conn}},
		{Name: "bad amount names the flag", Args: []string{"--amount", "4.999"}, WantErr: `invalid argument "4.999" for "--amount" flag`},
		{Name: "qr and json", Args: []string{"--qr", "--json"}, WantErr: "[json qr] were all set"},
		{Name: "argument", Args: []string{"o-1"}, WantErr: `unknown command "o-1" for "intent`},
	})
}

// TestNewCmdIntentClient: the options' client is the Factory's, built from
// the flags when the command asks for it.
func TestNewCmdIntentClient(t *testing.T) {
	f, _, _ := cmdtest.Factory(map[string]string{cmdutil.EnvMID: "M"})
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
	newCmd := func(f *cmdutil.Factory) *cobra.Command { return NewCmdIntent(f, nil) }
	cmdtest.RunCreate(t, newCmd, append([]string{"--order-id", "o-1"}, redirect...), []cmdtest.RunCase{
		{Name: "human", Args: nil, Stdout: human},
		{Name: "qr", Args: []string{"--qr"}, Stdout: human + "\n" + terminalQR},
		{Name: "json", Args: []string{"--json"}, Stdout: `{"order_id":"o-1","amount":"499.00",` +
			`"link":"upi://pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=o-1&tn=Order%2042&cu=INR",` +
			`"app_links":{"cred":"credpay://upi/pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=o-1&tn=Order%2042&cu=INR",` +
			`"gpay":"tez://upi/pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=o-1&tn=Order%2042&cu=INR",` +
			`"paytm":"paytmmp://pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=o-1&tn=Order%2042&cu=INR",` +
			`"phonepe":"phonepe://pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=o-1&tn=Order%2042&cu=INR"},` +
			`"dynamic_qr":"https://sandbox.example/sandbox/qr/o-1.png","expires_at":"2026-11-26T15:35:00+05:30",` +
			`"message":"Payment intent created successfully"}` + "\n"},
		{Name: "dry run", Args: []string{"--dry-run"}, Stdout: cmdtest.DryRunHead("{{BASE_URL}}", "createPaymentIntent") +
			"amount=499&customer_email=ravi%40example.com&customer_mobile=9876543210&customer_name=Ravi+Kumar&mid=SANDBOXMID" +
			"&note=Order+42&order_id=o-1&redirect_url=https%3A%2F%2Fshop.example%2Fthanks\n\n(dry run: nothing sent)\n"},
		{Name: "validation names the flag", Args: []string{"--mobile", "12"}, Code: cmdutil.ExitUsage, Kind: cmdutil.KindValidation,
			ErrMsg: "createPaymentIntent: invalid parameters: --mobile: must be a 10-digit mobile number"},
		{Name: "missing settings", Args: nil, Code: cmdutil.ExitUsage, Kind: cmdutil.KindUsage,
			ErrMsg: "missing UPICOLLECT_BASE_URL or --base-url (see 'upicollect help environment')"},
		{Name: "refused", Args: []string{"--mid", "NOSUCH"}, Code: cmdutil.ExitUnauthorized, Kind: cmdutil.KindUnauthorized,
			ErrMsg: "createPaymentIntent: HTTP 401: Invalid mid"},
	})
}
