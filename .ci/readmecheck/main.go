// Command readmecheck keeps the documentation's code from drifting. It reads
// every fenced block of README.md, of the Markdown files of the
// repository's root that the README links, and of every guide in docs/,
// and
//
//   - compiles every ```go block: a whole program (package main) is built,
//     and run when a <!-- run --> comment precedes it (against a sandbox,
//     whose every new order a payer pays); a fragment is compiled inside
//     the harness a <!-- harness: NAME --> comment names (see harnesses);
//     a harness "test" block is also run with go test;
//   - runs every ```sh, ```bash and ```console block, in order, with bash
//     in a copy of the repository, section by section: a <!-- run: server -->
//     block runs in the background until its section ends (a sandbox
//     listening on a free port that replaces 127.0.0.1:8787 everywhere),
//     a <!-- run: background --> block runs in the background and must
//     exit 0 before its section ends, any other block must exit 0;
//   - skips the blocks marked <!-- illustrative[: why] --> and
//     <!-- install: … --> (.ci/install-check runs those), and counts them;
//   - treats a block marked <!-- pending: PATH[; MARKER] --> as marked
//     MARKER (none when absent) once PATH exists in the repository, and
//     until then skips it, counts it and names it with what it waits for:
//     documentation written ahead of the code it shows.
//
// A code block in none of these forms fails the check. Every block runs in
// a temporary directory: Go blocks build in a workspace of their own that
// holds the repository's modules (so nothing beyond the module proxy is
// needed) and run there; shell blocks run in a copy of the repository. The
// check fails when the shell blocks leave a file in that copy that git
// would not ignore (a reader running them from a clone would find it in
// the work tree), and when the repository's own git status differs after
// the check from before it. It prints what it did, file by file. Usage,
// from the repository root:
//
//	GOWORK=off go -C .ci/readmecheck run . -root ../..
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// block is one fenced code block of a Markdown file.
type block struct {
	file    string // relative to the repository
	line    int    // of the opening fence
	lang    string
	marker  string // the HTML comment before the fence, trimmed: "harness: func"
	section string // the heading the block is under
	text    string
}

func (b block) where() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// counts is what the check did with one file's blocks, printed at its end.
type counts struct {
	compiled, programsRun, testsRun, commandsRun, illustrative, install, output, pending int
}

func (c *counts) add(o counts) {
	c.compiled += o.compiled
	c.programsRun += o.programsRun
	c.testsRun += o.testsRun
	c.commandsRun += o.commandsRun
	c.illustrative += o.illustrative
	c.install += o.install
	c.output += o.output
	c.pending += o.pending
}

func (c counts) String() string {
	return fmt.Sprintf("%d Go blocks compiled (%d programs and %d tests run), %d shell blocks run, %d marked illustrative, %d install blocks left to .ci/install-check, %d output blocks, %d pending",
		c.compiled, c.programsRun, c.testsRun, c.commandsRun, c.illustrative, c.install, c.output, c.pending)
}

// tally is the counts of every file, by file.
type tally map[string]*counts

func (t tally) of(file string) *counts {
	if t[file] == nil {
		t[file] = &counts{}
	}
	return t[file]
}

func main() {
	root := flag.String("root", ".", "the repository's root directory")
	keep := flag.Bool("keep", false, "keep the temporary directory")
	flag.Parse()
	abs, err := filepath.Abs(*root)
	if err == nil {
		err = run(abs, *keep)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "readmecheck:", err)
		os.Exit(1)
	}
}

