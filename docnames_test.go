package upicollect_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDocsNameNoInternalPackage: the root package's documentation (what
// `go doc` and pkg.go.dev show) never names an identifier of an internal
// package, such as retry.RetryCost, which a user can neither import nor
// look up.
func TestDocsNameNoInternalPackage(t *testing.T) {
	entries, err := os.ReadDir("internal")
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, regexp.QuoteMeta(e.Name()))
		}
	}
	require.Contains(t, names, "retry")
	reInternal := regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\.[A-Z]\w*`)

	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var files []*ast.File
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		require.NoError(t, err)
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/upicollect/upicollect-go")
	require.NoError(t, err)

	docs := map[string]string{"package": p.Doc}
	addValues := func(vs []*doc.Value) {
		for _, v := range vs {
			docs[strings.Join(v.Names, ",")] = v.Doc
		}
	}
	addFuncs := func(fs []*doc.Func) {
		for _, f := range fs {
			docs[f.Recv+f.Name] = f.Doc
		}
	}
	addValues(p.Consts)
	addValues(p.Vars)
	addFuncs(p.Funcs)
	for _, ty := range p.Types {
		docs[ty.Name] = ty.Doc
		addValues(ty.Consts)
		addValues(ty.Vars)
		addFuncs(ty.Funcs)
		addFuncs(ty.Methods)
	}
	require.Greater(t, len(docs), 50, "the package's exported identifiers")
	for name, text := range docs {
		assert.Empty(t, reInternal.FindAllString(text, -1), "the doc of %s names an internal package's identifier", name)
	}
}
