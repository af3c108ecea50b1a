package main

import (
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxBinaryBytes is the size budget of a default build of the command
// (go build, no flags): 25.9 MiB with go1.26 on linux/amd64, of which the
// two database drivers of reconcile are 10.6 MiB and the symbol tables 8.1
// MiB (README, "Command line"). A new dependency that breaks it must say
// why in the README.
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
