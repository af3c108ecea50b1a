// Command floors checks that the repository's packages form a house whose
// floors point down: every package of every module is given a floor in
// .ci/floors/floors.txt, and a package (its own files and its in-package
// tests) may import only packages on its floor or below. No module may
// import another module's internal/ packages, whatever the files.
//
// An external test package (package p_test) is not imported by anything: it
// stands above its module, like net/http's tests that use net/http/httptest.
// Its upward arrows are counted and listed, not refused.
//
// A line "allow FROM TO" in floors.txt accepts the arrows from package FROM
// to package TO while code elsewhere catches up; it is listed on every run,
// and a run says when it is no longer needed.
//
// Usage, from the repository root:
//
//	go run ./.ci/floors [-v]
//
// It prints the count of import arrows between the repository's packages
// and of those that run upward, and fails (exit status 1) on a violation or
// on a package that floors.txt does not place. -v lists every upward arrow.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// pkg is the part of `go list -json` the check reads.
type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Module       *struct{ Path string }
	Error        *struct{ Err string }
}

// arrow is one import between two of the repository's packages.
type arrow struct {
	from, to string
	kind     string // "import", "test" (in-package test) or "xtest"
}

// rule places the packages a pattern matches on a floor.
type rule struct {
	pattern string // a path relative to the root module; "/..." matches below it too
	floor   int
}

// rules is floors.txt: the floors and the arrows accepted against them.
type rules struct {
	floors []rule
	allow  map[[2]string]bool // from, to: relative to the root module
}

func main() {
	verbose := flag.Bool("v", false, "list every upward arrow")
	flag.Parse()
	root := rootModule()
	rs, err := readRules(".ci/floors/floors.txt")
	if err != nil {
		fail(err)
	}
	mods, err := modules(".")
	if err != nil {
		fail(err)
	}
	work, err := workspace()
	if err != nil {
		fail(err)
	}
	var pkgs []pkg
	for _, dir := range mods {
		p, err := list(dir, work[filepath.Clean(dir)])
		if err != nil {
			fail(err)
		}
		pkgs = append(pkgs, p...)
	}
	r := check(root, rs, pkgs)
	r.print(os.Stdout, *verbose)
	if len(r.violations) > 0 || len(r.unplaced) > 0 {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "floors:", err)
	os.Exit(2)
}

// rootModule is the module path of the repository root's go.mod.
func rootModule() string {
	b, err := os.ReadFile("go.mod")
	if err != nil {
		fail(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return f[1]
		}
	}
	fail(fmt.Errorf("go.mod: no module line"))
	return ""
}

// readRules reads floors.txt: one "FLOOR PATTERN" or "allow FROM TO" a
// line, '#' to the end of a line is a comment.
func readRules(name string) (rules, error) {
	rs := rules{allow: map[[2]string]bool{}}
	f, err := os.Open(name)
	if err != nil {
		return rs, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		line, _, _ := strings.Cut(s.Text(), "#")
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
			continue
		case len(fields) == 3 && fields[0] == "allow":
			rs.allow[[2]string{fields[1], fields[2]}] = true
			continue
		case len(fields) != 2:
			return rs, fmt.Errorf("%s:%d: want FLOOR PATTERN or allow FROM TO, have %q", name, n, s.Text())
		}
		floor, err := strconv.Atoi(fields[0])
		if err != nil {
			return rs, fmt.Errorf("%s:%d: floor %q is not a number", name, n, fields[0])
		}
		rs.floors = append(rs.floors, rule{pattern: fields[1], floor: floor})
	}
	return rs, s.Err()
}

// modules lists the directories holding a go.mod under dir, dir first;
// directories starting with '.' or '_' and testdata are skipped, as the go
// command skips them.
func modules(dir string) ([]string, error) {
	var mods []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != dir {
			name := d.Name()
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor" {
				return filepath.SkipDir
			}
		}
		if !d.IsDir() && d.Name() == "go.mod" {
			mods = append(mods, filepath.Dir(path))
		}
		return nil
	})
	sort.Strings(mods) // "." sorts first
	return mods, err
}

// workspace is the set of module directories go.work uses, cleaned.
func workspace() (map[string]bool, error) {
	out, err := exec.Command("go", "work", "edit", "-json").Output()
	if err != nil {
		return nil, fmt.Errorf("go work edit -json: %w", err)
	}
	var w struct{ Use []struct{ DiskPath string } }
	if err := json.Unmarshal(out, &w); err != nil {
		return nil, fmt.Errorf("go work edit -json: %w", err)
	}
	use := map[string]bool{}
	for _, u := range w.Use {
		use[filepath.Clean(u.DiskPath)] = true
	}
	return use, nil
}

// list runs `go list -json ./...` in a module's directory: in the
// workspace when go.work uses the module, else with GOWORK=off (a module
// kept out of it, such as bench/river, whose go line is above the floor).
// A pattern that matched no module is an error, not an empty list.
func list(dir string, inWorkspace bool) ([]pkg, error) {
	cmd := exec.Command("go", "list", "-e", "-json", "./...")
	cmd.Dir = dir
	if !inWorkspace {
		cmd.Env = append(os.Environ(), "GOWORK=off")
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list in %s: %v\n%s", dir, err, stderr.Bytes())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			return pkgs, nil
		} else if err != nil {
			return nil, fmt.Errorf("go list in %s: %v", dir, err)
		}
		if p.Module == nil && p.Error != nil {
			return nil, fmt.Errorf("go list in %s: %s", dir, p.Error.Err)
		}
		pkgs = append(pkgs, p)
	}
}

