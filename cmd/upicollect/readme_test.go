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

// TestREADMECommands runs every create and status command of the README's
// "Command line" section, as printed, with --dry-run: their flags exist and
// their values pass validation. (The whole session, sandbox included, is
// what the README shows; this keeps the commands from drifting.)
func TestREADMECommands(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	cmds := readmeCommands(t, string(b), "## Command line")
	require.NotEmpty(t, cmds)
	env := []string{envBaseURL + "=http://127.0.0.1:8787", envMID + "=SANDBOXMID", envPublicKey + "=pub", envSecretKey + "=secret"}
	ran := 0
	for _, args := range cmds {
		switch args[0] {
		case "intent", "request", "order", "link", "status":
			r := cli(t, env, "", append(args, "--dry-run")...)
			assert.Equal(t, exitOK, r.code, "README: upicollect %s\n%s", strings.Join(args, " "), r.output())
			ran++
		default:
			r := cli(t, env, "", append(args, "--help")...)
			assert.Equal(t, exitOK, r.code, "README: upicollect %s\n%s", strings.Join(args, " "), r.output())
		}
	}
	assert.GreaterOrEqual(t, ran, 3, "the README shows intent, status and link")
}

var reShellBlock = regexp.MustCompile("(?s)```sh\n(.*?)```")

// readmeCommands returns the arguments of every `upicollect` command in the
// sh blocks of the README section that starts with heading.
func readmeCommands(t *testing.T, readme, heading string) [][]string {
	start := strings.Index(readme, heading+"\n")
	require.GreaterOrEqual(t, start, 0, "README has no %q section", heading)
	section := readme[start+len(heading):]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	var cmds [][]string
	for _, m := range reShellBlock.FindAllStringSubmatch(section, -1) {
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

// shellWords splits s as a shell would for the README's simple commands:
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

// TestREADMEGoCommands resolves the CLI's package as every `go run` and
// `go install` line of the README that names it does, from the
// repository's root: the path must work as printed, across module
// boundaries too (go list fails where go run would). The Install section's
// lines, a versioned `go install …@latest` and a `go -C` into a clone next
// to the user's module, are run by .ci/install-check instead.
func TestREADMEGoCommands(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	found := 0
	for _, m := range reShellBlock.FindAllStringSubmatch(string(b), -1) {
		for _, line := range strings.Split(strings.ReplaceAll(m[1], "\\\n", " "), "\n") {
			line, _, _ = strings.Cut(line, " #")
			line, _, _ = strings.Cut(line, "&&")
			if !strings.Contains(line, "cmd/upicollect") || !reGoRunInstall.MatchString(line) ||
				strings.Contains(line, "/cmd/upicollect@") || strings.Contains(line, "../upicollect-go") {
				continue
			}
			words := shellWords(t, strings.TrimSpace(line))
			for len(words) > 0 && strings.Contains(words[0], "=") { // VAR=value before the command
				words = words[1:]
			}
			list, ok := goListFor(words)
			require.True(t, ok, "README line %q: not a go run or go install of the CLI", line)
			found++
			cmd := exec.Command("go", list...)
			cmd.Dir = filepath.Join("..", "..")
			out, err := cmd.CombinedOutput()
			if assert.NoError(t, err, "README line %q, as go %s:\n%s", line, strings.Join(list, " "), out) {
				assert.Equal(t, "main\n", string(out), "README line %q names a command", line)
			}
		}
	}
	assert.GreaterOrEqual(t, found, 2, "the README runs and installs the CLI")
}

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

// TestREADMELedgerCommands runs the commands of the README's "Operating
// the ledger" section as printed: track, show and list on a new SQLite
// ledger (the section's export names it), and --help of run and serve,
// whose flags must exist.
func TestREADMELedgerCommands(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	cmds := readmeCommands(t, string(b), "## Operating the ledger")
	env := []string{envDSN + "=sqlite:" + filepath.Join(t.TempDir(), "shop.db")}
	ran := map[string]int{}
	for _, args := range cmds {
		require.Equal(t, "reconcile", args[0], "README: upicollect %s", strings.Join(args, " "))
		switch args[1] {
		case "track", "show", "list":
			r := cli(t, env, "", args...)
			assert.Equal(t, exitOK, r.code, "README: upicollect %s\n%s", strings.Join(args, " "), r.output())
		default:
			r := cli(t, env, "", append(args, "--help")...)
			assert.Equal(t, exitOK, r.code, "README: upicollect %s\n%s", strings.Join(args, " "), r.output())
		}
		ran[args[1]]++
	}
	for _, c := range []string{"track", "show", "list", "run", "serve"} {
		assert.NotZero(t, ran[c], "the section shows reconcile %s", c)
	}
}
