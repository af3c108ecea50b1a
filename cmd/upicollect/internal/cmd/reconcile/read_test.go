package reconcile

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdtest"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/sandbox"
)

// TestNewCmdTrackListShowServe: each reading or tracking command puts its
// argument and flags in its options, which runF receives.
func TestNewCmdTrackListShowServe(t *testing.T) {
	ctx := context.Background()
	// In a directory of the test's own: a mutant that runs the command
	// instead of runF must not leave a ledger in the package.
	dsnA, dsnB := "sqlite:"+filepath.Join(t.TempDir(), "a.db"), "sqlite:"+filepath.Join(t.TempDir(), "b.db")
	f, _, _ := testFactory(nil)
	var track *TrackOptions
	require.NoError(t, cmdtest.ExecuteIn(ctx, NewCmdTrack(f, func(o *TrackOptions) error { track = o; return nil }),
		"ORD-1", "--amount", "499.50", "--created", "2026-11-26T10:00:00+05:30", "--dsn", dsnA, "--create", "--json"))
	assert.Equal(t, "ORD-1", track.OrderID)
	assert.Equal(t, upicollect.Money(49950), track.Amount)
	assert.True(t, track.amountSet)
	assert.Equal(t, "2026-11-26T10:00:00+05:30", track.Created)
	assert.Equal(t, []any{dsnA, true, true}, []any{track.DSN, track.Create, track.JSON})
	require.NoError(t, cmdtest.ExecuteIn(ctx, NewCmdTrack(f, func(o *TrackOptions) error { track = o; return nil }), "ORD-2"))
	assert.False(t, track.amountSet)

	var list *ListOptions
	require.NoError(t, cmdtest.ExecuteIn(ctx, NewCmdList(f, func(o *ListOptions) error { list = o; return nil })))
	assert.Equal(t, 100, list.Limit)
	assert.Empty(t, list.States)
	require.NoError(t, cmdtest.ExecuteIn(ctx, NewCmdList(f, func(o *ListOptions) error { list = o; return nil }),
		"--state", "paid", "--state", "late_paid", "--limit", "7", "--before", "ORD-9", "--json", "--dsn", dsnB))
	assert.Equal(t, []string{"paid", "late_paid"}, list.States)
	assert.Equal(t, []any{7, "ORD-9", true, dsnB}, []any{list.Limit, list.Before, list.JSON, list.DSN})

	var show *ShowOptions
	require.NoError(t, cmdtest.ExecuteIn(ctx, NewCmdShow(f, func(o *ShowOptions) error { show = o; return nil }), "ORD-3", "--json"))
	assert.Equal(t, "ORD-3", show.OrderID)
	assert.True(t, show.JSON)

	var serve *ServeOptions
	require.NoError(t, cmdtest.ExecuteIn(ctx, NewCmdServe(f, func(o *ServeOptions) error { serve = o; return nil })))
	assert.Equal(t, defaultDashboardAddr, serve.Addr)
	assert.False(t, serve.AllowRemote)
	require.NoError(t, cmdtest.ExecuteIn(ctx, NewCmdServe(f, func(o *ServeOptions) error { serve = o; return nil }),
		"--addr", "0.0.0.0:8790", "--allow-remote", "--host", "shop.lan", "--host", "ops.lan"))
	assert.Equal(t, []any{"0.0.0.0:8790", true, []string{"shop.lan", "ops.lan"}}, []any{serve.Addr, serve.AllowRemote, serve.Hosts})
}

