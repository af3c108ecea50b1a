package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// MigrationsTable records which numbered migrations a database has: one
// row per migration applied (version, applied_ns).
const MigrationsTable = "upicollect_reconcile_migrations"

//go:embed migrations
var migrationFS embed.FS

// migration is one numbered step of the schema.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the dialect's steps, in order. The files are named
// NNNN_name.sql under migrations/<dialect>.
func migrations(d Dialect) ([]migration, error) {
	dir := "migrations/sqlite"
	if d == Postgres {
		dir = "migrations/postgres"
	}
	entries, err := fs.ReadDir(migrationFS, dir)
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		num, name, ok := strings.Cut(strings.TrimSuffix(e.Name(), ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration file %s: not NNNN_name.sql", e.Name())
		}
		b, err := migrationFS.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: name, sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %d: versions must run 1, 2, 3, ... with no gap", m.version)
		}
	}
	return out, nil
}

// SchemaVersion is the newest schema this release knows: Migrate brings a
// database to it, and New refuses a database at a newer one.
func SchemaVersion() int {
	ms, err := migrations(Postgres)
	if err != nil {
		return 0
	}
	return len(ms)
}

// ErrSchemaTooNew is Migrate's and New's error for a database whose
// schema a newer release of this module has migrated: this release would
// misread it.
var ErrSchemaTooNew = errors.New("sqlstore: the database's schema is newer than this release of sqlstore knows; upgrade github.com/upicollect/upicollect-go/reconcile/sqlstore")

// Migrate brings db's tables to SchemaVersion, applying each numbered
// migration not yet applied, in order, and recording it in
// MigrationsTable; it returns the version it found and the version it
// left. A database of release 0.2.0 (the tables without a version table)
// is upgraded in place, its orders and events kept. Processes starting at
// once take turns: on PostgreSQL under an advisory lock, all migrations in
// one transaction; on SQLite under the database's write lock (BEGIN
// IMMEDIATE). A database at a version newer than this release knows is
// refused with ErrSchemaTooNew and left as it is.
func Migrate(ctx context.Context, db *sql.DB, d Dialect) (from, to int, err error) {
	if db == nil {
		return 0, 0, errors.New("sqlstore: Migrate: nil *sql.DB")
	}
	if d != Postgres && d != SQLite {
		return 0, 0, fmt.Errorf("sqlstore: Migrate: unknown dialect %v", d)
	}
	ms, err := migrations(d)
	if err != nil {
		return 0, 0, fmt.Errorf("sqlstore: Migrate: %w", err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("sqlstore: Migrate: %w", err)
	}
	defer conn.Close()
	begin, commit := "BEGIN", "COMMIT"
	if d == SQLite {
		begin = "BEGIN IMMEDIATE" // the write lock first: no upgrade of a read lock to fail
	}
	if _, err := conn.ExecContext(ctx, begin); err != nil {
		return 0, 0, fmt.Errorf("sqlstore: Migrate: %w", err)
	}
	done := false
	defer func() {
		if !done {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	if d == Postgres {
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7312001)`); err != nil {
			return 0, 0, fmt.Errorf("sqlstore: Migrate: taking the migration lock: %w", err)
		}
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+MigrationsTable+` (version INTEGER PRIMARY KEY, applied_ns BIGINT NOT NULL)`); err != nil {
		return 0, 0, fmt.Errorf("sqlstore: Migrate: %w", err)
	}
	var v sql.NullInt64
	if err := conn.QueryRowContext(ctx, `SELECT MAX(version) FROM `+MigrationsTable).Scan(&v); err != nil {
		return 0, 0, fmt.Errorf("sqlstore: Migrate: reading the schema version: %w", err)
	}
	from = int(v.Int64)
	if from > len(ms) {
		return from, from, fmt.Errorf("%w (database at version %d, this release knows %d)", ErrSchemaTooNew, from, len(ms))
	}
	insert := `INSERT INTO ` + MigrationsTable + ` (version, applied_ns) VALUES (?, ?)`
	if d == Postgres {
		insert = numbered(insert)
	}
	for _, m := range ms[from:] {
		for _, stmt := range statements(m.sql) {
			if _, err := conn.ExecContext(ctx, stmt); err != nil {
				return from, from, fmt.Errorf("sqlstore: Migrate: migration %04d_%s: %w", m.version, m.name, err)
			}
		}
		if _, err := conn.ExecContext(ctx, insert, m.version, time.Now().UnixNano()); err != nil {
			return from, from, fmt.Errorf("sqlstore: Migrate: recording migration %d: %w", m.version, err)
		}
	}
	if _, err := conn.ExecContext(ctx, commit); err != nil {
		return from, from, fmt.Errorf("sqlstore: Migrate: %w", err)
	}
	done = true
	return from, len(ms), nil
}

// statements splits a migration file into its statements: they end with a
// semicolon at the end of a line; comment lines are dropped.
func statements(src string) []string {
	var out []string
	var b strings.Builder
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "--") {
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
		if strings.HasSuffix(t, ";") {
			out = append(out, strings.TrimSpace(b.String()))
			b.Reset()
		}
	}
	if s := strings.TrimSpace(b.String()); s != "" {
		out = append(out, s)
	}
	return out
}
