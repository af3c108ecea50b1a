package main

import (
	"os"
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
	env := []string{envBaseURL + "=http://127.0.0.1:8787", envMID + "=demo", envPublicKey + "=pub", envSecretKey + "=sk_demo"}
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
