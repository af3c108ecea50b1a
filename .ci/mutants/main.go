// Command mutants is the repository's mutation tester: it changes one
// operator at a time in a package's source and runs that package's tests
// against each change. A change the tests still pass (LIVED) is a behaviour
// no test pins.
//
// It makes the mutants gremlins makes by default (conditionals boundary and
// negation, arithmetic, increment/decrement, inverted negatives) and runs
// every one of them. gremlins v0.6.0 reports a mutant as "not covered", and
// never runs it, when it sits in a switch's case expression or in a constant,
// because Go's coverage blocks start after a case's colon: 85 of the root
// package's 407 mutants, most of them the validation and retry decisions.
// Each mutant here is applied through `go test -overlay`, so workers share one
// checkout and the build cache.
//
// Usage, from the repository root:
//
//	go run ./.ci/mutants [-workers N] [-list] [-file REGEXP] [-v] PKGDIR...
//	go run ./.ci/mutants -C MODDIR [-run REGEXP] [-skip REGEXP] ... PKGDIR...
//
// With -C the packages are in the nested module at MODDIR (such as
// reconcile/sqlstore): PKGDIRs are relative to it and its tests run there,
// with their own go.mod (and the repository's go.work). -run and -skip narrow
// the tests run against every mutant (and against the unmutated package),
// for a package whose whole suite is too slow; the score is then the score
// of those tests. Mutants are named by their path from the repository root
// either way.
//
// Survivors judged equivalent (no test can tell them from the original) are
// listed, with the reason, in .ci/mutants/equivalent.txt; the score is the
// share of the other mutants that the tests caught.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
)

// config is how every mutant of a run is tested.
type config struct {
	mod       string // the module's directory, relative to the repository root
	timeout   time.Duration
	run, skip string // go test -run and -skip; "" for none
	tests     string // the package directory whose tests run, from the repository root; "" for the mutated package
	verbose   bool   // print every mutant's outcome
}

// mutant is one operator replaced at one place.
type mutant struct {
	file     string // path relative to the repository root
	offset   int    // byte offset of the operator
	old, new string
	line     int
	col      int
	kind     string
	src      string // the line, trimmed, with the operator marked «thus»
	nth      int    // 2 for the second mutant of a file with the same src and new, ...
}

// key names a mutant in equivalent.txt: file, marked line and replacement
// stay valid when lines above it move.
func (m mutant) key() string {
	k := m.file + ": " + m.src + " => " + m.new
	if m.nth > 1 {
		k += fmt.Sprintf(" #%d", m.nth)
	}
	return k
}

func (m mutant) String() string {
	return fmt.Sprintf("%s:%d:%d %s %s->%s", m.file, m.line, m.col, m.kind, m.old, m.new)
}

// replacements are gremlins' default mutators, operator by operator.
var replacements = map[token.Token][]struct{ kind, to string }{
	token.LSS: {{"CONDITIONALS_BOUNDARY", "<="}, {"CONDITIONALS_NEGATION", ">="}},
	token.LEQ: {{"CONDITIONALS_BOUNDARY", "<"}, {"CONDITIONALS_NEGATION", ">"}},
	token.GTR: {{"CONDITIONALS_BOUNDARY", ">="}, {"CONDITIONALS_NEGATION", "<="}},
	token.GEQ: {{"CONDITIONALS_BOUNDARY", ">"}, {"CONDITIONALS_NEGATION", "<"}},
	token.EQL: {{"CONDITIONALS_NEGATION", "!="}},
	token.NEQ: {{"CONDITIONALS_NEGATION", "=="}},
	token.ADD: {{"ARITHMETIC_BASE", "-"}},
	token.SUB: {{"ARITHMETIC_BASE", "+"}},
	token.MUL: {{"ARITHMETIC_BASE", "/"}},
	token.QUO: {{"ARITHMETIC_BASE", "*"}},
	token.REM: {{"ARITHMETIC_BASE", "*"}},
	token.INC: {{"INCREMENT_DECREMENT", "--"}},
	token.DEC: {{"INCREMENT_DECREMENT", "++"}},
}

