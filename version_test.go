package upicollect_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
)

// releaseHeading is a released section of CHANGELOG.md (Keep a Changelog):
// "## [0.1.0] - 2026-11-25".
var releaseHeading = regexp.MustCompile(`(?m)^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$`)

// TestChangelogMatchesVersion: the latest released version in CHANGELOG.md
// is Version, the one the User-Agent and `upicollect version` report; the
// changelog keeps an Unreleased section above it and a link for each.
func TestChangelogMatchesVersion(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("CHANGELOG.md")
	require.NoError(t, err)
	log := string(b)
	assert.Regexp(t, `^\d+\.\d+\.\d+$`, upicollect.Version, "a semantic version without a v")

	m := releaseHeading.FindStringSubmatchIndex(log)
	require.NotNil(t, m, "CHANGELOG.md has no released section")
	assert.Equal(t, upicollect.Version, log[m[2]:m[3]], "the latest release in CHANGELOG.md is Version")

	unreleased := regexp.MustCompile(`(?m)^## \[Unreleased\]$`).FindStringIndex(log)
	require.NotNil(t, unreleased, "CHANGELOG.md keeps an Unreleased section")
	assert.Less(t, unreleased[0], m[0], "Unreleased comes first")

	assert.Regexp(t, `(?m)^\[Unreleased\]: \S+v`+regexp.QuoteMeta(upicollect.Version)+`\.\.\.HEAD$`, log)
	assert.Regexp(t, `(?m)^\[`+regexp.QuoteMeta(upicollect.Version)+`\]: \S+$`, log)
}
