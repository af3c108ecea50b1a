package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/root"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// commandPaths lists the path (without "upicollect") of every command in
// the tree.
func commandPaths(c *cobra.Command, parent []string, out *[][]string) {
	for _, sub := range c.Commands() {
		p := append(append([]string(nil), parent...), sub.Name())
		*out = append(*out, p)
		commandPaths(sub, p, out)
	}
}

// TestHelpBoolFlags: every command's help, however asked for, shows a
// boolean flag as "--json", never "--json[=true|false]", and still lines
// up its descriptions.
func TestHelpBoolFlags(t *testing.T) {
	a := newFactory(context.Background(), strings.NewReader(""), envFunc(nil), &bytes.Buffer{}, &bytes.Buffer{})
	paths := [][]string{nil}
	commandPaths(root.NewCmdRoot(a), nil, &paths)
	require.Greater(t, len(paths), 12, "the whole tree, subcommands included")
	for _, p := range paths {
		for _, args := range [][]string{append(append([]string(nil), p...), "--help"), append([]string{"help"}, p...)} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				require.Equal(t, exitOK, run(context.Background(), args, &stdout, &stderr), stderr.String())
				help := stdout.String()
				assert.NotContains(t, help, "[=true|false]")
				assert.NotContains(t, help, "[=true]")
				if strings.Contains(help, "\nFlags:\n") {
					assert.Regexp(t, `(?m)^  -h, --help +help for `, help)
				}
			})
		}
	}
	var stdout bytes.Buffer
	require.Equal(t, exitOK, run(context.Background(), []string{"status", "--help"}, &stdout, &bytes.Buffer{}))
	assert.Contains(t, stdout.String(), "\n      --json               print one JSON document (errors too) on stdout\n")
	assert.Contains(t, stdout.String(), "\n      --dry-run            print the request")
	assert.Contains(t, stdout.String(), "\n  -h, --help               help for status\n", "columns line up as for any flag")
	stdout.Reset()
	require.Equal(t, exitOK, run(context.Background(), []string{"--help"}, &stdout, &bytes.Buffer{}))
	assert.Contains(t, stdout.String(), "\n  -v, --version   version for upicollect\n")

	var usage bytes.Buffer
	require.Equal(t, exitUsage, run(context.Background(), nil, &bytes.Buffer{}, &usage))
	assert.NotContains(t, usage.String(), "[=true|false]", "the bare command's usage too")
	stdout.Reset()
	require.Equal(t, exitOK, run(context.Background(), []string{"completion", "bash", "--help"}, &stdout, &bytes.Buffer{}))
	assert.Contains(t, stdout.String(), "\n      --no-descriptions   disable completion descriptions\n", "cobra's own commands too")
}

// TestBoolFlagsParse: the flags parse as before the help changed:
// "--json" is true, "--json=false" false, "--json=true" true.
func TestBoolFlagsParse(t *testing.T) {
	for _, tt := range []struct {
		args []string
		json bool
	}{
		{[]string{"version"}, false},
		{[]string{"version", "--json"}, true},
		{[]string{"version", "--json=true"}, true},
		{[]string{"version", "--json=false"}, false},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			// The help drawn first wraps the values; parsing must not mind.
			a := newFactory(context.Background(), strings.NewReader(""), envFunc(nil), &bytes.Buffer{}, &bytes.Buffer{})
			root := root.NewCmdRoot(a)
			var sink bytes.Buffer
			root.SetOut(&sink)
			version, _, err := root.Find([]string{"version"})
			require.NoError(t, err)
			require.NoError(t, version.Help())
			assert.NotContains(t, sink.String(), "[=true|false]")

			var stdout bytes.Buffer
			require.Equal(t, exitOK, run(context.Background(), tt.args, &stdout, &bytes.Buffer{}))
			assert.Equal(t, tt.json, json.Valid(stdout.Bytes()), stdout.String())
		})
	}
}