func main() {
	workers := flag.Int("workers", 2, "mutants tested at once")
	list := flag.Bool("list", false, "list the mutants without testing them")
	only := flag.String("file", "", "only mutate files whose path matches this regexp")
	timeout := flag.Duration("timeout", 3*time.Minute, "go test -timeout for one mutant")
	mod := flag.String("C", ".", "the directory of the module the PKGDIRs are in, from the repository root (a nested module such as reconcile/sqlstore)")
	runRE := flag.String("run", "", "go test -run for every mutant: only these tests judge them")
	tests := flag.String("tests", "", "the directory, from the repository root, of the package whose tests judge the mutants (default: the mutated package's own); for a package tested from a test-only module such as reconcile/sqlstore/drivertest")
	skipRE := flag.String("skip", "", "go test -skip for every mutant")
	verbose := flag.Bool("v", false, "print every mutant's outcome and the first test that failed on it")
	flag.Parse()
	cfg := config{mod: filepath.ToSlash(filepath.Clean(*mod)), tests: *tests, timeout: *timeout, run: *runRE, skip: *skipRE, verbose: *verbose}
	dirs := flag.Args()
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	var fileRE *regexp.Regexp
	if *only != "" {
		fileRE = regexp.MustCompile(*only)
	}
	equivalent, err := readEquivalent(".ci/mutants/equivalent.txt")
	if err != nil {
		fatal(err)
	}
	failed := false
	for _, dir := range dirs {
		ms, err := find(filepath.Join(cfg.mod, dir), fileRE)
		if err != nil {
			fatal(err)
		}
		if *list {
			for _, m := range ms {
				fmt.Printf("%s\n    %s\n", m, m.key())
			}
			continue
		}
		if !run(cfg, dir, fileRE, ms, equivalent, *workers) {
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "mutants:", err)
	os.Exit(2)
}

// find lists the mutants of dir's non-test Go files; dir is relative to the
// repository root, and so are the mutants' files.
func find(dir string, fileRE *regexp.Regexp) ([]mutant, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var out []mutant
	for _, name := range names {
		name = filepath.ToSlash(filepath.Clean(name))
		if strings.HasSuffix(name, "_test.go") || (fileRE != nil && !fileRE.MatchString(name)) {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		add := func(pos token.Pos, op token.Token) {
			p := fset.Position(pos)
			for _, r := range replacements[op] {
				out = append(out, mutant{
					file: name, offset: p.Offset, old: op.String(), new: r.to,
					line: p.Line, col: p.Column, kind: r.kind, src: lineText(src, p.Offset, len(op.String())),
				})
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				add(n.OpPos, n.Op)
			case *ast.IncDecStmt:
				add(n.TokPos, n.Tok)
			case *ast.UnaryExpr:
				if n.Op == token.SUB {
					p := fset.Position(n.OpPos)
					out = append(out, mutant{
						file: name, offset: p.Offset, old: "-", new: "+",
						line: p.Line, col: p.Column, kind: "INVERT_NEGATIVES", src: lineText(src, p.Offset, 1),
					})
				}
			}
			return true
		})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].file != out[j].file {
			return out[i].file < out[j].file
		}
		return out[i].offset < out[j].offset
	})
	seen := map[string]int{}
	for i := range out {
		k := out[i].key()
		seen[k]++
		out[i].nth = seen[k]
	}
	return out, nil
}

// lineText returns the line holding src[off:off+n], trimmed, with that
// operator marked.
func lineText(src []byte, off, n int) string {
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	end := bytes.IndexByte(src[off:], '\n')
	if end < 0 {
		end = len(src) - off
	}
	marked := string(src[start:off]) + "«" + string(src[off:off+n]) + "»" + string(src[off+n:off+end])
	return strings.Join(strings.Fields(marked), " ")
}

// outcome is what the tests said of one mutant.
type outcome int

const (
	killed outcome = iota
	lived
	timedOut  // the tests ran past -timeout: caught, as gremlins counts it
	notViable // the mutant does not compile
)

// run tests every mutant of one package (dir, in cfg's module) and prints
// the survivors and the score.
func run(cfg config, dir string, fileRE *regexp.Regexp, ms []mutant, equivalent map[string]string, workers int) bool {
	pkg := filepath.ToSlash(filepath.Join(cfg.mod, dir))
	fmt.Printf("== %s: %d mutants%s\n", pkg, len(ms), cfg.narrowed())
	if out, err := goTest(cfg, dir, ""); err != nil {
		fmt.Printf("the unmutated tests fail:\n%s\n", out)
		return false
	}
	tmp, err := os.MkdirTemp("", "mutants")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(tmp)

	results := make([]outcome, len(ms))
	var g errgroup.Group
	g.SetLimit(workers)
	for i, m := range ms {
		g.Go(func() error {
			var first string
			results[i], first = test(cfg, dir, m, filepath.Join(tmp, fmt.Sprint(i)))
			if cfg.verbose {
				fmt.Fprintf(os.Stderr, "%-10s %s%s\n", results[i], m, first)
			}
			if results[i] == lived {
				// Said at once, so a long run's survivors can be worked on
				// before it ends; the summary below judges them.
				fmt.Fprintf(os.Stderr, "lived so far: %s\n", m.key())
			}
			return nil
		})
	}
	_ = g.Wait() // every test returns nil: failures are outcomes

	var count [4]int
	var equiv, survivors int
	for i, m := range ms {
		r := results[i]
		count[r]++
		if r != lived {
			continue
		}
		if why, ok := equivalent[m.key()]; ok {
			equiv++
			fmt.Printf("EQUIVALENT %s\n    %s\n", m, why)
			continue
		}
		survivors++
		fmt.Printf("LIVED      %s\n%s\n", m, m.key())
	}
	// An entry of a scanned file whose mutant no longer exists (the line
	// changed) is stale.
	keys := map[string]bool{}
	for _, m := range ms {
		keys[m.key()] = true
	}
	for k := range equivalent {
		file, _, _ := strings.Cut(k, ": ")
		scanned := filepath.ToSlash(filepath.Dir(file)) == pkg && (fileRE == nil || fileRE.MatchString(file))
		if scanned && !keys[k] {
			fmt.Printf("STALE      equivalent.txt names no mutant: %s\n", k)
		}
	}
	caught := count[killed] + count[timedOut]
	judged := caught + survivors
	score := 100.0
	if judged > 0 {
		score = 100 * float64(caught) / float64(judged)
	}
	fmt.Printf("%s: killed %d, timed out %d, lived %d (%d judged equivalent), not viable %d\n",
		pkg, count[killed], count[timedOut], count[lived], equiv, count[notViable])
	fmt.Printf("%s: %.1f%% of non-equivalent mutants caught (%d of %d)%s\n", pkg, score, caught, judged, cfg.narrowed())
	return survivors == 0
}

