package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
)

// TestDatabaseErrorsOneLine: a PostgreSQL that refuses the connection
// (pgx writes each attempt on a tab-indented line of its own, twice when
// it retries without TLS) and a SQLite file that is no database each fail
// as one readable line on stderr, and as a message of one line with
// --json: no \x0a\x09 escapes, each attempt once, the password nowhere.
func TestDatabaseErrorsOneLine(t *testing.T) {
	const pw = "pgPassw0rdQ9"
	port := strings.TrimPrefix(closedURL(t), "http://127.0.0.1:")
	notDB := filepath.Join(t.TempDir(), "shop.db")
	require.NoError(t, os.WriteFile(notDB, []byte("not a database, but long enough to have a header of sixteen bytes or more\n"), 0o600))

	byName := "postgres://shop:" + pw + "@localhost:" + port + "/shop"
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	db, err := sql.Open("pgx", byName)
	require.NoError(t, err)
	raw := db.PingContext(ctx)
	require.NoError(t, db.Close())
	require.Error(t, raw)
	require.Contains(t, raw.Error(), "\n\t", "the driver's own error spans lines: %q", raw)

	tests := []struct {
		name, dsn string
		want      string // in the line
	}{
		{"PostgreSQL refused, by name", byName,
			"PostgreSQL database postgres://shop:xxxxx@localhost:" + port + "/shop: failed to connect to `user=shop database=shop`: " +
				"127.0.0.1:" + port + " (localhost): dial error: dial tcp 127.0.0.1:" + port + ": connect: connection refused"},
		{"PostgreSQL refused, by address, without TLS", "postgres://shop:" + pw + "@127.0.0.1:" + port + "/shop?sslmode=disable",
			"failed to connect to `user=shop database=shop`: 127.0.0.1:" + port + " (127.0.0.1): dial error"},
		{"SQLite, not a database", "sqlite:" + notDB, "SQLite database sqlite:" + notDB + ": file is not a database"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The ledger comes in the variable: --dsn refuses a password.
			env := []string{"UPICOLLECT_RECONCILE_DSN=" + tt.dsn}
			r := cli(t, env, "", "reconcile", "list")
			assert.Equal(t, exitFailure, r.code, r.output())
			assert.Empty(t, r.stdout)
			assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
			assert.Contains(t, r.stderr, tt.want)
			assert.True(t, strings.HasPrefix(r.stderr, "upicollect: "), "%q", r.stderr)
			assert.NotContains(t, r.stderr, `\x0a`)
			assert.NotContains(t, r.stderr, `\x09`)
			assert.NotContains(t, r.stderr, pw)
			seen := map[string]bool{}
			for _, part := range strings.Split(strings.TrimSpace(r.stderr), "; ") {
				assert.False(t, seen[part], "each attempt once: %q", r.stderr)
				seen[part] = true
			}

			r = cli(t, env, "", "reconcile", "list", "--json")
			assert.Equal(t, exitFailure, r.code, r.output())
			var e cmdutil.ErrorJSON
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &e), r.output())
			assert.Contains(t, e.Error.Message, tt.want)
			assert.NotContains(t, e.Error.Message, "\n")
			assert.NotContains(t, e.Error.Message, "\t")
			assert.NotContains(t, r.output(), pw)
		})
	}
}
