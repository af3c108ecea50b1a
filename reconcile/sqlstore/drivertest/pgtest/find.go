package pgtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
)

// pgBinDirs is where the Debian packages put each major version's programs.
const pgBinDirs = "/usr/lib/postgresql/*/bin"

// binDir finds the newest /usr/lib/postgresql/*/bin holding initdb, else
// the directory of initdb on the PATH.
func binDir() (string, error) { return binDirIn(pgBinDirs) }

// binDirIn is binDir over the directories pattern matches, the newest
// version (see versionOf) first.
func binDirIn(pattern string) (string, error) {
	dirs, _ := filepath.Glob(pattern)
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", ErrNotInstalled
}

// versionOf is the major version of a /usr/lib/postgresql/N/bin.
func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// plainIdent reports whether s is a non-empty lower-case SQL identifier
// that needs no quoting.
func plainIdent(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}
