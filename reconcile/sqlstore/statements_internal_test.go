package sqlstore

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStatements: a migration file splits at the semicolons that end a
// line, comment and blank lines are dropped, and a last statement without
// its semicolon is kept.
func TestStatements(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"empty", "", nil},
		{"only comments and blank lines", "-- one\n\n   -- two\n\t\n", nil},
		{"one statement", "CREATE TABLE t (a INT);\n", []string{"CREATE TABLE t (a INT);"}},
		{"over lines, comments between", "-- the table\nCREATE TABLE t (\n\ta INT\n);\n\n-- its index\nCREATE INDEX i ON t (a);",
			[]string{"CREATE TABLE t (\n\ta INT\n);", "CREATE INDEX i ON t (a);"}},
		{"a semicolon inside a line does not end it", "SELECT ';' AS x,\n 1;\n", []string{"SELECT ';' AS x,\n 1;"}},
		{"the last without its semicolon", "DROP INDEX a;\nDROP INDEX b\n", []string{"DROP INDEX a;", "DROP INDEX b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, statements(tc.src))
		})
	}
}