func run(root string, keep bool) error {
	statusBefore, err := gitStatus(root)
	if err != nil {
		return err
	}
	blocks, err := readDocs(root)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "readmecheck")
	if err != nil {
		return err
	}
	if keep {
		fmt.Println("temporary directory:", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}

	c := tally{}
	var files []string
	var goBlocks, shBlocks []block
	var problems, pending []string
	for _, b := range blocks {
		if c[b.file] == nil {
			files = append(files, b.file)
		}
		fc := c.of(b.file)
		if waits, ok := resolvePending(root, &b); ok {
			fc.pending++
			pending = append(pending, fmt.Sprintf("%s waits for %s", b.where(), waits))
			continue
		}
		kind, _, _ := strings.Cut(b.marker, ":")
		switch {
		case kind == "illustrative":
			fc.illustrative++
		case kind == "install":
			fc.install++
		case b.lang == "go":
			goBlocks = append(goBlocks, b)
		case b.lang == "sh" || b.lang == "bash" || b.lang == "console":
			shBlocks = append(shBlocks, b)
		case b.lang == "" || b.lang == "text":
			fc.output++ // output shown as printed: not run
		default:
			problems = append(problems, fmt.Sprintf("%s: a ```%s block: mark it <!-- illustrative --> or make it go or sh", b.where(), b.lang))
		}
	}
	problems = append(problems, credentialProblems(blocks)...)
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}

	sb, err := startSandbox(root, tmp)
	if err != nil {
		return err
	}
	defer sb.stop()

	if err := checkGo(root, tmp, goBlocks, sb, c); err != nil {
		return err
	}
	if err := checkShell(root, tmp, shBlocks, c); err != nil {
		return err
	}
	statusAfter, err := gitStatus(root)
	if err != nil {
		return err
	}
	if statusAfter != statusBefore {
		return fmt.Errorf("the check changed the repository's work tree: git status --porcelain was\n%s\nand is now\n%s",
			orDefault(statusBefore, "(nothing)\n"), orDefault(statusAfter, "(nothing)\n"))
	}
	var all counts
	for _, f := range files {
		fmt.Printf("readmecheck: %s: %s\n", f, c[f])
		all.add(*c[f])
	}
	for _, p := range pending {
		fmt.Println("readmecheck: pending:", p)
	}
	fmt.Printf("readmecheck: %d files: %s\n", len(files), all)
	return nil
}

// resolvePending applies b's <!-- pending: PATH[; MARKER] --> marker: when
// PATH exists in the repository b takes MARKER; otherwise ok is true and
// waits names what b waits for.
func resolvePending(root string, b *block) (waits string, ok bool) {
	rest, found := strings.CutPrefix(b.marker, "pending:")
	if !found {
		return "", false
	}
	path, marker, _ := strings.Cut(rest, ";")
	path = strings.TrimSpace(path)
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(path))); err == nil {
		b.marker = strings.TrimSpace(marker)
		return "", false
	}
	return path, true
}

// gitStatus is the repository's git status --porcelain.
func gitStatus(root string) (string, error) {
	cmd := exec.Command("git", "status", "--porcelain", "--untracked-files=all")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git status: %w", err)
	}
	return string(out), nil
}

var (
	reLink   = regexp.MustCompile(`\]\(([A-Za-z0-9_.-]+\.md)(#[^)]*)?\)`)
	reMarker = regexp.MustCompile(`^<!--\s*(.*?)\s*-->$`)
)

// readDocs returns the blocks of README.md, of the Markdown files of the
// repository's root that it links, and of every Markdown file in docs/.
func readDocs(root string) ([]block, error) {
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		return nil, err
	}
	files := []string{"README.md"}
	seen := map[string]bool{"README.md": true}
	for _, m := range reLink.FindAllStringSubmatch(string(readme), -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			files = append(files, m[1])
		}
	}
	guides, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	sort.Strings(guides)
	for _, g := range guides {
		files = append(files, "docs/"+filepath.Base(g))
	}
	var all []block
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			return nil, fmt.Errorf("README links %s: %w", f, err)
		}
		bs, err := parseBlocks(f, string(b))
		if err != nil {
			return nil, err
		}
		all = append(all, bs...)
	}
	return all, nil
}

// parseBlocks returns the fenced blocks of a Markdown text, each with the
// HTML comment on the last non-blank line before it and its heading.
func parseBlocks(file, text string) ([]block, error) {
	var out []block
	lines := strings.Split(text, "\n")
	section, prev := "", ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "#") {
			section = strings.TrimSpace(strings.TrimLeft(l, "#"))
		}
		if !strings.HasPrefix(l, "```") {
			if strings.TrimSpace(l) != "" {
				prev = strings.TrimSpace(l)
			}
			continue
		}
		b := block{file: file, line: i + 1, lang: strings.TrimSpace(strings.TrimPrefix(l, "```")), section: section}
		if m := reMarker.FindStringSubmatch(prev); m != nil {
			b.marker = m[1]
		}
		var body []string
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			body = append(body, lines[i])
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s: unclosed code block", b.where())
		}
		b.text = strings.Join(body, "\n") + "\n"
		out = append(out, b)
		prev = ""
	}
	return out, nil
}

