package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"time"

	"github.com/spf13/cobra"
	"github.com/upicollect/upicollect-go/cmd/upicollect/dashboard"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/loopback"
)

// defaultDashboardAddr is fixed so that a bookmark finds the dashboard.
const defaultDashboardAddr = "127.0.0.1:8790"

// ServeOptions are what `upicollect reconcile serve` runs with.
type ServeOptions struct {
	ledgerOptions
	Addr        string
	AllowRemote bool
	Hosts       []string
}

// NewCmdServe is `upicollect reconcile serve`; runF, when not nil, runs
// instead of serveRun (tests).
func NewCmdServe(f *cmdutil.Factory, runF func(*ServeOptions) error) *cobra.Command {
	sf := &ServeOptions{ledgerOptions: newLedgerOptions(f)}
	cmd := &cobra.Command{
		Use:   "serve [--addr HOST:PORT]",
		Short: "Serve a read-only dashboard of the ledger",
		Long: `Serve a read-only dashboard of the ledger in the browser: orders by state,
outcomes over time, the orders that need a person (paid late, paid the
wrong amount, never known to the service) and each order's checks and
events, in India time. It only reads the ledger: nothing is checked,
recorded or delivered.

It listens on the loopback interface (--addr, default ` + defaultDashboardAddr + `)
and answers only requests that name this machine. A non-loopback --addr is
refused unless --allow-remote: the dashboard has no login, so put it behind
one; --host NAME adds a name the browser may use (repeatable). Stop with
Ctrl-C (exit 130).`,
		Example: `  upicollect reconcile serve --dsn sqlite:shop.db
  upicollect reconcile serve --addr 127.0.0.1:0 --json   # any free port; prints {"url":…}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sf.Ctx = cmd.Context()
			if runF != nil {
				return runF(sf)
			}
			return serveRun(sf)
		},
	}
	addLedgerFlags(cmd, &sf.ledgerOptions, false)
	fl := cmd.Flags()
	fl.StringVar(&sf.Addr, "addr", defaultDashboardAddr, "`HOST:PORT` to listen on (port 0: any free port)")
	fl.BoolVar(&sf.AllowRemote, "allow-remote", false, "allow an --addr that is not a loopback address")
	fl.StringArrayVar(&sf.Hosts, "host", nil, "a host `NAME` browsers may use besides loopback (repeatable)")
	cmdutil.AddJSONFlag(cmd, &sf.JSON, "print the dashboard's URL as JSON (errors too) on stdout")
	return cmd
}

// dashboardHosts are the names the dashboard answers besides loopback:
// the --addr host and the --host names. An unspecified address (0.0.0.0,
// ::, or none) names no host a browser would send.
func dashboardHosts(host string, extra []string) []string {
	if host == "" || net.ParseIP(host) != nil && net.ParseIP(host).IsUnspecified() {
		return extra
	}
	return append([]string{host}, extra...)
}

// dashboardServer serves h with every phase of a connection bounded, so
// that a client that stalls holds nothing for long.
func dashboardServer(h http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

func serveRun(sf *ServeOptions) error {
	host, _, err := net.SplitHostPort(sf.Addr)
	if err != nil {
		return cmdutil.UsageError(fmt.Errorf("--addr %q: want HOST:PORT, like %s", iostreams.TerminalSafe(sf.Addr), defaultDashboardAddr))
	}
	if !loopback.Host(host) && !sf.AllowRemote {
		return cmdutil.UsageError(fmt.Errorf("--addr %s is not a loopback address: the dashboard has no login and shows every order "+
			"to whoever reaches it; add --allow-remote if it is behind one", iostreams.TerminalSafe(sf.Addr)))
	}
	r, closeDB, err := sf.openReader()
	if err != nil {
		return err
	}
	defer closeDB()
	ln, err := net.Listen("tcp", sf.Addr)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(sf.IO.ErrOut, nil))
	h := dashboard.New(r, dashboard.WithHosts(dashboardHosts(host, sf.Hosts)...), dashboard.WithLogger(logger), dashboard.WithClock(sf.IO.Now))
	srv := dashboardServer(h, logger)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	u := "http://" + ln.Addr().String() + "/"
	if sf.JSON {
		err = sf.IO.PrintJSON(struct {
			URL string `json:"url"`
		}{u})
	} else {
		err = iostreams.WriteLine(sf.IO.Out, "Serving the ledger's dashboard at "+u+" (read-only; Ctrl-C stops)")
	}
	if err != nil {
		srv.Close()
		return err
	}
	select {
	case err := <-served:
		return err
	case <-sf.Ctx.Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		srv.Close()
	}
	<-served
	return cmdutil.Interrupted(sf.Ctx, errors.New("dashboard stopped"))
}
