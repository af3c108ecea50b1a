// Package drivertest holds the reconcile/sqlstore module's tests that need a
// database driver: the conformance suite (reconcile/storetest), the
// ledger's races, migrations, query plans, process kills and benchmarks,
// on PostgreSQL through pgx and on SQLite through modernc.org/sqlite.
//
// It is a module of its own, so that reconcile/sqlstore requires no driver:
// a merchant who imports sqlstore brings the driver of their choice, and
// their module graph carries no other. Nothing imports this package; its
// subpackage pgtest starts the PostgreSQL server of every module's tests.
//
// Run from this directory: go test ./... (PostgreSQL's initdb and pg_ctl
// from /usr/lib/postgresql/*/bin; the tests start a server of their own,
// as nobody, on loopback).
package drivertest