// goEnv is the go command's environment for the check: the workspace at
// dir, whatever the caller's GOWORK and GOFLAGS.
func goEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOWORK=") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// writeWorkspace writes a go.work in dir that uses dir/blocks and every
// module of the repository's own workspace, with its replacements.
func writeWorkspace(root, dir string) error {
	cmd := exec.Command("go", "work", "edit", "-json")
	cmd.Dir = root
	cmd.Env = goEnv()
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go work edit -json in the repository: %w", err)
	}
	var w struct {
		Go      string
		Use     []struct{ DiskPath string }
		Replace []struct {
			Old struct{ Path, Version string }
			New struct{ Path, Version string }
		}
	}
	if err := json.Unmarshal(out, &w); err != nil {
		return err
	}
	var s strings.Builder
	fmt.Fprintf(&s, "go %s\n\nuse (\n\t./blocks\n", w.Go)
	for _, u := range w.Use {
		fmt.Fprintf(&s, "\t%s\n", filepath.Join(root, u.DiskPath))
	}
	s.WriteString(")\n\nreplace (\n")
	for _, r := range w.Replace {
		to := r.New.Path
		if r.New.Version == "" {
			to = filepath.Join(root, to)
		} else {
			to += " " + r.New.Version
		}
		fmt.Fprintf(&s, "\t%s %s => %s\n", r.Old.Path, r.Old.Version, to)
	}
	s.WriteString(")\n")
	if err := os.WriteFile(filepath.Join(dir, "go.work"), []byte(s.String()), 0o644); err != nil {
		return err
	}
	if sum, err := os.ReadFile(filepath.Join(root, "go.work.sum")); err == nil {
		if err := os.WriteFile(filepath.Join(dir, "go.work.sum"), sum, 0o644); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "blocks"), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "blocks", "go.mod"), []byte("module readmecheck\n\ngo "+w.Go+"\n"), 0o644)
}

// goUnit is one Go block as the check builds it: a package directory.
type goUnit struct {
	b    block
	dir  string // under blocks/
	test bool   // built and run with go test
	run  bool   // a program to run
}

func checkGo(root, tmp string, blocks []block, sb *sandboxProc, c tally) error {
	ws := filepath.Join(tmp, "go")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return err
	}
	if err := writeWorkspace(root, ws); err != nil {
		return err
	}
	var units []goUnit
	var problems []string
	for i, b := range blocks {
		u := goUnit{b: b, dir: fmt.Sprintf("b%02d", i+1)}
		kind, arg, _ := strings.Cut(b.marker, ":")
		arg = strings.TrimSpace(arg)
		var files map[string]string
		switch {
		case strings.HasPrefix(b.text, "package main\n"):
			if b.marker != "" && b.marker != "run" {
				problems = append(problems, fmt.Sprintf("%s: a program takes no marker but <!-- run -->, not <!-- %s -->", b.where(), b.marker))
				continue
			}
			u.run = b.marker == "run"
			files = map[string]string{"main.go": lineDirective(b) + b.text}
		case kind == "harness":
			h, ok := harnesses[arg]
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: no harness %q (harnesses: %s)", b.where(), arg, harnessNames()))
				continue
			}
			files = h.files(b)
			u.test = h.test
		default:
			problems = append(problems, fmt.Sprintf("%s: a Go fragment needs <!-- harness: NAME --> before it (harnesses: %s), or <!-- illustrative -->", b.where(), harnessNames()))
			continue
		}
		dir := filepath.Join(ws, "blocks", u.dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for name, src := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
				return err
			}
		}
		units = append(units, u)
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}

	// One go test that runs nothing compiles every block, tests included,
	// each error at the document's line (//line directives).
	cmd := exec.Command("go", "test", "-count=1", "-run=^$", "./...")
	cmd.Dir = filepath.Join(ws, "blocks")
	cmd.Env = goEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("the Go blocks do not compile:\n%s", out)
	}
	for _, u := range units {
		c.of(u.b.file).compiled++
	}
	for _, u := range units {
		switch {
		case u.test:
			cmd := exec.Command("go", "test", "-count=1", "./"+u.dir)
			cmd.Dir = filepath.Join(ws, "blocks")
			cmd.Env = goEnv()
			out, err := cmd.CombinedOutput()
			fmt.Printf("-- %s (go test)\n%s", u.b.where(), out)
			if err != nil {
				return fmt.Errorf("%s: go test: %w", u.b.where(), err)
			}
			c.of(u.b.file).testsRun++
		case u.run:
			if err := runProgram(ws, u, sb); err != nil {
				return fmt.Errorf("%s: %w", u.b.where(), err)
			}
			c.of(u.b.file).programsRun++
		}
	}
	return nil
}

