package sidebyside

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest/pgtest"
)

// Database is the database the runs use on a server StartServer started.
const Database = "sidebyside"

// StartServer starts a PostgreSQL cluster of its own (pgtest: a temporary
// directory, loopback, as nobody when root, on the durable defaults: fsync,
// synchronous_commit and full_page_writes on) and creates Database on it.
// It returns the server (stop it with Stop) and the database's DSN.
func StartServer(ctx context.Context) (*pgtest.Server, string, error) {
	srv, err := pgtest.New()
	if err != nil {
		return nil, "", err
	}
	conn, err := pgx.Connect(ctx, srv.DSN("postgres"))
	if err != nil {
		srv.Stop()
		return nil, "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+Database); err != nil {
		srv.Stop()
		return nil, "", fmt.Errorf("creating the database: %w", err)
	}
	var fsync, sync string
	if err := conn.QueryRow(ctx, `SELECT current_setting('fsync'), current_setting('synchronous_commit')`).Scan(&fsync, &sync); err != nil || fsync != "on" || sync != "on" {
		srv.Stop()
		return nil, "", fmt.Errorf("the server is not on the durable defaults (fsync %q, synchronous_commit %q): %v", fsync, sync, err)
	}
	return srv, srv.DSN(Database), nil
}
