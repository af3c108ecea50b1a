// Command modproxy writes a file-based Go module proxy (GOPROXY=file://DIR)
// holding this repository's modules at one version, as a release would
// publish them: each module's files (tracked, or untracked and not ignored by
// git; nested modules left out, as the go command leaves them out), zipped by
// golang.org/x/mod/zip under its module path, with its .mod, .info and @v/list.
//
// A module that requires another module of the repository gets, in its
// zipped go.sum, the lines for that module's zip and go.mod: what a release
// commits after publishing the module it depends on, and what
// `go install pkg@version` checks the dependency against.
//
// It refuses a published module whose go.mod has a replace directive (the go
// command refuses those in `go install pkg@version`) or requires another
// module of the repository at another version than the one published.
//
// Usage, from the repository root (a module of its own, outside the
// workspace):
//
//	GOWORK=off go -C .ci/modproxy run . -root ../.. -version v0.3.0 -out DIR MODDIR...
//
// MODDIRs are relative to -root, dependencies first.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

func main() {
	root := flag.String("root", ".", "the repository's root directory")
	version := flag.String("version", "", "the version to publish every module at, e.g. v0.3.0")
	out := flag.String("out", "", "the proxy directory to write")
	flag.Parse()
	if *version == "" || *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: modproxy -root DIR -version vX.Y.Z -out DIR MODDIR...")
		os.Exit(2)
	}
	if err := run(*root, *version, *out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
}

// published is one module written to the proxy: what the go.sum of a module
// that requires it must say.
type published struct {
	path, zipSum, modSum string
}

func run(root, version, out string, dirs []string) error {
	files, err := repoFiles(root)
	if err != nil {
		return err
	}
	modRoots := map[string]bool{}
	for _, f := range files {
		if path.Base(f) == "go.mod" {
			modRoots[path.Dir(f)] = true
		}
	}
	done := map[string]published{}
	for _, dir := range dirs {
		dir = path.Clean(filepath.ToSlash(dir))
		if !modRoots[dir] {
			return fmt.Errorf("%s: no go.mod among the repository's files", dir)
		}
		p, err := publish(root, dir, version, out, files, modRoots, done)
		if err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		done[p.path] = p
		fmt.Printf("%s@%s (%s)\n", p.path, version, p.zipSum)
	}
	return nil
}

// repoFiles lists the repository's files as a clone would have them, plus
// the untracked ones git does not ignore, relative to root.
func repoFiles(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	var files []string
	for _, f := range strings.Split(strings.TrimRight(string(b), "\x00"), "\x00") {
		if _, err := os.Lstat(filepath.Join(root, f)); err == nil { // deleted, not yet committed
			files = append(files, f)
		}
	}
	sort.Strings(files)
	return files, nil
}

func publish(root, dir, version, out string, files []string, modRoots map[string]bool, done map[string]published) (published, error) {
	gomod, err := os.ReadFile(filepath.Join(root, dir, "go.mod"))
	if err != nil {
		return published{}, err
	}
	mf, err := modfile.ParseLax("go.mod", gomod, nil)
	if err != nil {
		return published{}, err
	}
	if mf.Module == nil {
		return published{}, errors.New("go.mod has no module line")
	}
	mv := module.Version{Path: mf.Module.Mod.Path, Version: version}
	if len(mf.Replace) > 0 {
		return published{}, fmt.Errorf("go.mod replaces %s: go install %s@%s refuses a module with replace directives", mf.Replace[0].Old.Path, mv.Path, version)
	}
	var sums []string
	for _, r := range mf.Require {
		if !strings.HasPrefix(r.Mod.Path, "github.com/upicollect/upicollect-go") {
			continue
		}
		if r.Mod.Version != version {
			return published{}, fmt.Errorf("requires %s %s: the repository's modules are released together, at %s", r.Mod.Path, r.Mod.Version, version)
		}
		dep, ok := done[r.Mod.Path]
		if !ok {
			return published{}, fmt.Errorf("requires %s, which is not published before it", r.Mod.Path)
		}
		sums = append(sums, fmt.Sprintf("%s %s %s\n%s %s/go.mod %s\n", dep.path, version, dep.zipSum, dep.path, version, dep.modSum))
	}

	var zfiles []modzip.File
	prefix := dir + "/"
	if dir == "." {
		prefix = ""
	}
	for _, f := range files {
		if !strings.HasPrefix(f, prefix) || inNestedModule(f, dir, modRoots) {
			continue
		}
		rel := strings.TrimPrefix(f, prefix)
		zf := &file{rel: rel, abs: filepath.Join(root, f)}
		if rel == "go.sum" && len(sums) > 0 {
			b, err := os.ReadFile(zf.abs)
			if err != nil {
				return published{}, err
			}
			zf.data = addSums(b, sums)
		}
		zfiles = append(zfiles, zf)
	}

	vdir := filepath.Join(out, filepath.FromSlash(mustEscape(mv.Path)), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return published{}, err
	}
	var zbuf bytes.Buffer
	if err := modzip.Create(&zbuf, mv, zfiles); err != nil {
		return published{}, err
	}
	zipName := filepath.Join(vdir, version+".zip")
	info, _ := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, time.Now().UTC().Truncate(time.Second)})
	for name, b := range map[string][]byte{
		zipName:                              zbuf.Bytes(),
		filepath.Join(vdir, version+".mod"):  gomod,
		filepath.Join(vdir, version+".info"): info,
		filepath.Join(vdir, "list"):          []byte(version + "\n"),
	} {
		if err := os.WriteFile(name, b, 0o644); err != nil {
			return published{}, err
		}
	}
	zipSum, err := dirhash.HashZip(zipName, dirhash.Hash1)
	if err != nil {
		return published{}, err
	}
	modSum, err := dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(gomod)), nil
	})
	if err != nil {
		return published{}, err
	}
	return published{path: mv.Path, zipSum: zipSum, modSum: modSum}, nil
}

// inNestedModule reports whether f, a file of the repository, belongs to a
// module nested in the one at dir.
func inNestedModule(f, dir string, modRoots map[string]bool) bool {
	for d := path.Dir(f); d != dir && d != "."; d = path.Dir(d) {
		if modRoots[d] {
			return true
		}
	}
	return false
}

// addSums returns go.sum b with lines added, sorted as the go command keeps it.
func addSums(b []byte, add []string) []byte {
	var lines []string
	for _, l := range strings.Split(string(b)+strings.Join(add, ""), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	sort.Strings(lines)
	return []byte(strings.Join(lines, "\n") + "\n")
}

func mustEscape(p string) string {
	e, err := module.EscapePath(p)
	if err != nil {
		panic(err)
	}
	return e
}

// file is one file of a module's zip: read from abs, or data when set.
type file struct {
	rel, abs string
	data     []byte
}

func (f *file) Path() string { return f.rel }

func (f *file) Lstat() (fs.FileInfo, error) {
	fi, err := os.Lstat(f.abs)
	if err != nil || f.data == nil {
		return fi, err
	}
	return sizedInfo{fi, int64(len(f.data))}, nil
}

func (f *file) Open() (io.ReadCloser, error) {
	if f.data != nil {
		return io.NopCloser(bytes.NewReader(f.data)), nil
	}
	return os.Open(f.abs)
}

// sizedInfo is a file's information with the size of the data that replaces it.
type sizedInfo struct {
	fs.FileInfo
	size int64
}

func (s sizedInfo) Size() int64 { return s.size }