// lineDirective makes the compiler report b's lines as the document's.
func lineDirective(b block) string {
	return fmt.Sprintf("//line %s:%d\n", filepath.Join("/README", b.file), b.line+1)
}

// runProgram builds and runs a program against the sandbox with the
// README's environment, paying every order it creates, in a directory of
// its own under the check's temporary directory.
func runProgram(ws string, u goUnit, sb *sandboxProc) error {
	bin := filepath.Join(ws, u.dir+".bin")
	build := exec.Command("go", "build", "-o", bin, "./"+u.dir)
	build.Dir = filepath.Join(ws, "blocks")
	build.Env = goEnv()
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	stop := sb.payEveryOrder(ctx)
	defer stop()
	dir, err := os.MkdirTemp(ws, u.dir+".run")
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, bin)
	cmd.Dir = dir // what it writes stays in the check's temporary directory
	cmd.Env = append(os.Environ(), sb.env()...)
	out, err := cmd.CombinedOutput()
	fmt.Printf("-- %s (run against the sandbox)\n%s", u.b.where(), out)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	return nil
}

// The one set of credentials the README's examples use.
const (
	docMID       = "SANDBOXMID"
	docPublicKey = "pub"
	docSecretKey = "secret"
	docAddr      = "127.0.0.1:8787"
)

var reCredential = regexp.MustCompile(`UPICOLLECT_(MID|PUBLIC_KEY|SECRET_KEY)=([^\s"']+)|"(mid|public_key|secret_key)":"([^"]*)"`)

var reCurlAuth = regexp.MustCompile(`-u ([^:\s]+):(\S+)(?: -d mid=(\S+))?`)

// credentialProblems names every block that shows other sandbox credentials
// than the one set the documentation uses: a reader who mixes two sets gets
// 401s.
func credentialProblems(blocks []block) []string {
	want := map[string]string{"MID": docMID, "PUBLIC_KEY": docPublicKey, "SECRET_KEY": docSecretKey}
	var problems []string
	for _, b := range blocks {
		for _, m := range reCurlAuth.FindAllStringSubmatch(b.text, -1) {
			if m[1] != docPublicKey || m[2] != docSecretKey || (m[3] != "" && m[3] != docMID) {
				problems = append(problems, fmt.Sprintf("%s: curl %q: the documentation's sandbox credentials are MID %s, public key %s, secret key %s",
					b.where(), m[0], docMID, docPublicKey, docSecretKey))
			}
		}
		for _, m := range reCredential.FindAllStringSubmatch(b.text, -1) {
			name, value := m[1], m[2]
			if name == "" {
				name, value = strings.ToUpper(m[3]), m[4]
			}
			if value != want[name] {
				problems = append(problems, fmt.Sprintf("%s: %s %q: the documentation's sandbox credentials are MID %s, public key %s, secret key %s",
					b.where(), strings.ToLower(name), value, docMID, docPublicKey, docSecretKey))
			}
		}
	}
	return problems
}

// sandboxProc is a sandbox for the Go programs: cmd/upicollect-sandbox's
// when the repository has it (it builds in seconds), else the CLI's.
type sandboxProc struct {
	cmd  *exec.Cmd
	addr string
}

func (s *sandboxProc) env() []string {
	return []string{"UPICOLLECT_BASE_URL=http://" + s.addr, "UPICOLLECT_MID=" + docMID,
		"UPICOLLECT_PUBLIC_KEY=" + docPublicKey, "UPICOLLECT_SECRET_KEY=" + docSecretKey}
}

