package cmdtest

import (
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
)

// CreateView is what the shared checks read of a create command's
// options (link, order, request): the fields every create has, and Own,
// the command's own fields in an order of its choosing.
type CreateView struct {
	IO     *iostreams.IOStreams
	Ctx    context.Context
	Client cmdutil.ClientFunc
	Conn   cmdutil.ConnFlags
	Create cmdutil.CreateFlags
	JSON   bool
	Own    []any
}

// CreateCase is one row of a create command's TestNewCmd table: the
// arguments, and the options they set or the error they end in.
type CreateCase[O any] struct {
	Name    string
	Args    []string
	Want    O
	WantErr string
}

// NewCmdCreate runs each case through newCmd with a runF that keeps the
// options: a refusal names the flag and never reaches runF; otherwise the
// options hold what the flags set, the run's streams and context, and the
// Factory's client, which without a base URL is a usage error. run names
// the command's run function in the messages; view reads the options.
func NewCmdCreate[O any](t *testing.T, run string, newCmd func(*cmdutil.Factory, func(*O) error) *cobra.Command,
	view func(*O) CreateView, tests []CreateCase[O]) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			f, stdout, _ := Factory(nil)
			var got *O
			cmd := newCmd(f, func(o *O) error { got = o; return nil })
			ctx, err := Execute(t, cmd, tt.Args...)
			if tt.WantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.WantErr)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			require.NotNil(t, got, "runF runs instead of "+run)
			assert.Empty(t, stdout.String(), run+" did not run")
			want, have := view(&tt.Want), view(got)
			assert.Same(t, f.IOStreams, have.IO)
			assert.Equal(t, ctx, have.Ctx)
			assert.Equal(t, want.Create, have.Create)
			require.Len(t, have.Own, len(want.Own))
			for i := range want.Own {
				assert.Equal(t, want.Own[i], have.Own[i])
			}
			assert.Equal(t, want.JSON, have.JSON)
			assert.Equal(t, want.Conn, have.Conn)

			// The client is the Factory's, built from the flags when asked.
			require.NotNil(t, have.Client)
			_, _, err = have.Client()
			if want.Conn.BaseURL == "" {
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

// RunCase is one row of a create command's TestRun table: the arguments
// after the shared ones, and what is printed or how the run fails.
type RunCase struct {
	Name   string
	Args   []string
	Stdout string // {{BASE_URL}} stands for the sandbox's URL
	Code   int
	Kind   string
	ErrMsg string
}

// RunCreate runs each case on a sandbox of StartSandbox, with Customer,
// then fixed, then the case's arguments: a success prints Stdout and
// nothing on stderr; a failure has the case's exit code, kind and
// message, prints nothing and creates nothing. The case named "missing
// settings" runs without the base URL in its environment.
func RunCreate(t *testing.T, newCmd func(*cmdutil.Factory) *cobra.Command, fixed []string, tests []RunCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			s, env := StartSandbox(t)
			if tt.Name == "missing settings" {
				delete(env, cmdutil.EnvBaseURL)
			}
			f, stdout, stderr := Factory(env)
			cmd := newCmd(f)
			ctx, err := Execute(t, cmd, append(append(append([]string{}, Customer...), fixed...), tt.Args...)...)
			if tt.Code != 0 {
				require.Error(t, err)
				code, kind := cmdutil.Classify(ctx, err)
				assert.Equal(t, tt.Code, code)
				assert.Equal(t, tt.Kind, kind)
				assert.Equal(t, tt.ErrMsg, cmdutil.ErrorMessage(cmd, err), "the message names the flag to change")
				assert.Empty(t, stdout.String())
				assert.Empty(t, s.Orders(), "nothing was created")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, strings.ReplaceAll(tt.Stdout, "{{BASE_URL}}", s.URL()), stdout.String())
			assert.Empty(t, stderr.String())
		})
	}
}
