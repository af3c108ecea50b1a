package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL, as "pgx"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
	_ "modernc.org/sqlite" // SQLite in pure Go, as "sqlite"
)

// sqliteBusyTimeout is added to a SQLite DSN without a busy timeout:
// sweepers sharing the file wait for its write lock instead of failing.
const sqliteBusyTimeout = "_pragma=busy_timeout(10000)"

// openStore opens the reconcile database named by dsn and its store.
func openStore(ctx context.Context, dsn string) (reconcile.Store, func(), error) {
	driver, source, dialect, err := parseDSN(dsn)
	if err != nil {
		return nil, nil, usageError(err)
	}
	db, err := sql.Open(driver, source)
	if err != nil {
		return nil, nil, usageError(fmt.Errorf("--dsn: %w", err))
	}
	st, err := sqlstore.New(ctx, db, dialect)
	if err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("%s database %s: %w", dialect, redactDSN(dsn), err)
	}
	return st, func() { db.Close() }, nil
}

// parseDSN picks the driver and dialect from dsn's scheme: postgres:// or
// postgresql:// for PostgreSQL, sqlite:PATH or file:PATH for SQLite (with
// a busy timeout unless dsn sets one).
func parseDSN(dsn string) (driver, source string, d sqlstore.Dialect, err error) {
	scheme, rest, _ := strings.Cut(dsn, ":")
	switch strings.ToLower(scheme) {
	case "postgres", "postgresql":
		return "pgx", dsn, sqlstore.Postgres, nil
	case "sqlite", "file":
		if rest == "" {
			break
		}
		source = "file:" + rest
		if !strings.Contains(rest, "busy_timeout") {
			sep := "?"
			if strings.Contains(rest, "?") {
				sep = "&"
			}
			source += sep + sqliteBusyTimeout
		}
		return "sqlite", source, sqlstore.SQLite, nil
	}
	return "", "", 0, fmt.Errorf("--dsn %s: want postgres://…, postgresql://…, sqlite:PATH or file:PATH", redactDSN(dsn))
}

// redactDSN is dsn without its password, for messages.
func redactDSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		return u.Redacted()
	}
	if strings.Contains(dsn, "@") || strings.Contains(strings.ToLower(dsn), "password") {
		return "(DSN hidden: it may hold a password)"
	}
	return dsn
}
