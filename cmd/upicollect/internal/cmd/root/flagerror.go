package root

import (
	"errors"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
)

// flagError is every command's flag error (the root's FlagErrorFunc,
// which cobra hands down): a usage error, and for an unknown flag the
// flags its name is close to, as cobra suggests a mistyped command:
//
//	unknown flag: --amout
//
//	Did you mean this?
//		--amount
func flagError(cmd *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if errors.As(err, &ne) {
		if s := flagSuggestions(cmd, ne); len(s) > 0 {
			err = errors.New(err.Error() + "\n\nDid you mean this?\n\t--" + strings.Join(s, "\n\t--") + "\n")
		}
	}
	return cmdutil.UsageError(err)
}

// suggestionDistance is how many edits apart a typed flag name and a
// flag's may be for the flag to be suggested: cobra's default for
// commands (SuggestionsMinimumDistance).
const suggestionDistance = 2

// flagSuggestions are the names of cmd's visible flags (its own and those
// it inherits) that the unknown flag of ne may have meant: the one a
// single dash hid ("-amount" parses as the shorthands a, m, o, ...), else,
// in order, those within suggestionDistance edits of it or that it starts.
func flagSuggestions(cmd *cobra.Command, ne *pflag.NotExistError) []string {
	fs := cmd.Flags()
	var out []string
	if group := ne.GetSpecifiedShortnames(); group != "" {
		// pflag names the rest of the group from the first letter that is
		// no shorthand: "-host" is -h (--help), then 'o' in "ost".
		rest, _, _ := strings.Cut(group, "=")
		fs.VisitAll(func(f *pflag.Flag) {
			if !f.Hidden && strings.HasSuffix(f.Name, rest) && allShorthands(fs, strings.TrimSuffix(f.Name, rest)) {
				out = append(out, f.Name)
			}
		})
		return out
	}
	typed := strings.ToLower(ne.GetSpecifiedName())
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		name := strings.ToLower(f.Name)
		if editDistance(typed, name) <= suggestionDistance || (len(typed) > 1 && strings.HasPrefix(name, typed)) {
			out = append(out, f.Name)
		}
	})
	sort.Strings(out)
	return out
}

// allShorthands reports whether every letter of s is a shorthand of fs,
// as pflag read them before the one it did not know ("" is).
func allShorthands(fs *pflag.FlagSet, s string) bool {
	for _, r := range s {
		if fs.ShorthandLookup(string(r)) == nil {
			return false
		}
	}
	return true
}

// editDistance is the Levenshtein distance between a and b, in bytes
// (flag names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
