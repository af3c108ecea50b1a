package main

import (
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
)

// cliVersion is this build's version: the SDK's, which is the one version
// of the project (the User-Agent and the changelog say the same).
func cliVersion() string { return upicollect.Version }

// buildCommit is the VCS revision the binary was built from, with
// "-dirty" when the tree had changes, or "" when the build info has none
// (go install module@version, go test, -buildvcs=false).
func buildCommit(bi *debug.BuildInfo, ok bool) string {
	if !ok {
		return ""
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
}

type versionJSON struct {
	Version   string `json:"version"`
	GoVersion string `json:"go_version"`
	Platform  string `json:"platform"`
	Commit    string `json:"commit,omitempty"`
}

// versionLine is the human form: "upicollect 0.1.0 (go1.23.4 linux/amd64,
// commit 1a2b3c…)".
func versionLine(v versionJSON) string {
	s := "upicollect " + v.Version + " (" + v.GoVersion + " " + v.Platform
	if v.Commit != "" {
		s += ", commit " + v.Commit
	}
	return s + ")"
}

func (a *app) versionCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of upicollect",
		Long: `Print the SDK's version (the one the User-Agent sends and the changelog
lists), the Go version and platform the binary was built with, and the
commit it was built from when the build recorded it.`,
		Example: "  upicollect version\n  upicollect version --json",
		Args:    cobra.NoArgs,
		RunE: a.runE(func(*cobra.Command, []string) error {
			v := versionJSON{Version: cliVersion(), GoVersion: runtime.Version(),
				Platform: runtime.GOOS + "/" + runtime.GOARCH, Commit: buildCommit(debug.ReadBuildInfo())}
			if a.json {
				return a.printJSON(v)
			}
			return writeLine(a.stdout, versionLine(v))
		}),
	}
	cmd.Flags().BoolVar(&a.json, "json", false, "print one JSON document on stdout")
	return cmd
}
