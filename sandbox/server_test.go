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

// TestClear empties the named parts only, and every part when none is
// named; the orders stay.
func TestClear(t *testing.T) {
	s := Start(t)
	fill := func() {
		t.Helper()
		s.InjectFault(Fault{Op: OpCreatePaymentLink, Status: 503, Times: -1})
		require.Equal(t, 200, call(t, s, OpCheckPaymentStatus, statusForm(s, "x")).code)
	}
	fill()
	faulted := func() bool { return call(t, s, OpCreatePaymentLink, linkForm(s)).code == 503 }

	s.Clear(RecordedRequests)
	assert.Empty(t, s.Requests())
	assert.Equal(t, int64(1), s.Stats().Requests[OpCheckPaymentStatus], "counts stay")
	s.Clear(Counts)
	assert.Zero(t, s.Stats().Requests[OpCheckPaymentStatus])
	assert.True(t, faulted(), "faults stay")
	s.Clear(Faults)
	assert.False(t, faulted())
	assert.NotEmpty(t, s.Requests(), "requests stay")

	fill()
	s.Clear()
	assert.Empty(t, s.Requests())
	assert.Zero(t, s.Stats().Requests[OpCheckPaymentStatus])
	assert.False(t, faulted())
	assert.Len(t, s.Orders(), 2, "orders stay")
}
