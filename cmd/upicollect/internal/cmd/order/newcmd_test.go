package order

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdtest"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
)

// view is what the shared checks read of OrderOptions.
func view(o *OrderOptions) cmdtest.CreateView {
	return cmdtest.CreateView{IO: o.IO, Ctx: o.Ctx, Client: o.Client, Conn: o.Conn, Create: o.Create, JSON: o.JSON,
		Own: []any{o.OrderID, o.RedirectURL}}
}

func TestNewCmdOrder(t *testing.T) {
	connArgs, conn := cmdtest.ConnFlags(t)
	cmdtest.NewCmdCreate(t, "orderRun", NewCmdOrder, view, []cmdtest.CreateCase[OrderOptions]{
		{Name: "defaults", Args: nil, Want: OrderOptions{}},
		{Name: "create flags", Args: cmdtest.Customer, Want: OrderOptions{Create: cmdtest.FullCreate}},
		{Name: "rupees to paise", Args: []string{"--amount", "1.08"}, Want: OrderOptions{Create: cmdutil.CreateFlags{Amount: 108}}},
		{Name: "order and redirect", Args: []string{"--order-id", "o-2", "--redirect-url", "https://shop.example/thanks"}, Want: OrderOptions{OrderID: "o-2", RedirectURL: "https://shop.example/thanks"}},
		{Name: "json", Args: []string{"--json"}, Want: OrderOptions{JSON: true}},
		{Name: "connection", Args: connArgs, Want: OrderOptions{Conn: conn}},
		{Name: "bad amount names the flag", Args: []string{"--amount", "4.999"}, WantErr: `invalid argument "4.999" for "--amount" flag`},
		{Name: "argument", Args: []string{"o-1"}, WantErr: `unknown command "o-1" for "order"`},
	})
}

// TestOrderRun creates on a sandbox and checks what is printed and how
// a failure ends.
func TestOrderRun(t *testing.T) {
	newCmd := func(f *cmdutil.Factory) *cobra.Command { return NewCmdOrder(f, nil) }
	cmdtest.RunCreate(t, newCmd, []string{"--order-id", "o-2", "--redirect-url", "https://shop.example/thanks"}, []cmdtest.RunCase{
		{Name: "human", Stdout: "Order    o-2\nPay at   https://sandbox.example/sandbox/pay/o-2\nMessage  Order request created successfully\n"},
		{Name: "json", Args: []string{"--json"}, Stdout: `{"order_id":"o-2","payment_url":"https://sandbox.example/sandbox/pay/o-2","message":"Order request created successfully"}` + "\n"},
		{Name: "dry run", Args: []string{"--dry-run"}, Stdout: cmdtest.DryRunHead("{{BASE_URL}}", "createOrderRequest") +
			"amount=499&customer_email=ravi%40example.com&customer_mobile=9876543210&customer_name=Ravi+Kumar&mid=SANDBOXMID&note=Order+42&order_id=o-2&redirect_url=https%3A%2F%2Fshop.example%2Fthanks\n\n(dry run: nothing sent)\n"},
		{Name: "validation", Args: []string{"--mobile", "12"}, Code: cmdutil.ExitUsage, Kind: cmdutil.KindValidation,
			ErrMsg: "createOrderRequest: invalid parameters: --mobile: must be a 10-digit mobile number"},
		{Name: "missing settings", Args: nil, Code: cmdutil.ExitUsage, Kind: cmdutil.KindUsage,
			ErrMsg: "missing UPICOLLECT_BASE_URL or --base-url (see 'upicollect help environment')"},
		{Name: "refused", Args: []string{"--mid", "NOSUCH"}, Code: cmdutil.ExitUnauthorized, Kind: cmdutil.KindUnauthorized,
			ErrMsg: "createOrderRequest: HTTP 401: Invalid mid"},
	})
}
