package main

import (
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3";
// otherwise the module version from the build info is used.
var version = ""

// cliVersion is this build's version: the -X value, the module version of
// `go install …@vX`, or "devel" for a build from a source tree.
func cliVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

type versionJSON struct {
	Version   string `json:"version"`
	GoVersion string `json:"go_version"`
	Platform  string `json:"platform"`
}

func (a *app) versionCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print the version of upicollect",
		Example: "  upicollect version\n  upicollect version --json",
		Args:    cobra.NoArgs,
		RunE: a.runE(func(*cobra.Command, []string) error {
			v := versionJSON{Version: cliVersion(), GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
			if a.json {
				return a.printJSON(v)
			}
			return writeLine(a.stdout, "upicollect "+v.Version+" ("+v.GoVersion+" "+v.Platform+")")
		}),
	}
	cmd.Flags().BoolVar(&a.json, "json", false, "print one JSON document on stdout")
	return cmd
}
