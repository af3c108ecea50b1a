package root

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
)

// commandPaths are the argument paths of every command under cmd that
// runs (advance is "sandbox advance"), cmd's own first when it runs.
func commandPaths(cmd *cobra.Command, path []string) [][]string {
	var out [][]string
	if cmd.Runnable() && !cmd.Hidden {
		out = append(out, path)
	}
	for _, c := range cmd.Commands() {
		out = append(out, commandPaths(c, append(append([]string{}, path...), c.Name()))...)
	}
	return out
}

// TestEveryCommandSuggestsFlags: on every command, a flag typed with a
// letter missing, with two letters swapped, or with a single dash is
// refused as a usage error (exit 2) that names the flag it meant; a name
// near no flag is refused without a guess.
func TestEveryCommandSuggestsFlags(t *testing.T) {
	f := cmdutil.New(context.Background(), strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, func(string) string { return "" })
	paths := commandPaths(NewCmdRoot(f), nil)
	require.Greater(t, len(paths), 15, "the whole tree: %q", paths)
	for _, path := range paths {
		cmd, _, err := NewCmdRoot(f).Find(path)
		require.NoError(t, err)
		cmd.InitDefaultHelpFlag() // cobra adds --help when it runs
		tested := 0
		cmd.Flags().VisitAll(func(fl *pflag.Flag) {
			if fl.Hidden || len(fl.Name) < 3 {
				return
			}
			n := fl.Name
			for _, typo := range []string{
				"--" + n[:len(n)-1],                    // a letter missing
				"--" + n[:1] + n[2:3] + n[1:2] + n[3:], // two letters swapped
				"-" + n,                                // Go's single dash
			} {
				if typo == "--"+n || cmd.Flags().Lookup(strings.TrimLeft(typo, "-")) != nil {
					continue // no typo, or another flag ("--create" of "--created")
				}
				args := append(append([]string{}, path...), typo)
				r := execute(t, nil, false, args...)
				assert.Equal(t, cmdutil.ExitUsage, r.code, "%q: %s", args, r.stderr)
				assert.Contains(t, r.stderr, "\n\nDid you mean this?\n", "%q", args)
				assert.Contains(t, r.stderr, "\n\t--"+n+"\n", "%q", args)
				assert.Contains(t, r.stderr, "Run '"+strings.Join(append([]string{"upicollect"}, path...), " ")+" --help' for usage.", "%q", args)
			}
			tested++
		})
		assert.Positive(t, tested, "%q has a flag to mistype", path)

		r := execute(t, nil, false, append(append([]string{}, path...), "--zzzzzzzz")...)
		assert.Equal(t, cmdutil.ExitUsage, r.code, "%q: %s", path, r.stderr)
		assert.Contains(t, r.stderr, "unknown flag: --zzzzzzzz\n")
		assert.NotContains(t, r.stderr, "Did you mean", "%q: nothing is near", path)
	}
}

// TestFlagSuggestionsHidden: a hidden flag (the --secret-key trap, wait's
// --poll-interval) is never suggested, and with --json the suggestion is
// in the error's message.
func TestFlagSuggestionsHidden(t *testing.T) {
	for _, args := range [][]string{{"status", "o-1", "--secret-kee"}, {"wait", "o-1", "--poll-intervall"}, {"sandbox", "-secret-key"}} {
		r := execute(t, nil, false, args...)
		assert.Equal(t, cmdutil.ExitUsage, r.code, "%q", args)
		assert.Contains(t, r.stderr, "unknown ", "%q", args)
		assert.NotContains(t, r.stderr, "Did you mean", "%q", args)
	}

	r := execute(t, nil, false, "status", "o-1", "--json", "--jsn")
	assert.Equal(t, cmdutil.ExitUsage, r.code)
	assert.Contains(t, r.stdout, `"message":"unknown flag: --jsn\n\nDid you mean this?\n\t--json\n"`)
}

// TestEditDistance: Levenshtein's distance, at its edges.
func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"json", "json", 0}, {"jsn", "json", 1},
		{"amout", "amount", 1}, {"dns", "dsn", 2}, {"kitten", "sitting", 3}, {"ab", "ba", 2},
	} {
		assert.Equal(t, tt.want, editDistance(tt.a, tt.b), "%q %q", tt.a, tt.b)
		assert.Equal(t, tt.want, editDistance(tt.b, tt.a), "%q %q", tt.b, tt.a)
	}
}
