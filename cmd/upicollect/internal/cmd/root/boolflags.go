package root

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// plainBool is a boolean flag's value without IsBoolFlag. pflag (1.1.0,
// as this module requires) writes a flag whose value says IsBoolFlag as
// "--json[=true|false]" in help; without it, and with NoOptDefVal "true", the help shows
// "--json" and parsing is unchanged: "--json" sets true, "--json=false"
// false, and "--json false" stays an argument, as before.
type plainBool struct{ pflag.Value }

// plainBoolFlags makes every boolean flag that cmd's help lists (its own,
// the ones it inherits, and cobra's --help and --version) show as
// "--json". It runs when the help is drawn, after parsing, so that
// cobra's own flags, added late, are covered too.
func plainBoolFlags(cmd *cobra.Command) {
	for c := cmd; c != nil; c = c.Parent() {
		for _, fs := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) {
				if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() && f.Value.Type() == "bool" {
					f.Value = plainBool{f.Value}
					f.NoOptDefVal = "true"
				}
			})
		}
	}
}

// withPlainBoolFlags wraps root's usage (which the help prints too) so
// that boolean flags show as "--json", not "--json[=true|false]".
func withPlainBoolFlags(root *cobra.Command) {
	usage := root.UsageFunc()
	root.SetUsageFunc(func(c *cobra.Command) error {
		plainBoolFlags(c)
		return usage(c)
	})
}
