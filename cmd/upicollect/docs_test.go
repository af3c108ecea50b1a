package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The repository's root, and the user's documentation in it: the README
// and the guides.
var (
	repoRoot   = filepath.Join("..", "..")
	cliGuide   = filepath.Join(repoRoot, "docs", "cli.md")
	ledgerDocs = filepath.Join(repoRoot, "docs", "operating.md")
)

// TestDocsCommands runs every create and status command of the command
// line's guide (docs/cli.md), as printed, with --dry-run: their flags exist
// and their values pass validation; every other command gets --help, so
// its flags must exist too. (The whole session, sandbox included, is what
// the README check runs; this keeps the commands from drifting even where
// it cannot.)
func TestDocsCommands(t *testing.T) {
	b, err := os.ReadFile(cliGuide)
	require.NoError(t, err)
	cmds := docCommands(t, string(b))
	require.NotEmpty(t, cmds)
	env := []string{envBaseURL + "=http://127.0.0.1:8787", envMID + "=SANDBOXMID", envPublicKey + "=pub", envSecretKey + "=secret"}
	ran := 0
	for _, args := range cmds {
		switch args[0] {
		case "intent", "request", "order", "link", "status":
			r := cli(t, env, "", append(args, "--dry-run")...)
			assert.Equal(t, exitOK, r.code, "docs/cli.md: upicollect %s\n%s", strings.Join(args, " "), r.output())
			ran++
		default:
			r := cli(t, env, "", append(args, "--help")...)
			assert.Equal(t, exitOK, r.code, "docs/cli.md: upicollect %s\n%s", strings.Join(args, " "), r.output())
		}
	}
	assert.GreaterOrEqual(t, ran, 3, "docs/cli.md shows intent, status and link")
}

var reShellBlock = regexp.MustCompile("(?s)```sh\n(.*?)```")

// docCommands returns the arguments of every `upicollect` command in the
// sh blocks of a Markdown document.
func docCommands(t *testing.T, doc string) [][]string {
	var cmds [][]string
	for _, m := range reShellBlock.FindAllStringSubmatch(doc, -1) {
		script := strings.ReplaceAll(m[1], "\\\n", " ")
		for _, line := range strings.Split(script, "\n") {
			line, _, _ = strings.Cut(line, " #")
			for _, stage := range strings.Split(line, "|") {
				words := shellWords(t, strings.TrimSpace(stage))
				if len(words) > 1 && words[0] == "upicollect" {
					cmds = append(cmds, words[1:])
				}
			}
		}
	}
	return cmds
}

// shellWords splits s as a shell would for the documentation's simple commands:
// blanks separate words, single and double quotes group them.
func shellWords(t *testing.T, s string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	for _, c := range s {
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(c)
		case c == '"' || c == '\'':
			quote, inWord = c, true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(c)
			inWord = true
		}
	}
	require.Zero(t, quote, "unbalanced quote in %q", s)
	if inWord {
		words = append(words, w.String())
	}
	return words
}

func TestShellWords(t *testing.T) {
	assert.Equal(t, []string{"a", "b c", "d'e", "", "f"}, shellWords(t, `a "b c" "d'e" '' f`))
	assert.Empty(t, shellWords(t, "  "))
}

// TestDocsGoCommands resolves the CLI's package as every `go run` and
// `go install` line of the README and the guides that names it does, from
// the repository's root: the path must work as printed, across module
// boundaries too (go list fails where go run would). The Install section's
// lines, a versioned `go install …@latest` and a `go -C` into a clone next
// to the user's module, are run by .ci/install-check instead, and the
// sandbox's own command (cmd/upicollect-sandbox) by the README check.
func TestDocsGoCommands(t *testing.T) {
	guides, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, guides)
	found := 0
	for _, doc := range append([]string{filepath.Join(repoRoot, "README.md")}, guides...) {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		for _, m := range reShellBlock.FindAllStringSubmatch(string(b), -1) {
			for _, line := range strings.Split(strings.ReplaceAll(m[1], "\\\n", " "), "\n") {
				line, _, _ = strings.Cut(line, " #")
				line, _, _ = strings.Cut(line, "&&")
				if !reCLIPackage.MatchString(line) || !reGoRunInstall.MatchString(line) ||
					strings.Contains(line, "/cmd/upicollect@") || strings.Contains(line, "../upicollect-go") {
					continue
				}
				words := shellWords(t, strings.TrimSpace(line))
				for len(words) > 0 && strings.Contains(words[0], "=") { // VAR=value before the command
					words = words[1:]
				}
				list, ok := goListFor(words)
				require.True(t, ok, "%s line %q: not a go run or go install of the CLI", doc, line)
				found++
				cmd := exec.Command("go", list...)
				cmd.Dir = repoRoot
				out, err := cmd.CombinedOutput()
				if assert.NoError(t, err, "%s line %q, as go %s:\n%s", doc, line, strings.Join(list, " "), out) {
					assert.Equal(t, "main\n", string(out), "%s line %q names a command", doc, line)
				}
			}
		}
	}
	assert.GreaterOrEqual(t, found, 2, "the guides build and install the CLI")
}

// reCLIPackage matches a line that names the CLI's package, cmd/upicollect,
// and not cmd/upicollect-sandbox.
var reCLIPackage = regexp.MustCompile(`cmd/upicollect([^-\w]|$)`)

var reGoRunInstall = regexp.MustCompile(`\bgo\b.*\b(run|install)\b`)

// goListFor turns the words of `go [-C DIR] run|install [flags] PKG [args]`
// into the `go list` that resolves the same package.
func goListFor(words []string) ([]string, bool) {
	if len(words) < 3 || words[0] != "go" {
		return nil, false
	}
	var list []string
	rest := words[1:]
	if rest[0] == "-C" && len(rest) > 2 {
		list, rest = []string{"-C", rest[1]}, rest[2:]
	}
	if rest[0] != "run" && rest[0] != "install" {
		return nil, false
	}
	for _, w := range rest[1:] {
		if !strings.HasPrefix(w, "-") {
			return append(list, "list", "-f", "{{.Name}}", w), true
		}
	}
	return nil, false
}

// TestDocsLedgerCommands runs the commands of the ledger's guide
// (docs/operating.md) as printed: track, show and list on a new SQLite
// ledger, and --help of run and serve, whose flags must exist.
func TestDocsLedgerCommands(t *testing.T) {
	b, err := os.ReadFile(ledgerDocs)
	require.NoError(t, err)
	cmds := docCommands(t, string(b))
	env := []string{envDSN + "=sqlite:" + filepath.Join(t.TempDir(), "shop.db")}
	ran := map[string]int{}
	for _, args := range cmds {
		require.Equal(t, "reconcile", args[0], "docs/operating.md: upicollect %s", strings.Join(args, " "))
		switch args[1] {
		case "track", "show", "list":
			r := cli(t, env, "", args...)
			assert.Equal(t, exitOK, r.code, "docs/operating.md: upicollect %s\n%s", strings.Join(args, " "), r.output())
		default:
			r := cli(t, env, "", append(args, "--help")...)
			assert.Equal(t, exitOK, r.code, "docs/operating.md: upicollect %s\n%s", strings.Join(args, " "), r.output())
		}
		ran[args[1]]++
	}
	for _, c := range []string{"track", "show", "list", "run", "serve"} {
		assert.NotZero(t, ran[c], "docs/operating.md shows reconcile %s", c)
	}
}
