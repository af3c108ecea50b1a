package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/upicollect/upicollect-go/cmd/upicollect/dashboard"
)

// defaultDashboardAddr is fixed so that a bookmark finds the dashboard.
const defaultDashboardAddr = "127.0.0.1:8790"

type serveFlags struct {
	ledger      ledgerFlags
	addr        string
	allowRemote bool
	hosts       []string
}

func (a *app) reconcileServeCmd() *cobra.Command {
	var sf serveFlags
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
		RunE: a.runE(func(*cobra.Command, []string) error { return a.serveDashboard(&sf) }),
	}
	a.addLedgerFlags(cmd, &sf.ledger, false)
	f := cmd.Flags()
	f.StringVar(&sf.addr, "addr", defaultDashboardAddr, "`HOST:PORT` to listen on (port 0: any free port)")
	f.BoolVar(&sf.allowRemote, "allow-remote", false, "allow an --addr that is not a loopback address")
	f.StringArrayVar(&sf.hosts, "host", nil, "a host `NAME` browsers may use besides loopback (repeatable)")
	f.BoolVar(&a.json, "json", false, "print the dashboard's URL as JSON (errors too) on stdout")
	return cmd
}

// loopbackHost reports whether host (of HOST:PORT) is a loopback name or
// address.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

func (a *app) serveDashboard(sf *serveFlags) error {
	host, _, err := net.SplitHostPort(sf.addr)
	if err != nil {
		return usageError(fmt.Errorf("--addr %q: want HOST:PORT, like %s", terminalSafe(sf.addr), defaultDashboardAddr))
	}
	if !loopbackHost(host) && !sf.allowRemote {
		return usageError(fmt.Errorf("--addr %s is not a loopback address: the dashboard has no login and shows every order "+
			"to whoever reaches it; add --allow-remote if it is behind one", terminalSafe(sf.addr)))
	}
	r, closeDB, err := a.openReader(&sf.ledger)
	if err != nil {
		return err
	}
	defer closeDB()
	ln, err := net.Listen("tcp", sf.addr)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(a.stderr, nil))
	hosts := append([]string{host}, sf.hosts...)
	if host == "" || net.ParseIP(host) != nil && net.ParseIP(host).IsUnspecified() {
		hosts = sf.hosts // 0.0.0.0 names no host a browser would send
	}
	srv := &http.Server{
		Handler:           dashboard.New(r, dashboard.WithHosts(hosts...), dashboard.WithLogger(logger), dashboard.WithClock(a.now)),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	u := "http://" + ln.Addr().String() + "/"
	if a.json {
		err = a.printJSON(struct {
			URL string `json:"url"`
		}{u})
	} else {
		err = writeLine(a.stdout, "Serving the ledger's dashboard at "+u+" (read-only; Ctrl-C stops)")
	}
	if err != nil {
		srv.Close()
		return err
	}
	select {
	case err := <-served:
		return err
	case <-a.ctx.Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		srv.Close()
	}
	<-served
	return interrupted(a.ctx, errors.New("dashboard stopped"))
}