// TestTrackRun: track checks its input before any I/O and tracks an
// order once; again with the same amount changes nothing, with another
// it is refused (exit 3).
func TestTrackRun(t *testing.T) {
	re := newRunEnv(t)
	ctx := context.Background()
	tests := []struct {
		name string
		args []string
		want string
		code int
	}{
		{"tracked", []string{"ORD-1", "--amount", "499"},
			"tracked      ORD-1\namount       ₹499.00\ncreated      2026-11-26 15:30:00 IST\nfirst check  2026-11-26 15:30:10 IST\n", cmdutil.ExitOK},
		{"again", []string{"ORD-1", "--amount", "499", "--json"},
			`{"order_id":"ORD-1","amount":"499.00","amount_paise":49900,"created":"2026-11-26T10:00:00Z","first_check":"2026-11-26T10:00:10Z"}` + "\n", cmdutil.ExitOK},
		{"created", []string{"ORD-2", "--amount", "0.01", "--created", "2026-11-26T09:00:00+05:30", "--json"},
			`{"order_id":"ORD-2","amount":"0.01","amount_paise":1,"created":"2026-11-26T09:00:00+05:30","first_check":"2026-11-26T09:00:10+05:30"}` + "\n", cmdutil.ExitOK},
		{"another amount", []string{"ORD-1", "--amount", "500"}, "track ORD-1: ", cmdutil.ExitRefused},
		{"no amount", []string{"ORD-3"}, "--amount: must be a positive amount in rupees", cmdutil.ExitUsage},
		{"zero amount", []string{"ORD-3", "--amount", "0"}, "--amount: must be a positive amount in rupees", cmdutil.ExitUsage},
		{"bad created", []string{"ORD-3", "--amount", "1", "--created", "yesterday"}, "--created: want RFC 3339, like 2026-11-26T10:00:00+05:30", cmdutil.ExitUsage},
		{"every problem", []string{"", "--amount", "0", "--created", "x"},
			"ORDER_ID: is required; --amount: must be a positive amount in rupees; --created: want RFC 3339, like 2026-11-26T10:00:00+05:30", cmdutil.ExitUsage},
		{"bad order id", []string{"ORD 4", "--amount", "1"}, "ORDER_ID: ", cmdutil.ExitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, stdout, _ := testFactory(map[string]string{envDSN: re.dsn})
			err := cmdtest.ExecuteIn(ctx, NewCmdTrack(f, nil), tt.args...)
			if tt.code == cmdutil.ExitOK {
				require.NoError(t, err)
				assert.Equal(t, tt.want, stdout.String())
				return
			}
			require.Error(t, err)
			if strings.HasSuffix(tt.want, ": ") {
				assert.True(t, strings.HasPrefix(err.Error(), tt.want), err.Error())
			} else {
				assert.Equal(t, tt.want, err.Error())
			}
			code, _ := exitOf(t, err)
			assert.Equal(t, tt.code, code)
			assert.Empty(t, stdout.String())
		})
	}
	f, _, _ := testFactory(nil)
	err := cmdtest.ExecuteIn(ctx, NewCmdTrack(f, nil), "ORD-5", "--amount", "1")
	require.Error(t, err)
	assert.Equal(t, "missing UPICOLLECT_RECONCILE_DSN, --dsn or --dsn-file", err.Error())
}

// ledgerWithEvents is a ledger in which ORD-PAID was paid, ORD-LATE
// failed and was then paid late (two events), and ORD-WAIT was never
// checked.
func ledgerWithEvents(t *testing.T) *runEnv {
	t.Helper()
	re := newRunEnv(t)
	re.order(t, "ORD-PAID", 499, sandbox.StatusSuccess)
	re.order(t, "ORD-LATE", 10, sandbox.StatusFail)
	_, _, err := re.run(context.Background(), "--once", "--deliver", "exec:true")
	require.NoError(t, err)
	require.NoError(t, re.s.Settle("ORD-LATE", upicollect.TxnSuccess, time.Time{}))
	f, _, _ := testFactory(re.env)
	f.IOStreams.Now = func() time.Time { return cmdtest.Now.Add(2 * time.Hour) }
	require.NoError(t, cmdtest.ExecuteIn(context.Background(), NewCmdRun(f, nil), "--dsn", re.dsn, "--once", "--deliver", "exec:true"))
	f, _, _ = testFactory(nil)
	require.NoError(t, cmdtest.ExecuteIn(context.Background(), NewCmdTrack(f, nil), "ORD-WAIT", "--amount", "5", "--dsn", re.dsn))
	return re
}

