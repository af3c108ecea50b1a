package version

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBuildCommit(t *testing.T) {
	bi := func(kv ...string) *debug.BuildInfo {
		b := &debug.BuildInfo{}
		for i := 0; i < len(kv); i += 2 {
			b.Settings = append(b.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return b
	}
	assert.Equal(t, "", buildCommit(nil, false))
	assert.Equal(t, "", buildCommit(bi("vcs.modified", "true"), true), "no revision, no commit")
	assert.Equal(t, "abc123", buildCommit(bi("vcs", "git", "vcs.revision", "abc123", "vcs.modified", "false"), true))
	assert.Equal(t, "abc123-dirty", buildCommit(bi("vcs.revision", "abc123", "vcs.modified", "true"), true))
	assert.Equal(t, "upicollect 0.1.0 (go1.23.4 linux/amd64, commit abc123)",
		versionLine(versionJSON{Version: "0.1.0", GoVersion: "go1.23.4", Platform: "linux/amd64", Commit: "abc123"}))
	assert.Equal(t, "upicollect 0.1.0 (go1.23.4 linux/amd64)",
		versionLine(versionJSON{Version: "0.1.0", GoVersion: "go1.23.4", Platform: "linux/amd64"}))
}
