package sandbox

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Start takes what callers have always passed it.
var (
	_ TB = (*testing.T)(nil)
	_ TB = (*testing.B)(nil)
	_ TB = (*testing.F)(nil)
	_ TB = testing.TB(nil)
)

// TestNoTestingInBinaries keeps the testing package out of every program
// that serves the sandbox: neither this package nor anything it imports
// may import it.
func TestNoTestingInBinaries(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "net/http", "go list answered")
	assert.NotContains(t, deps, "testing")
}

// fakeTB records what Start does with its TB.
type fakeTB struct {
	helpers  int
	cleanups []func()
	fatal    string
}

func (f *fakeTB) Helper()                           { f.helpers++ }
func (f *fakeTB) Cleanup(fn func())                 { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Fatalf(format string, args ...any) { f.fatal = format }

func TestStartWithTB(t *testing.T) {
	f := &fakeTB{}
	s := Start(f)
	require.Len(t, f.cleanups, 1, "closed at cleanup")
	assert.Positive(t, f.helpers)
	require.Equal(t, 200, get(t, s, "/sandbox/orders").code)
	f.cleanups[0]()
	_, err := s.HTTPClient().Get(s.URL() + "/sandbox/orders")
	assert.Error(t, err, "closed")

	f = &fakeTB{}
	assert.Nil(t, Start(f, WithIntentTTL(-1)), "a bad option fails t")
	assert.Empty(t, f.cleanups)
	assert.Equal(t, "sandbox: %v", f.fatal)
}