// report is what the check found.
type report struct {
	packages   int
	arrows     []arrow // distinct (from, to) pairs between the repository's packages
	upward     []arrow // arrows whose target stands on a higher floor
	violations []string
	allowed    []string // violations floors.txt accepts
	stale      []string // allow lines that accept nothing
	unplaced   []string
}

// check reads every package's arrows against the floors.
func check(root string, rs rules, pkgs []pkg) report {
	var r report
	rel := func(path string) string {
		if path == root {
			return "."
		}
		return strings.TrimPrefix(path, root+"/")
	}
	ours := func(path string) bool { return path == root || strings.HasPrefix(path, root+"/") }
	floorOf := func(path string) (int, bool) {
		best, floor := -1, 0
		p := rel(path)
		for _, ru := range rs.floors {
			base, below := strings.CutSuffix(ru.pattern, "/...")
			if p == base || (below && (base == "." || strings.HasPrefix(p, base+"/"))) {
				if len(base) > best {
					best, floor = len(base), ru.floor
				}
			}
		}
		return floor, best >= 0
	}
	moduleOf := map[string]string{}
	for _, p := range pkgs {
		if p.Module != nil {
			moduleOf[p.ImportPath] = p.Module.Path
		}
	}
	seen := map[[2]string]bool{}
	used := map[[2]string]bool{}
	refuse := func(key [2]string, msg string) {
		if rs.allow[key] {
			used[key] = true
			r.allowed = append(r.allowed, msg)
			return
		}
		r.violations = append(r.violations, msg)
	}
	for _, p := range pkgs {
		if !ours(p.ImportPath) {
			continue
		}
		r.packages++
		from, placed := floorOf(p.ImportPath)
		if !placed {
			r.unplaced = append(r.unplaced, rel(p.ImportPath))
			continue
		}
		for _, kind := range []struct {
			name  string
			paths []string
		}{{"import", p.Imports}, {"test", p.TestImports}, {"xtest", p.XTestImports}} {
			for _, to := range kind.paths {
				if !ours(to) || to == p.ImportPath {
					continue
				}
				a := arrow{from: rel(p.ImportPath), to: rel(to), kind: kind.name}
				key := [2]string{a.from, a.to}
				if seen[key] {
					continue
				}
				seen[key] = true
				if owner, in := internalOwner(to); in && moduleOf[p.ImportPath] != moduleOf[to] {
					refuse(key, fmt.Sprintf("%s (module %s) imports %s, an internal package of %s (module %s)",
						a.from, rel(moduleOf[p.ImportPath]), a.to, rel(owner), rel(moduleOf[to])))
				}
				r.arrows = append(r.arrows, a)
				target, placed := floorOf(to)
				if !placed || target <= from {
					continue
				}
				r.upward = append(r.upward, a)
				if kind.name != "xtest" {
					refuse(key, fmt.Sprintf("%s (floor %d, %s) imports %s (floor %d)",
						a.from, from, a.kind, a.to, target))
				}
			}
		}
	}
	for key := range rs.allow {
		if !used[key] {
			r.stale = append(r.stale, key[0]+" "+key[1])
		}
	}
	sort.Strings(r.stale)
	return r
}

// internalOwner reports whether path is an internal package and the path
// that holds its internal/ directory.
func internalOwner(path string) (string, bool) {
	if i := strings.LastIndex(path, "/internal/"); i >= 0 {
		return path[:i], true
	}
	if strings.HasSuffix(path, "/internal") {
		return strings.TrimSuffix(path, "/internal"), true
	}
	return "", false
}

func (r report) print(w io.Writer, verbose bool) {
	fmt.Fprintf(w, "%d packages, %d import arrows between them, %d run upward (%d from external test packages, allowed)\n",
		r.packages, len(r.arrows), len(r.upward), len(r.upward)-countNot(r.upward, "xtest"))
	if verbose {
		for _, a := range r.upward {
			fmt.Fprintf(w, "  up: %s -> %s (%s)\n", a.from, a.to, a.kind)
		}
	}
	for _, a := range r.allowed {
		fmt.Fprintf(w, "allowed by floors.txt: %s\n", a)
	}
	for _, s := range r.stale {
		fmt.Fprintf(w, "note: \"allow %s\" in floors.txt accepts nothing any more: delete it\n", s)
	}
	for _, u := range r.unplaced {
		fmt.Fprintf(w, "FAIL: package %s has no floor in .ci/floors/floors.txt\n", u)
	}
	for _, v := range r.violations {
		fmt.Fprintf(w, "FAIL: %s\n", v)
	}
}

// countNot counts the arrows of another kind than kind.
func countNot(arrows []arrow, kind string) int {
	n := 0
	for _, a := range arrows {
		if a.kind != kind {
			n++
		}
	}
	return n
}