func (o outcome) String() string {
	return [...]string{"KILLED", "LIVED", "TIMED OUT", "NOT VIABLE"}[o]
}

// narrowed says which tests judge the mutants, when not all of them do.
func (c config) narrowed() string {
	var s string
	if c.run != "" {
		s += " -run " + c.run
	}
	if c.skip != "" {
		s += " -skip " + c.skip
	}
	if s != "" {
		s = " (tests:" + s + ")"
	}
	return s
}

// test applies one mutant through an overlay and runs the package's tests.
// first is the first test that failed, for a killed mutant.
func test(cfg config, dir string, m mutant, work string) (_ outcome, first string) {
	if err := os.MkdirAll(work, 0o755); err != nil {
		fatal(err)
	}
	src, err := os.ReadFile(m.file)
	if err != nil {
		fatal(err)
	}
	mutated := append(append(append([]byte{}, src[:m.offset]...), m.new...), src[m.offset+len(m.old):]...)
	file := filepath.Join(work, filepath.Base(m.file))
	if err := os.WriteFile(file, mutated, 0o644); err != nil {
		fatal(err)
	}
	abs, err := filepath.Abs(m.file)
	if err != nil {
		fatal(err)
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {abs: file}})
	if err != nil {
		fatal(err)
	}
	ovl := filepath.Join(work, "overlay.json")
	if err := os.WriteFile(ovl, overlay, 0o644); err != nil {
		fatal(err)
	}
	out, err := goTest(cfg, dir, ovl)
	switch {
	case err == nil:
		return lived, ""
	case bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]")):
		return notViable, ""
	case bytes.Contains(out, []byte("panic: test timed out")):
		return timedOut, ""
	default:
		return killed, firstFailure(out)
	}
}

// firstFailure is the first "--- FAIL: TestName" of go test's output, and
// the first line under it (the failure's place), as " by TestName (...)".
func firstFailure(out []byte) string {
	_, rest, ok := bytes.Cut(out, []byte("--- FAIL: "))
	if !ok {
		return ""
	}
	lines := strings.SplitN(string(rest), "\n", 3)
	s := " by " + strings.TrimSpace(lines[0])
	if len(lines) > 1 && strings.TrimSpace(lines[1]) != "" {
		s += ": " + strings.TrimSpace(lines[1])
	}
	return s
}

// goTestArgs is the go test command line for the package dir of cfg's
// module, with an overlay ("" for none).
func goTestArgs(cfg config, dir, overlay string) []string {
	args := []string{"test", "-count=1", "-failfast", "-timeout", cfg.timeout.String()}
	if cfg.run != "" {
		args = append(args, "-run", cfg.run)
	}
	if cfg.skip != "" {
		args = append(args, "-skip", cfg.skip)
	}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	if cfg.tests != "" {
		return append(args, ".")
	}
	return append(args, "./"+strings.TrimPrefix(filepath.ToSlash(filepath.Clean(dir)), "./"))
}

// goTest runs the tests of the package dir inside cfg's module.
func goTest(cfg config, dir, overlay string) ([]byte, error) {
	cmd := exec.Command("go", goTestArgs(cfg, dir, overlay)...)
	cmd.Dir = cfg.mod
	if cfg.tests != "" {
		cmd.Dir = cfg.tests
	}
	return cmd.CombinedOutput()
}

// readEquivalent reads the judged-equivalent survivors: blocks of a key line
// ("file: line with the «operator» marked => replacement") followed by
// indented reason lines.
func readEquivalent(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	var key string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
		case line[0] == ' ' || line[0] == '\t':
			if key == "" {
				return nil, fmt.Errorf("%s: a reason before any mutant", path)
			}
			out[key] = strings.TrimSpace(out[key] + " " + strings.TrimSpace(line))
		default:
			key = line
			out[key] = ""
		}
	}
	return out, sc.Err()
}
