package link

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdtest"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
)

// view is what the shared checks read of LinkOptions: a link has no
// fields of its own.
func view(o *LinkOptions) cmdtest.CreateView {
	return cmdtest.CreateView{IO: o.IO, Ctx: o.Ctx, Client: o.Client, Conn: o.Conn, Create: o.Create, JSON: o.JSON}
}

func TestNewCmdLink(t *testing.T) {
	connArgs, conn := cmdtest.ConnFlags(t)
	cmdtest.NewCmdCreate(t, "linkRun", NewCmdLink, view, []cmdtest.CreateCase[LinkOptions]{
		{Name: "defaults", Args: nil, Want: LinkOptions{}},
		{Name: "create flags", Args: cmdtest.Customer, Want: LinkOptions{Create: cmdtest.FullCreate}},
		{Name: "rupees to paise", Args: []string{"--amount", "1.08"}, Want: LinkOptions{Create: cmdutil.CreateFlags{Amount: 108}}},
		{Name: "json", Args: []string{"--json"}, Want: LinkOptions{JSON: true}},
		{Name: "connection", Args: connArgs, Want: LinkOptions{Conn: conn}},
		{Name: "bad amount names the flag", Args: []string{"--amount", "4.999"}, WantErr: `invalid argument "4.999" for "--amount" flag`},
		{Name: "argument", Args: []string{"o-1"}, WantErr: `unknown command "o-1" for "link"`},
	})
}

// TestLinkRun creates on a sandbox and checks what is printed and how
// a failure ends.
func TestLinkRun(t *testing.T) {
	newCmd := func(f *cmdutil.Factory) *cobra.Command { return NewCmdLink(f, nil) }
	cmdtest.RunCreate(t, newCmd, nil, []cmdtest.RunCase{
		{Name: "human", Stdout: "Link     https://sandbox.example/sandbox/pay/utz_0f3a3d135f0af\nMessage  Payment link created successfully\n"},
		{Name: "json", Args: []string{"--json"}, Stdout: `{"payment_link":"https://sandbox.example/sandbox/pay/utz_0f3a3d135f0af","message":"Payment link created successfully"}` + "\n"},
		{Name: "dry run", Args: []string{"--dry-run"}, Stdout: cmdtest.DryRunHead("{{BASE_URL}}", "createPaymentLink") +
			"amount=499&customer_email=ravi%40example.com&customer_mobile=9876543210&customer_name=Ravi+Kumar&mid=SANDBOXMID&note=Order+42\n\n(dry run: nothing sent)\n"},
		{Name: "validation", Args: []string{"--mobile", "12"}, Code: cmdutil.ExitUsage, Kind: cmdutil.KindValidation,
			ErrMsg: "createPaymentLink: invalid parameters: --mobile: must be a 10-digit mobile number"},
		{Name: "missing settings", Args: nil, Code: cmdutil.ExitUsage, Kind: cmdutil.KindUsage,
			ErrMsg: "missing UPICOLLECT_BASE_URL or --base-url (see 'upicollect help environment')"},
		{Name: "refused", Args: []string{"--mid", "NOSUCH"}, Code: cmdutil.ExitUnauthorized, Kind: cmdutil.KindUnauthorized,
			ErrMsg: "createPaymentLink: HTTP 401: Invalid mid"},
	})
}
