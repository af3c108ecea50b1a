package sandbox

import (
	"context"
	"flag"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdtest"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/sandbox"
)

// TestNewCmdAdvance: the argument and flags land in AdvanceOptions, which
// runF receives in place of the run; more than one argument is refused.
func TestNewCmdAdvance(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want AdvanceOptions
	}{
		{"duration", []string{"2h"}, AdvanceOptions{Duration: "2h", Args: 1}},
		{"none", nil, AdvanceOptions{}},
		{"to", []string{"--to", "2026-03-01T10:00:00Z"}, AdvanceOptions{To: "2026-03-01T10:00:00Z"}},
		{"both, for the run to refuse", []string{"1h", "--to", "x"}, AdvanceOptions{Duration: "1h", To: "x", Args: 1}},
		{"control flags", []string{"26h30m", "--json", "--base-url", "http://127.0.0.1:9"},
			AdvanceOptions{Duration: "26h30m", Args: 1, control: control{JSON: true, BaseURL: "http://127.0.0.1:9"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, _ := cmdtest.Factory(nil)
			var got *AdvanceOptions
			cmd := NewCmdAdvance(f, func(o *AdvanceOptions) error { got = o; return nil })
			require.NoError(t, cmdtest.ExecuteIn(context.Background(), cmd, tt.args...))
			require.NotNil(t, got, "runF ran")
			assert.Equal(t, tt.want.Duration, got.Duration)
			assert.Equal(t, tt.want.To, got.To)
			assert.Equal(t, tt.want.Args, got.Args)
			assert.Equal(t, tt.want.JSON, got.JSON)
			assert.Equal(t, tt.want.BaseURL, got.BaseURL)
			assert.Same(t, f.IOStreams, got.IO)
			assert.Same(t, f.Config, got.Config)
			assert.NotNil(t, got.Ctx)
		})
	}

	f, _, _ := cmdtest.Factory(nil)
	ran := false
	cmd := NewCmdAdvance(f, func(*AdvanceOptions) error { ran = true; return nil })
	assert.ErrorContains(t, cmdtest.ExecuteIn(context.Background(), cmd, "1h", "2h"), "accepts at most 1 arg")
	assert.False(t, ran)
}

// TestNewCmdPay: the order and flags land in PayOptions; --result
// defaults to SUCCESS, and --after and --amount are told apart from their
// zero values.
func TestNewCmdPay(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want PayOptions
	}{
		{"defaults", []string{"ORD-1"}, PayOptions{OrderID: "ORD-1", result: sandbox.StatusSuccess}},
		{"every flag", []string{"ORD-2", "--result", "fail", "--utr", "UTR1", "--after", "3h", "--amount", "498.50", "--json", "--base-url", "http://h"},
			PayOptions{OrderID: "ORD-2", result: "fail", utr: "UTR1", after: 3 * time.Hour, afterSet: true, amount: 49850, amountSet: true,
				control: control{JSON: true, BaseURL: "http://h"}}},
		{"zero after and amount given", []string{"ORD-3", "--after", "0s", "--amount", "0"},
			PayOptions{OrderID: "ORD-3", result: sandbox.StatusSuccess, afterSet: true, amountSet: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, _ := cmdtest.Factory(nil)
			var got *PayOptions
			cmd := NewCmdPay(f, func(o *PayOptions) error { got = o; return nil })
			require.NoError(t, cmdtest.ExecuteIn(context.Background(), cmd, tt.args...))
			require.NotNil(t, got, "runF ran")
			assert.Equal(t, tt.want.OrderID, got.OrderID)
			assert.Equal(t, tt.want.result, got.result)
			assert.Equal(t, tt.want.utr, got.utr)
			assert.Equal(t, tt.want.after, got.after)
			assert.Equal(t, tt.want.afterSet, got.afterSet)
			assert.Equal(t, tt.want.amount, got.amount)
			assert.Equal(t, tt.want.amountSet, got.amountSet)
			assert.Equal(t, tt.want.JSON, got.JSON)
			assert.Equal(t, tt.want.BaseURL, got.BaseURL)
			assert.Same(t, f.IOStreams, got.IO)
			assert.NotNil(t, got.Ctx)
		})
	}

	for _, args := range [][]string{{}, {"A", "B"}, {"A", "--after", "soon"}, {"A", "--amount", "ten"}} {
		f, _, _ := cmdtest.Factory(nil)
		ran := false
		cmd := NewCmdPay(f, func(*PayOptions) error { ran = true; return nil })
		assert.Error(t, cmdtest.ExecuteIn(context.Background(), cmd, args...), "%q", args)
		assert.False(t, ran, "%q", args)
	}
}

