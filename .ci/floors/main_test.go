package main

import (
	"testing"
)

// TestCheck: an import (or an in-package test's import) of a higher floor
// is refused, an external test's is counted only, another module's
// internal/ is refused whatever the file, an allow line accepts its arrow
// and says when it accepts nothing, and a package without a floor fails.
func TestCheck(t *testing.T) {
	const root = "example.com/r"
	mod := func(p string) *struct{ Path string } { return &struct{ Path string }{p} }
	rs := rules{
		floors: []rule{{"internal/...", 0}, {".", 1}, {"sandbox", 2}, {"cmd/...", 9}},
		allow:  map[[2]string]bool{{"cmd/tool", "internal/old"}: true, {"sandbox", "gone"}: true},
	}
	pkgs := []pkg{
		{ImportPath: root, Imports: []string{root + "/internal/a", "fmt"}, XTestImports: []string{root, root + "/sandbox"}, Module: mod(root)},
		{ImportPath: root + "/internal/a", TestImports: []string{root}, Module: mod(root)},
		{ImportPath: root + "/internal/old", Module: mod(root)},
		{ImportPath: root + "/sandbox", Imports: []string{root}, Module: mod(root)},
		{ImportPath: root + "/cmd/tool", Imports: []string{root + "/internal/a", root + "/internal/old", root + "/sandbox"}, Module: mod(root + "/cmd/tool")},
		{ImportPath: root + "/stray", Module: mod(root)},
	}
	r := check(root, rs, pkgs)
	if r.packages != 6 {
		t.Errorf("packages = %d, want 6", r.packages)
	}
	if len(r.arrows) != 7 {
		t.Errorf("arrows = %d, want 7: %v", len(r.arrows), r.arrows)
	}
	wantUp := []arrow{{".", "sandbox", "xtest"}, {"internal/a", ".", "test"}}
	if len(r.upward) != len(wantUp) {
		t.Fatalf("upward = %v, want %v", r.upward, wantUp)
	}
	for i, a := range wantUp {
		if r.upward[i] != a {
			t.Errorf("upward[%d] = %v, want %v", i, r.upward[i], a)
		}
	}
	wantViolations := []string{
		"internal/a (floor 0, test) imports . (floor 1)",
		"cmd/tool (module cmd/tool) imports internal/a, an internal package of . (module .)",
	}
	if len(r.violations) != len(wantViolations) {
		t.Fatalf("violations = %q, want %q", r.violations, wantViolations)
	}
	for i, v := range wantViolations {
		if r.violations[i] != v {
			t.Errorf("violation %d = %q, want %q", i, r.violations[i], v)
		}
	}
	if len(r.allowed) != 1 || r.allowed[0] != "cmd/tool (module cmd/tool) imports internal/old, an internal package of . (module .)" {
		t.Errorf("allowed = %q", r.allowed)
	}
	if len(r.stale) != 1 || r.stale[0] != "sandbox gone" {
		t.Errorf("stale = %q, want the unused allow line", r.stale)
	}
	if len(r.unplaced) != 1 || r.unplaced[0] != "stray" {
		t.Errorf("unplaced = %q, want stray", r.unplaced)
	}
}

func TestInternalOwner(t *testing.T) {
	for path, want := range map[string]string{
		"a/internal/b":   "a",
		"a/internal":     "a",
		"a/b/internal/c": "a/b",
		"a/internalx/b":  "",
	} {
		got, ok := internalOwner(path)
		if got != want || ok != (want != "") {
			t.Errorf("internalOwner(%q) = %q, %v; want %q", path, got, ok, want)
		}
	}
}
