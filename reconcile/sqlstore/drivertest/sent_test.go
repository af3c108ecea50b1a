package drivertest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// sent is ../testdata/statements.json, which the sqlstore module's own
// test keeps equal to its code: the store's statements as they are sent,
// per dialect ("postgres", "sqlite"), how many orders one Prune
// transaction deletes, how many orders one statement leases, commits or
// releases, and how many events one CommitMany transaction records. This module reads them there, as it sees only
// sqlstore's exported API.
type sent struct {
	PruneBatch int                          `json:"prune_batch"`
	MaxBatch   int                          `json:"max_batch"`
	MaxEvents  int                          `json:"max_events"`
	Statements map[string]map[string]string `json:"statements"`
}

var loadSent = sync.OnceValues(func() (sent, error) {
	var s sent
	b, err := os.ReadFile(filepath.Join("..", "testdata", "statements.json"))
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(b, &s)
})

// sentStatements returns the statements on dialect ("postgres" or "sqlite").
func sentStatements(t testing.TB, dialect string) map[string]string {
	t.Helper()
	s, err := loadSent()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Statements[dialect]) == 0 {
		t.Fatalf("no statements for %s in ../testdata/statements.json", dialect)
	}
	return s.Statements[dialect]
}

// pruneBatch is how many orders one Prune transaction deletes.
func pruneBatch(t testing.TB) int {
	return sentCount(t, "prune_batch", func(s sent) int { return s.PruneBatch })
}

// maxBatch is how many orders one statement leases, commits or releases.
func maxBatch(t testing.TB) int {
	return sentCount(t, "max_batch", func(s sent) int { return s.MaxBatch })
}

// maxEvents is how many events one CommitMany transaction records.
func maxEvents(t testing.TB) int {
	return sentCount(t, "max_events", func(s sent) int { return s.MaxEvents })
}

// sentCount is the count of ../testdata/statements.json that field reads
// (named name there), at least 1.
func sentCount(t testing.TB, name string, field func(sent) int) int {
	t.Helper()
	s, err := loadSent()
	if err != nil {
		t.Fatal(err)
	}
	if field(s) < 1 {
		t.Fatalf("no %s in ../testdata/statements.json", name)
	}
	return field(s)
}