// TestNewCmdSandbox: the flags' defaults and values land in
// SandboxOptions, the credentials resolve flags over environment, and
// advance and pay are its subcommands.
func TestNewCmdSandbox(t *testing.T) {
	env := map[string]string{cmdutil.EnvMID: "ENVMID", cmdutil.EnvPublicKey: "pk_env", cmdutil.EnvSecretKey: "sk_env"}
	// Ended already: a sandbox served instead of runF stops at once.
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	f, _, _ := cmdtest.Factory(env)
	var got *SandboxOptions
	cmd := NewCmdSandbox(f, func(o *SandboxOptions) error { got = o; return nil })
	require.NoError(t, cmdtest.ExecuteIn(ended, cmd))
	require.NotNil(t, got)
	assert.Equal(t, sandbox.NewServeConfig(), got.Config, "the defaults")
	creds, err := got.Credentials()
	require.NoError(t, err)
	assert.Equal(t, upicollect.Credentials{MID: "ENVMID", PublicKey: "pk_env", SecretKey: "sk_env"}, creds)

	f, _, _ = cmdtest.Factory(env)
	cmd = NewCmdSandbox(f, func(o *SandboxOptions) error { got = o; return nil })
	require.NoError(t, cmdtest.ExecuteIn(ended, cmd, "--addr", "127.0.0.1:0", "--mid", "FLAGMID", "--public-url", "https://pay.example",
		"--variant", "status-in-data", "--variant", "string-amounts", "--fault", "status=500", "--fault", "latency=1s",
		"--strict", "--quiet", "--intent-ttl", "5m", "--latency", "20ms", "--rate-limit", "2.5"))
	assert.Equal(t, &sandbox.ServeConfig{Addr: "127.0.0.1:0", PublicURL: "https://pay.example",
		Variants: []string{"status-in-data", "string-amounts"}, Faults: []string{"status=500", "latency=1s"},
		Strict: true, Quiet: true, IntentTTL: 5 * time.Minute, Latency: 20 * time.Millisecond, RateLimit: 2.5}, got.Config)
	creds, err = got.Credentials()
	require.NoError(t, err)
	assert.Equal(t, "FLAGMID", creds.MID, "the flag over the environment")

	// The sandbox's own flags are sandbox.ServeConfig's, as
	// cmd/upicollect-sandbox's are: same names, same defaults.
	goFlags := flag.NewFlagSet("sandbox", flag.ContinueOnError)
	sandbox.NewServeConfig().AddFlags(goFlags)
	goFlags.VisitAll(func(gf *flag.Flag) {
		pf := cmd.Flags().Lookup(gf.Name)
		if assert.NotNil(t, pf, "--%s", gf.Name) {
			assert.Equal(t, gf.DefValue, pf.DefValue, "--%s", gf.Name)
			assert.Equal(t, gf.Usage, pf.Usage, "--%s", gf.Name)
		}
	})

	var names []string
	for _, c := range cmd.Commands() {
		names = append(names, c.Name())
	}
	assert.Subset(t, names, []string{"advance", "pay"})

	f, _, _ = cmdtest.Factory(nil)
	ran := false
	cmd = NewCmdSandbox(f, func(*SandboxOptions) error { ran = true; return nil })
	assert.Error(t, cmdtest.ExecuteIn(context.Background(), cmd, "serve"), "no such subcommand")
	assert.False(t, ran)
}
