package drivertest_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"

	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
	"github.com/upicollect/upicollect-go/reconcile/storetest"
)

// sqliteDSN is the DSN of a SQLite file as the package doc says to open
// it: the busy timeout it gives (10s), so that writers wait for the lock
// (a loaded CI machine under -race held it past 3s), and WAL.
func sqliteDSN(path string) string {
	return "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"
}

func newSQLiteDB(t testing.TB) (string, *sql.DB) {
	t.Helper()
	dsn := sqliteDSN(filepath.Join(t.TempDir(), "reconcile.db"))
	db, err := sql.Open("sqlite", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return dsn, db
}

// dialects are the databases every store test runs on.
var dialects = []struct {
	name  string
	d     sqlstore.Dialect
	newDB func(testing.TB) (string, *sql.DB)
}{
	{"PostgreSQL", sqlstore.Postgres, newPostgresDB},
	{"SQLite", sqlstore.SQLite, newSQLiteDB},
}

func newStore(t *testing.T, d sqlstore.Dialect, db *sql.DB, opts ...sqlstore.Option) reconcile.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := sqlstore.New(ctx, db, d, opts...)
	require.NoError(t, err)
	return st
}

// TestStoreSuite runs the conformance suite of reconcile/storetest, on
// stores whose clock the suite sets to the times it passes (a SQL store
// measures leases on its own clock), and its TrackTx part.
func TestStoreSuite(t *testing.T) {
	for _, dc := range dialects {
		t.Run(dc.name, func(t *testing.T) {
			storetest.RunClocked(t, func(t *testing.T, now func() time.Time) reconcile.Store {
				_, db := dc.newDB(t)
				return newStore(t, dc.d, db, sqlstore.WithClock(now))
			})
			storetest.RunTx(t, func(t *testing.T) (reconcile.Store, *sql.DB) {
				_, db := dc.newDB(t)
				return newStore(t, dc.d, db), db
			})
		})
	}
}

func TestNewRefusesSQLiteWithoutBusyTimeout(t *testing.T) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "x.db"))
	require.NoError(t, err)
	defer db.Close()
	_, err = sqlstore.New(context.Background(), db, sqlstore.SQLite)
	require.ErrorContains(t, err, "busy_timeout")
	_, err = sqlstore.New(context.Background(), db, sqlstore.Dialect(9))
	require.ErrorContains(t, err, "unknown dialect")
	_, err = sqlstore.New(context.Background(), nil, sqlstore.SQLite)
	require.Error(t, err)
	require.Equal(t, "PostgreSQL SQLite", fmt.Sprint(sqlstore.Postgres, " ", sqlstore.SQLite))
}