// TestShowRun: one order for a person and as JSON; an order the ledger
// does not know exits 3.
func TestShowRun(t *testing.T) {
	re := ledgerWithEvents(t)
	ctx := context.Background()
	show := func(args ...string) (string, error) {
		f, stdout, _ := testFactory(map[string]string{envDSN: re.dsn})
		err := cmdtest.ExecuteIn(ctx, NewCmdShow(f, nil), args...)
		return stdout.String(), err
	}

	out, err := show("ORD-LATE")
	require.NoError(t, err)
	lines := strings.Split(out, "\n")
	assert.Equal(t, []string{
		"order       ORD-LATE",
		"state       late_paid",
		"amount      ₹10.00",
		"created     2026-11-26 14:30:00 IST",
		"checks      2",
		"next check  none",
		"updated     2026-11-26 17:30:00 IST",
		"events      2",
	}, lines[:8], out)
	assert.Regexp(t, `^  2026-11-26 15:30:00 IST  failed    ORD-LATE  expected ₹10\.00$`, lines[8])
	assert.Regexp(t, `^  2026-11-26 17:30:00 IST  late_paid ORD-LATE  expected ₹10\.00  UTR \d+$`, lines[9])
	assert.Equal(t, []string{""}, lines[10:])

	out, err = show("ORD-WAIT")
	require.NoError(t, err)
	assert.Equal(t, "order       ORD-WAIT\nstate       pending\namount      ₹5.00\ncreated     2026-11-26 15:30:00 IST\nchecks      0\n"+
		"next check  2026-11-26 15:30:10 IST\nupdated     2026-11-26 15:30:00 IST\nevents      none\n", out)

	out, err = show("ORD-PAID", "--json")
	require.NoError(t, err)
	var o orderJSON
	require.NoError(t, json.Unmarshal([]byte(out), &o))
	assert.Equal(t, "paid", o.State)
	assert.Nil(t, o.NextCheck)
	require.Len(t, o.Events, 1)
	assert.Equal(t, "paid", o.Events[0].Event)
	assert.Equal(t, 1, strings.Count(out, "\n"))

	out, err = show("ORD-NONE")
	require.Error(t, err)
	code, kind := exitOf(t, err)
	assert.Equal(t, []any{cmdutil.ExitRefused, "not_tracked"}, []any{code, kind})
	assert.True(t, strings.HasPrefix(err.Error(), "show ORD-NONE: "), err.Error())
	assert.Empty(t, out)

	_, err = show("ORD-1", "--dsn", "sqlite:"+re.dir+"/none.db")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no such file")
}

// TestNonZero: a count of failures is shown only when there are some.
func TestNonZero(t *testing.T) {
	assert.Empty(t, nonZero(0))
	assert.Equal(t, "3", nonZero(3))
}

// TestListRun: the orders newest first, by state, a page at a time; a
// bad --state or --limit is refused before the ledger is read.
func TestListRun(t *testing.T) {
	re := ledgerWithEvents(t)
	ctx := context.Background()
	list := func(args ...string) (string, error) {
		f, stdout, _ := testFactory(map[string]string{envDSN: re.dsn})
		err := cmdtest.ExecuteIn(ctx, NewCmdList(f, nil), args...)
		return stdout.String(), err
	}

	out, err := list()
	require.NoError(t, err)
	assert.Equal(t, "ORDER     STATE      AMOUNT   CREATED                  CHECKS  NEXT CHECK\n"+
		"ORD-WAIT  pending    ₹5.00    2026-11-26 15:30:00 IST  0       2026-11-26 15:30:10 IST\n"+
		"ORD-PAID  paid       ₹499.00  2026-11-26 14:30:00 IST  1       -\n"+
		"ORD-LATE  late_paid  ₹10.00   2026-11-26 14:30:00 IST  2       -\n", out)

	out, err = list("--state", "PAID", "--state", "late_paid", "--json")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2, out)
	var ids []string
	for _, l := range lines {
		var o orderJSON
		require.NoError(t, json.Unmarshal([]byte(l), &o))
		ids = append(ids, o.OrderID)
	}
	assert.ElementsMatch(t, []string{"ORD-PAID", "ORD-LATE"}, ids)

	for _, limit := range []string{"1", "1000"} {
		out, err = list("--limit", limit, "--json")
		require.NoError(t, err, limit)
		assert.Equal(t, map[string]int{"1": 1, "1000": 3}[limit], strings.Count(out, "\n"), limit)
	}
	out, err = list("--before", "ORD-WAIT", "--limit", "1")
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(out, "\n"), "the header and the next order: %s", out)

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--limit", "0"}, "--limit 0: want 1 to 1000"},
		{[]string{"--limit", "1001"}, "--limit 1001: want 1 to 1000"},
		{[]string{"--state", "done\x1b[2J"}, `--state "done\\x1b[2J": want one of ` + strings.Join(stateNames(), ", ")},
	} {
		out, err = list(tt.args...)
		require.Error(t, err)
		assert.Equal(t, tt.want, err.Error())
		code, _ := exitOf(t, err)
		assert.Equal(t, cmdutil.ExitUsage, code)
		assert.Empty(t, out)
	}
}

// TestDashboardHosts: the dashboard answers the --addr host and the
// --host names besides loopback; an unspecified address names no host.
func TestDashboardHosts(t *testing.T) {
	extra := []string{"shop.lan"}
	tests := []struct {
		host string
		want []string
	}{
		{"127.0.0.1", []string{"127.0.0.1", "shop.lan"}},
		{"ops.example", []string{"ops.example", "shop.lan"}},
		{"0.0.0.0", extra},
		{"::", extra},
		{"", extra},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, dashboardHosts(tt.host, extra), "%q", tt.host)
	}
}

