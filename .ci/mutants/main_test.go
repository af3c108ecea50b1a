package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGoTestArgs: the package is named from its module, and -run and -skip
// reach go test only when set.
func TestGoTestArgs(t *testing.T) {
	base := []string{"test", "-count=1", "-failfast", "-timeout", "1m0s"}
	for _, tc := range []struct {
		name           string
		cfg            config
		dir, overlay   string
		wantTail       []string
		wantNarrowedTo string
	}{
		{"root package", config{mod: "."}, ".", "", []string{"./."}, ""},
		{"root subpackage", config{mod: "."}, "./reconcile", "o.json", []string{"-overlay", "o.json", "./reconcile"}, ""},
		{"nested module", config{mod: "reconcile/sqlstore", run: "SQLite"}, ".", "o.json", []string{"-run", "SQLite", "-overlay", "o.json", "./."}, " (tests: -run SQLite)"},
		{"skip", config{mod: "m", skip: "Postgres"}, "sub", "", []string{"-skip", "Postgres", "./sub"}, " (tests: -skip Postgres)"},
		{"tests of another module", config{mod: "reconcile/sqlstore", tests: "reconcile/sqlstore/drivertest"}, ".", "o.json", []string{"-overlay", "o.json", "."}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.timeout = time.Minute
			assert.Equal(t, append(append([]string{}, base...), tc.wantTail...), goTestArgs(tc.cfg, tc.dir, tc.overlay))
			assert.Equal(t, tc.wantNarrowedTo, tc.cfg.narrowed())
		})
	}
}

// TestNestedModule mutates a package of a nested module (-C mode) and
// runs that module's tests on each mutant: a test that pins the boundary
// kills both mutants of "<", one that does not lets the boundary mutant
// live; mutants are named from the repository root.
func TestNestedModule(t *testing.T) {
	const src = "package pkg\n\n// Less reports a < b.\nfunc Less(a, b int) bool { return a < b }\n"
	for _, tc := range []struct {
		name      string
		test      string
		wantClean bool
		want      map[string]outcome
	}{
		{
			name:      "boundary pinned",
			test:      "package pkg\n\nimport \"testing\"\n\nfunc TestLess(t *testing.T) {\n\tif !Less(1, 2) || Less(2, 2) || Less(3, 2) {\n\t\tt.Fatal(\"Less\")\n\t}\n}\n",
			wantClean: true,
			want:      map[string]outcome{"<=": killed, ">=": killed},
		},
		{
			name:      "boundary not pinned",
			test:      "package pkg\n\nimport \"testing\"\n\nfunc TestLess(t *testing.T) {\n\tif !Less(1, 2) || Less(3, 2) {\n\t\tt.Fatal(\"Less\")\n\t}\n}\n",
			wantClean: false,
			want:      map[string]outcome{"<=": lived, ">=": killed},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			write := func(name, text string) {
				t.Helper()
				p := filepath.Join(root, name)
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
			}
			write("nested/go.mod", "module example.com/nested\n\ngo 1.23\n")
			write("nested/pkg/less.go", src)
			write("nested/pkg/less_test.go", tc.test)
			chdir(t, root)
			t.Setenv("GOWORK", "off")
			t.Setenv("GOFLAGS", "")

			cfg := config{mod: "nested", timeout: time.Minute}
			ms, err := find(filepath.Join(cfg.mod, "./pkg"), nil)
			require.NoError(t, err)
			require.Len(t, ms, 2)
			work := t.TempDir()
			for i, m := range ms {
				assert.Equal(t, "nested/pkg/less.go", m.file, "named from the repository root")
				got, _ := test(cfg, "./pkg", m, filepath.Join(work, m.new))
				assert.Equal(t, tc.want[m.new], got, "mutant %d: %s", i, m)
			}
			assert.Equal(t, tc.wantClean, run(cfg, "./pkg", nil, ms, map[string]string{}, 2))
		})
	}
}

// chdir changes the working directory for the rest of the test (the tool
// works from the repository root).
func chdir(t *testing.T, dir string) {
	t.Helper()
	old, err := os.Getwd()
	require.NoError(t, err)
	require.NoError(t, os.Chdir(dir))
	t.Cleanup(func() { _ = os.Chdir(old) })
}

// TestFirstFailure: a killed mutant names the test that caught it.
func TestFirstFailure(t *testing.T) {
	for _, tc := range []struct{ out, want string }{
		{"--- FAIL: TestA (0.01s)\n    a_test.go:9: boom\nFAIL\n", " by TestA (0.01s): a_test.go:9: boom"},
		{"--- FAIL: TestB (60.0s)\n", " by TestB (60.0s)"},
		{"ok\n", ""},
	} {
		assert.Equal(t, tc.want, firstFailure([]byte(tc.out)))
	}
}
