package main

import (
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxBinaryBytes is the size budget of a default build of the command
// (go build, no flags): a little over 26 MiB with go1.26 on linux/amd64,
// roughly 40 % of it the two database drivers of reconcile and roughly
// 30 % the symbol tables (docs/cli.md, "The binary", states the budget and
// this build loosely, so that no figure there goes stale). A new
// dependency that breaks it must say why in docs/cli.md.
const maxBinaryBytes = 32 << 20

// TestBinarySize records the binary's size and keeps it within budget.
func TestBinarySize(t *testing.T) {
	fi, err := os.Stat(binary(t))
	require.NoError(t, err)
	t.Logf("upicollect binary: %d bytes (%.1f MiB), %s %s/%s", fi.Size(), float64(fi.Size())/(1<<20),
		runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if coverDir == "" { // a -cover build is larger by its counters
		assert.Less(t, fi.Size(), int64(maxBinaryBytes), "the binary outgrew its budget")
	}
}
