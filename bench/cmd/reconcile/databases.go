package main

import (
	"context"
	"database/sql"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver of database/sql

	"github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest/pgtest"
)

// databases starts the PostgreSQL of the runs that need one, once: the
// tests' kit (a cluster in a temporary directory, as an unprivileged user
// under root, on PostgreSQL's durable defaults), stopped by close.
type databases struct {
	pg *pgtest.Server
}

// postgres creates database name on the server afresh (dropping one of
// that name left by an earlier run on the same server), starting the
// server first if need be, and opens it.
func (d *databases) postgres(ctx context.Context, name string) (*sql.DB, error) {
	if d.pg == nil {
		pg, err := pgtest.New()
		if err != nil {
			return nil, err
		}
		d.pg = pg
	}
	admin, err := sql.Open("pgx", d.pg.DSN("postgres"))
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	for _, stmt := range []string{"DROP DATABASE IF EXISTS " + name + " WITH (FORCE)", "CREATE DATABASE " + name} {
		if _, err := admin.ExecContext(ctx, stmt); err != nil {
			return nil, err
		}
	}
	db, err := sql.Open("pgx", d.pg.DSN(name))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	db.SetConnMaxIdleTime(time.Minute)
	return db, nil
}

// dbCPU is pgtest.ProcessCPU of postmaster (zero for none).
func dbCPU(postmaster int) (all, backends time.Duration) { return pgtest.ProcessCPU(postmaster) }

// close stops the server, if one was started.
func (d *databases) close() {
	if d.pg != nil {
		d.pg.Stop()
	}
}
