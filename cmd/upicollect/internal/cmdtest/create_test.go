package cmdtest_test

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/link"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdtest"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
)

// The shared create checks, run on a real create command (link) with a
// row of each kind: each branch of the checks meets a command that
// behaves as the row says, so a check that takes the wrong branch fails.

func TestNewCmdCreateChecks(t *testing.T) {
	connArgs, conn := cmdtest.ConnFlags(t)
	view := func(o *link.LinkOptions) cmdtest.CreateView {
		return cmdtest.CreateView{IO: o.IO, Ctx: o.Ctx, Client: o.Client, Conn: o.Conn, Create: o.Create, JSON: o.JSON}
	}
	cmdtest.NewCmdCreate(t, "linkRun", link.NewCmdLink, view, []cmdtest.CreateCase[link.LinkOptions]{
		{Name: "options, no base URL", Args: []string{"--json"}, Want: link.LinkOptions{JSON: true}},
		{Name: "options, a base URL", Args: connArgs, Want: link.LinkOptions{Conn: conn}},
		{Name: "refused", Args: []string{"--amount", "x"}, WantErr: `"--amount" flag`},
	})
}

func TestRunCreateChecks(t *testing.T) {
	newCmd := func(f *cmdutil.Factory) *cobra.Command { return link.NewCmdLink(f, nil) }
	cmdtest.RunCreate(t, newCmd, nil, []cmdtest.RunCase{
		{Name: "created", Args: []string{"--json"},
			Stdout: `{"payment_link":"https://sandbox.example/sandbox/pay/utz_0f3a3d135f0af","message":"Payment link created successfully"}` + "\n"},
		{Name: "missing settings", Code: cmdutil.ExitUsage, Kind: cmdutil.KindUsage,
			ErrMsg: "missing UPICOLLECT_BASE_URL or --base-url (see 'upicollect help environment')"},
	})
}