// TestDashboardServerBounds: every phase of a dashboard connection is
// bounded, so that a client that stalls holds nothing for long.
func TestDashboardServerBounds(t *testing.T) {
	h := http.NotFoundHandler()
	srv := dashboardServer(h, slog.New(slog.NewTextHandler(io.Discard, nil)))
	assert.Equal(t, []time.Duration{10 * time.Second, 30 * time.Second, 30 * time.Second, 2 * time.Minute},
		[]time.Duration{srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout})
	assert.NotNil(t, srv.Handler)
	assert.NotNil(t, srv.ErrorLog)
}

// TestServeRun serves the dashboard of a real ledger on loopback until
// the run's context ends (exit 130); a bad or remote --addr is refused
// before the ledger is opened.
func TestServeRun(t *testing.T) {
	re := ledgerWithEvents(t)
	for _, jsonOut := range []bool{false, true} {
		pr, pw := io.Pipe()
		f, _, _ := testFactory(map[string]string{envDSN: re.dsn})
		errOut := &iostreams.SyncBuffer{}
		f.IOStreams.Out, f.IOStreams.ErrOut = pw, errOut
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		args := []string{"--addr", "127.0.0.1:0"}
		if jsonOut {
			args = append(args, "--json")
		}
		go func() {
			done <- cmdtest.ExecuteIn(ctx, NewCmdServe(f, nil), args...)
			_ = pw.Close()
		}()
		lines := make(chan string, 1)
		go func() {
			line, _ := bufio.NewReader(pr).ReadString('\n')
			lines <- line
			_, _ = io.Copy(io.Discard, pr)
		}()
		var u string
		select {
		case line := <-lines:
			if jsonOut {
				var v struct {
					URL string `json:"url"`
				}
				require.NoError(t, json.Unmarshal([]byte(line), &v), line)
				u = v.URL
			} else {
				var ok bool
				u, ok = strings.CutPrefix(line, "Serving the ledger's dashboard at ")
				require.True(t, ok, line)
				u, ok = strings.CutSuffix(u, " (read-only; Ctrl-C stops)\n")
				require.True(t, ok, line)
			}
		case err := <-done:
			cancel()
			t.Fatalf("serve ended: %v", err)
		case <-time.After(cmdtest.RunTimeout):
			cancel()
			t.Fatal("no URL within 30s")
		}
		assert.Regexp(t, `^http://127\.0\.0\.1:\d+/$`, u)
		client := &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: 30 * time.Second}
		resp, err := client.Get(u + "orders/ORD-LATE")
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Contains(t, string(body), "ORD-LATE")
		client.CloseIdleConnections()

		cancel()
		select {
		case err = <-done:
		case <-time.After(cmdtest.RunTimeout):
			t.Fatal("serve did not stop within 30s")
		}
		require.Error(t, err)
		assert.Equal(t, "dashboard stopped", err.Error())
		code, kind := exitOf(t, err)
		assert.Equal(t, []any{cmdutil.ExitInterrupted, cmdutil.KindInterrupted}, []any{code, kind})
	}

	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	for _, tt := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"--addr", "8790"}, `--addr "8790": want HOST:PORT, like 127.0.0.1:8790`, cmdutil.ExitUsage},
		{[]string{"--addr", "0.0.0.0:0"}, "--addr 0.0.0.0:0 is not a loopback address: the dashboard has no login and shows every order to whoever reaches it; add --allow-remote if it is behind one", cmdutil.ExitUsage},
		{[]string{"--addr", "shop.example:0"}, "--addr shop.example:0 is not a loopback address", cmdutil.ExitUsage},
		{[]string{"--addr", "127.0.0.1:0", "--dsn", "sqlite:" + re.dir + "/none.db"}, "no such file", cmdutil.ExitUsage},
		{[]string{"--addr", busy.Addr().String()}, "address already in use", cmdutil.ExitFailure},
	} {
		f, stdout, _ := testFactory(map[string]string{envDSN: re.dsn})
		err := cmdtest.ExecuteIn(context.Background(), NewCmdServe(f, nil), tt.args...)
		require.Error(t, err, "%q", tt.args)
		assert.Contains(t, err.Error(), tt.want)
		code, _ := exitOf(t, err)
		assert.Equal(t, tt.code, code, "%q", tt.args)
		assert.Empty(t, stdout.String())
	}
}
