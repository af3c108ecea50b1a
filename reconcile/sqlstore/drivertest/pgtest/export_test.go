package pgtest

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// SetOwner writes pid as the owner of s's directory.
func SetOwner(t *testing.T, s *Server, pid int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(s.dir, ownerFile), []byte(strconv.Itoa(pid)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Dir is s's directory.
func Dir(s *Server) string { return s.dir }

// BinDirIn and PlainIdent are the package's decisions that need no server.
var (
	BinDirIn   = binDirIn
	PlainIdent = plainIdent
)

// AddPoll counts one poll's read into c, as a WaitSampler does.
func AddPoll(c *WaitCounts, seen, locked map[string]int, err error, stopped bool) {
	c.add(seen, locked, err, stopped)
}

// ReadActivity is a WaitSampler's one read of pg_stat_activity.
var ReadActivity = readActivity

// Sampled is what w has counted so far.
func Sampled(w *WaitSampler) WaitCounts {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.counts
}
