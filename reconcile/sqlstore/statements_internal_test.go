package sqlstore

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// update rewrites testdata/statements.json from the code.
var update = flag.Bool("update", false, "rewrite testdata/statements.json")

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
			if got := statements(tc.src); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("statements(%q) = %q, want %q", tc.src, got, tc.want)
			}
		})
	}
}

// sent is what testdata/statements.json holds: the store's statements on
// each dialect as they are sent (the lease statement for a batch of 1000),
// how many orders one Prune transaction deletes, how many orders one
// statement leases, commits or releases, and how many events one
// CommitMany transaction records. The driver tests
// (module reconcile/sqlstore/drivertest) read it to EXPLAIN the statements
// on real databases and to prune past one batch; this module has no
// driver, so the file is how they see the unexported code.
type sent struct {
	PruneBatch int                          `json:"prune_batch"`
	MaxBatch   int                          `json:"max_batch"`
	MaxEvents  int                          `json:"max_events"`
	Statements map[string]map[string]string `json:"statements"`
}

func statementsOf(d Dialect) map[string]string {
	q := newQueries(d)
	all := map[string]string{
		"lease":       q.leaseQuery(1000),
		"leaseOrder":  q.leaseOrder,
		"extend":      q.extend,
		"hold":        q.hold,         // SQLite
		"commitHold":  q.commitHold,   // PostgreSQL
		"record":      q.commitRecord, // PostgreSQL
		"commitMany":  q.commitMany,
		"release":     q.release,
		"nextDue":     q.nextDue,
		"nextDueWalk": q.nextDueWalk,
		"untrack":     q.untrack,
	}
	for name, text := range all {
		if text == "" {
			delete(all, name) // not the dialect's
		}
	}
	return all
}

// TestStatementsGolden: testdata/statements.json is the code's (go test
// -run TestStatementsGolden -update rewrites it).
func TestStatementsGolden(t *testing.T) {
	want := sent{PruneBatch: pruneBatch, MaxBatch: maxBatch, MaxEvents: maxEvents, Statements: map[string]map[string]string{
		"postgres": statementsOf(Postgres),
		"sqlite":   statementsOf(SQLite),
	}}
	path := filepath.Join("testdata", "statements.json")
	if *update {
		b, err := json.MarshalIndent(want, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got sent
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s is not the code's statements: go test -run TestStatementsGolden -update", path)
	}
}
