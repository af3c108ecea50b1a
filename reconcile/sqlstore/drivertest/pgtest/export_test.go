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
