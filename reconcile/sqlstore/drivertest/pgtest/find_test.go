package pgtest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest/pgtest"
)

// TestPlainIdent: a role name is taken as it is only when it needs no
// quoting: lower-case letters, digits and _, not starting with a digit.
func TestPlainIdent(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"shop", true},
		{"a", true},
		{"z", true},
		{"_", true},
		{"_a0", true},
		{"x0", true},
		{"x9", true},
		{"a_z09", true},
		{"", false},
		{"0a", false},
		{"9a", false},
		{"1shop", false},
		{"Shop", false},
		{"A", false},
		{"shop-1", false},
		{"shop; DROP", false},
		{"`", false},  // just below 'a'
		{"{", false},  // just above 'z'
		{"x/", false}, // just below '0'
		{"x:", false}, // just above '9'
		{"é", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, pgtest.PlainIdent(tt.name), "%q", tt.name)
	}
}

// TestBinDirIn: the newest version's directory that holds initdb wins,
// whatever order the names sort in; with none, initdb on the PATH; with
// that missing too, ErrNotInstalled.
func TestBinDirIn(t *testing.T) {
	root := t.TempDir()
	program := func(dir, name string) {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755))
	}
	for _, v := range []string{"9", "12", "15"} {
		program(filepath.Join(root, "pg", v, "bin"), "initdb")
	}
	require.NoError(t, os.MkdirAll(filepath.Join(root, "pg", "16", "bin"), 0o755)) // no initdb: half installed
	program(filepath.Join(root, "old", "9", "bin"), "initdb")
	program(filepath.Join(root, "old", "12", "bin"), "initdb")
	onPath := filepath.Join(root, "path")
	program(onPath, "initdb")
	empty := filepath.Join(root, "empty")
	require.NoError(t, os.MkdirAll(empty, 0o755))

	tests := []struct {
		name, pattern, path, want string
	}{
		{"newest with initdb", filepath.Join(root, "pg", "*", "bin"), empty, filepath.Join(root, "pg", "15", "bin")},
		{"numeric order, not the names'", filepath.Join(root, "old", "*", "bin"), empty, filepath.Join(root, "old", "12", "bin")},
		{"none: the PATH's", filepath.Join(root, "none", "*", "bin"), onPath, onPath},
		{"none anywhere", filepath.Join(root, "none", "*", "bin"), empty, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PATH", tt.path)
			got, err := pgtest.BinDirIn(tt.pattern)
			if tt.want == "" {
				assert.ErrorIs(t, err, pgtest.ErrNotInstalled)
				assert.Empty(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
