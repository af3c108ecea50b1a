package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBinaryDoesNotLinkTesting: the shipped binary carries no test code;
// the sandbox it serves is built without the testing package.
func TestBinaryDoesNotLinkTesting(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/upicollect/upicollect-go/sandbox", "the list is the binary's")
	assert.NotContains(t, deps, "testing")
}
