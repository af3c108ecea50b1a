package drivertest_test

import (
	"database/sql"
	"testing"

	"github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest/pgtest"
)

// The tests share one PostgreSQL for the whole package run (pgtest.Shared:
// the Debian package's binaries, a temporary directory, loopback, durable
// settings, run as nobody under root; never skipped), stopped by TestMain;
// each test gets a database of its own.

func TestMain(m *testing.M) { pgtest.Main(m) }

// needPostgres returns the package's server, starting it on first use.
func needPostgres(t testing.TB) *pgtest.Server { return pgtest.Shared(t) }

// newPostgresDB creates an empty database for t and returns its DSN and a
// handle closed at t's end.
func newPostgresDB(t testing.TB) (string, *sql.DB) { return needPostgres(t).NewDB(t) }