func startSandbox(root, tmp string) (*sandboxProc, error) {
	bin := filepath.Join(tmp, "sandbox")
	build := exec.Command("go", "build", "-o", bin, "./cmd/upicollect-sandbox")
	build.Dir = root
	var args []string
	if _, err := os.Stat(filepath.Join(root, "cmd", "upicollect-sandbox")); err != nil {
		build = exec.Command("go", "build", "-o", bin, ".")
		build.Dir = filepath.Join(root, "cmd", "upicollect")
		args = []string{"sandbox"}
	}
	build.Env = goEnv()
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building a sandbox: %v\n%s", err, out)
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	s := &sandboxProc{addr: addr}
	s.cmd = exec.Command(bin, append(args, "--addr", addr, "--public-key", docPublicKey, "--mid", docMID, "--quiet")...)
	s.cmd.Env = append(os.Environ(), "UPICOLLECT_SECRET_KEY="+docSecretKey)
	s.cmd.Stderr = io.Discard
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	if err := waitListening(addr, time.Minute); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

func (s *sandboxProc) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// payEveryOrder plays the payer until stop: every pending order of the
// sandbox is paid.
func (s *sandboxProc) payEveryOrder(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			var orders []struct {
				OrderID string `json:"order_id"`
				Status  string `json:"status"`
			}
			if err := getJSON(ctx, "http://"+s.addr+"/sandbox/orders", &orders); err != nil {
				continue
			}
			for _, o := range orders {
				if o.Status == "PENDING" {
					req, _ := http.NewRequestWithContext(ctx, http.MethodPost,
						"http://"+s.addr+"/sandbox/orders/"+url.PathEscape(o.OrderID)+"/pay",
						strings.NewReader("result=SUCCESS"))
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
					if resp, err := http.DefaultClient.Do(req); err == nil {
						resp.Body.Close()
					}
				}
			}
		}
	}()
	return func() { cancel(); wg.Wait() }
}

func getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func waitListening(addr string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nothing listens on %s after %s: %w", addr, within, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkShell runs the shell blocks, section by section, in a copy of the
// repository, and then fails when they left a file there that git would
// not ignore: a reader who runs them from a clone keeps a clean work tree.
func checkShell(root, tmp string, blocks []block, c tally) error {
	clone := filepath.Join(tmp, "repo")
	copied, err := copyRepo(root, clone)
	if err != nil {
		return err
	}
	home := filepath.Join(tmp, "gopath")
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return err
	}
	base := goEnv("GOPATH="+home, "GOMODCACHE="+strings.TrimSpace(string(modcache)))
	for len(blocks) > 0 {
		n := 1
		for n < len(blocks) && blocks[n].file == blocks[0].file && blocks[n].section == blocks[0].section {
			n++
		}
		if err := runSection(clone, tmp, base, blocks[:n], c); err != nil {
			return err
		}
		blocks = blocks[n:]
	}
	left, err := leftovers(root, clone, copied)
	if err != nil {
		return err
	}
	if len(left) > 0 {
		return fmt.Errorf("the shell blocks leave in a clone's work tree what git status would show (write to a temporary directory instead):\n\t%s",
			strings.Join(left, "\n\t"))
	}
	return nil
}

// leftovers lists the files of the copy at dir that are new, changed or
// gone since it was copied (copied: each file's digest), leaving out those
// the repository's .gitignore ignores.
func leftovers(root, dir string, copied map[string][sha256.Size]byte) ([]string, error) {
	var changed []string
	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		seen[rel] = true
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if sum, ok := copied[rel]; !ok || sum != sha256.Sum256(b) {
			changed = append(changed, rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for rel := range copied {
		if !seen[rel] {
			changed = append(changed, rel)
		}
	}
	if len(changed) == 0 {
		return nil, nil
	}
	cmd := exec.Command("git", "check-ignore", "--no-index", "--stdin")
	cmd.Dir = root
	cmd.Stdin = strings.NewReader(strings.Join(changed, "\n") + "\n")
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) { // 1: none is ignored
		return nil, fmt.Errorf("git check-ignore: %w", err)
	}
	ignored := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		ignored[l] = true
	}
	var left []string
	for _, rel := range changed {
		if !ignored[rel] {
			left = append(left, rel)
		}
	}
	sort.Strings(left)
	return left, nil
}

