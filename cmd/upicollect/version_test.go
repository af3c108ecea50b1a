package main

import (
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
)

// TestVersionOneSource: the CLI's version is the SDK's, and the binary
// built from a clone names its commit.
func TestVersionOneSource(t *testing.T) {
	r := cli(t, nil, "", "version", "--json")
	require.Equal(t, exitOK, r.code, r.output())
	assert.Contains(t, r.stdout, `"version":"`+upicollect.Version+`"`)
	assert.Equal(t, upicollect.Version, cmdutil.Version())
}
