// Package version is `upicollect version`.
package version

import (
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
)

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

// VersionOptions are what `upicollect version` runs with.
type VersionOptions struct {
	IO   *iostreams.IOStreams
	JSON bool
}

// NewCmdVersion is `upicollect version`; runF, when not nil, runs instead
// of versionRun (tests).
func NewCmdVersion(f *cmdutil.Factory, runF func(*VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of upicollect",
		Long: `Print the SDK's version (the one the User-Agent sends and the changelog
lists), the Go version and platform the binary was built with, and the
commit it was built from when the build recorded it.`,
		Example: "  upicollect version\n  upicollect version --json",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return versionRun(opts)
		},
	}
	cmdutil.AddJSONFlag(cmd, &opts.JSON, "print one JSON document on stdout")
	return cmd
}

func versionRun(opts *VersionOptions) error {
	v := versionJSON{Version: cmdutil.Version(), GoVersion: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, Commit: buildCommit(debug.ReadBuildInfo())}
	if opts.JSON {
		return opts.IO.PrintJSON(v)
	}
	return iostreams.WriteLine(opts.IO.Out, versionLine(v))
}