// runSection runs the blocks of one section as a reader would, one shell
// after another, the exports of each carried to the next.
func runSection(dir, tmp string, env []string, blocks []block, c tally) error {
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	envFile := filepath.Join(tmp, "section.env")
	if err := os.WriteFile(envFile, nil, 0o644); err != nil {
		return err
	}
	var servers, background []*exec.Cmd
	var bgBlocks []block
	var bgOut []*bytes.Buffer
	defer func() {
		for _, s := range append(servers, background...) {
			if s.ProcessState == nil {
				_ = syscall.Kill(-s.Process.Pid, syscall.SIGINT)
				done := make(chan struct{})
				go func() { _ = s.Wait(); close(done) }()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					_ = syscall.Kill(-s.Process.Pid, syscall.SIGKILL)
					<-done
				}
			}
		}
	}()
	for _, b := range blocks {
		script := strings.ReplaceAll(b.text, docAddr, addr)
		switch b.marker {
		case "run: server":
			script = withAddr(script, addr)
		}
		full := "set -eo pipefail\nsource " + envFile + "\n" + script
		if b.marker == "" {
			full += "\nexport -p > " + envFile + "\n"
		}
		cmd := exec.Command("bash", "-c", full)
		cmd.Dir = dir
		cmd.Env = env
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		fmt.Printf("-- %s (%s)\n%s", b.where(), orDefault(b.marker, "run"), indent(script))
		switch b.marker {
		case "run: server":
			if err := cmd.Start(); err != nil {
				return err
			}
			servers = append(servers, cmd)
			if err := waitListening(addr, 3*time.Minute); err != nil {
				return fmt.Errorf("%s: the server block: %w\n%s", b.where(), err, out.String())
			}
		case "run: background":
			if err := cmd.Start(); err != nil {
				return err
			}
			background = append(background, cmd)
			bgBlocks = append(bgBlocks, b)
			bgOut = append(bgOut, &out)
		case "":
			err := runBounded(cmd, 3*time.Minute)
			fmt.Print(indentOut(out.String()))
			if err != nil {
				return fmt.Errorf("%s: %w", b.where(), err)
			}
		default:
			return fmt.Errorf("%s: unknown marker <!-- %s --> (shell blocks: run: server, run: background, illustrative, install: …)", b.where(), b.marker)
		}
		c.of(b.file).commandsRun++
	}
	for i, bg := range background {
		err := waitBounded(bg, time.Minute)
		fmt.Printf("-- %s (background, ended)\n%s", bgBlocks[i].where(), indentOut(bgOut[i].String()))
		if err != nil {
			return fmt.Errorf("%s: %w", bgBlocks[i].where(), err)
		}
	}
	return nil
}

var reSandboxCmd = regexp.MustCompile(`(?m)^([^#\n]*\bsandbox\b[^#\n]*?)(\s*#.*)?$`)

// withAddr gives a sandbox command of a server block the check's address
// when it names none (the CLI's default is 127.0.0.1:8787).
func withAddr(script, addr string) string {
	if strings.Contains(script, "--addr") {
		return script
	}
	return reSandboxCmd.ReplaceAllString(script, "$1 --addr "+addr+"$2")
}

func runBounded(cmd *exec.Cmd, d time.Duration) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	return waitBounded(cmd, d)
}

func waitBounded(cmd *exec.Cmd, d time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return fmt.Errorf("still running after %s", d)
	}
}

// copyRepo copies the repository's files (tracked, and untracked but not
// ignored) to dst, and returns each one's digest by its slash path.
func copyRepo(root, dst string) (map[string][sha256.Size]byte, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	copied := map[string][sha256.Size]byte{}
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, f)
		fi, err := os.Lstat(src)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return nil, err
		}
		to := filepath.Join(dst, f)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(to, b, fi.Mode().Perm()); err != nil {
			return nil, err
		}
		copied[filepath.ToSlash(f)] = sha256.Sum256(b)
	}
	return copied, nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func indent(s string) string {
	var b strings.Builder
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		b.WriteString("   $ " + sc.Text() + "\n")
	}
	return b.String()
}

func indentOut(s string) string {
	var b strings.Builder
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		b.WriteString("   " + sc.Text() + "\n")
	}
	return b.String()
}

func harnessNames() string {
	var names []string
	for n := range harnesses {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
