package request

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdtest"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
)

// view is what the shared checks read of RequestOptions.
func view(o *RequestOptions) cmdtest.CreateView {
	return cmdtest.CreateView{IO: o.IO, Ctx: o.Ctx, Client: o.Client, Conn: o.Conn, Create: o.Create, JSON: o.JSON,
		Own: []any{o.OrderID, o.VPA}}
}

func TestNewCmdRequest(t *testing.T) {
	connArgs, conn := cmdtest.ConnFlags(t)
	cmdtest.NewCmdCreate(t, "requestRun", NewCmdRequest, view, []cmdtest.CreateCase[RequestOptions]{
		{Name: "defaults", Args: nil, Want: RequestOptions{}},
		{Name: "create flags", Args: cmdtest.Customer, Want: RequestOptions{Create: cmdtest.FullCreate}},
		{Name: "rupees to paise", Args: []string{"--amount", "1.08"}, Want: RequestOptions{Create: cmdutil.CreateFlags{Amount: 108}}},
		{Name: "order and vpa", Args: []string{"--order-id", "o-3", "--vpa", "ravi@okaxis"}, Want: RequestOptions{OrderID: "o-3", VPA: "ravi@okaxis"}},
		{Name: "json", Args: []string{"--json"}, Want: RequestOptions{JSON: true}},
		{Name: "connection", Args: connArgs, Want: RequestOptions{Conn: conn}},
		{Name: "bad amount names the flag", Args: []string{"--amount", "4.999"}, WantErr: `invalid argument "4.999" for "--amount" flag`},
		{Name: "argument", Args: []string{"o-1"}, WantErr: `unknown command "o-1" for "request"`},
	})
}

// TestRequestRun creates on a sandbox and checks what is printed and how
// a failure ends.
func TestRequestRun(t *testing.T) {
	newCmd := func(f *cmdutil.Factory) *cobra.Command { return NewCmdRequest(f, nil) }
	cmdtest.RunCreate(t, newCmd, []string{"--order-id", "o-3", "--vpa", "ravi@okaxis"}, []cmdtest.RunCase{
		{Name: "human", Stdout: "Order    o-3\nPay at   https://sandbox.example/sandbox/pay/o-3\nMessage  Payment request created successfully\n"},
		{Name: "json", Args: []string{"--json"}, Stdout: `{"order_id":"o-3","payment_url":"https://sandbox.example/sandbox/pay/o-3","message":"Payment request created successfully"}` + "\n"},
		{Name: "dry run", Args: []string{"--dry-run"}, Stdout: cmdtest.DryRunHead("{{BASE_URL}}", "createPaymentRequest") +
			"amount=499&customer_email=ravi%40example.com&customer_mobile=9876543210&customer_name=Ravi+Kumar&mid=SANDBOXMID&note=Order+42&order_id=o-3&vpa=ravi%40okaxis\n\n(dry run: nothing sent)\n"},
		{Name: "validation", Args: []string{"--mobile", "12"}, Code: cmdutil.ExitUsage, Kind: cmdutil.KindValidation,
			ErrMsg: "createPaymentRequest: invalid parameters: --mobile: must be a 10-digit mobile number"},
		{Name: "missing settings", Args: nil, Code: cmdutil.ExitUsage, Kind: cmdutil.KindUsage,
			ErrMsg: "missing UPICOLLECT_BASE_URL or --base-url (see 'upicollect help environment')"},
		{Name: "refused", Args: []string{"--mid", "NOSUCH"}, Code: cmdutil.ExitUnauthorized, Kind: cmdutil.KindUnauthorized,
			ErrMsg: "createPaymentRequest: HTTP 401: Invalid mid"},
	})
}
