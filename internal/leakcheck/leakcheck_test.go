package leakcheck

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a testing.TB that keeps what Verify reports.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Error(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprint(args...))
}

func blockOn(ch chan struct{}) { <-ch }

func TestVerifyReportsLeakedGoroutineWithStack(t *testing.T) {
	s := Take()
	release := make(chan struct{})
	done := make(chan struct{})
	go func() { defer close(done); blockOn(release) }()

	rec := &recorder{TB: t}
	s.Verify(rec, MaxWait(20*time.Millisecond))
	close(release)
	<-done

	require.Len(t, rec.errors, 1)
	assert.Contains(t, rec.errors[0], "1 goroutine(s) leaked")
	assert.Contains(t, rec.errors[0], "leakcheck.blockOn", "the report carries the stack")
	assert.Contains(t, rec.errors[0], "[chan receive]")
}

func TestVerifyWaitsForGoroutinesThatAreEnding(t *testing.T) {
	s := Take()
	release := make(chan struct{})
	for range 8 {
		go blockOn(release)
	}
	close(release) // they end soon, but not necessarily before Verify looks
	rec := &recorder{TB: t}
	s.Verify(rec)
	assert.Empty(t, rec.errors)
}

func TestIgnoreOptions(t *testing.T) {
	s := Take()
	release := make(chan struct{})
	defer close(release)
	go func() { blockOn(release) }()

	for name, opt := range map[string]Option{
		"top":  IgnoreTopFunction("github.com/upicollect/upicollect-go/internal/leakcheck.blockOn"),
		"any":  IgnoreAnyFunction("github.com/upicollect/upicollect-go/internal/leakcheck.TestIgnoreOptions.func1"),
		"none": nil,
	} {
		t.Run(name, func(t *testing.T) {
			opts := []Option{MaxWait(10 * time.Millisecond)}
			if opt != nil {
				opts = append(opts, opt)
			}
			leaked := s.Leaked(opts...)
			if opt == nil {
				require.Len(t, leaked, 1)
				assert.Equal(t, "github.com/upicollect/upicollect-go/internal/leakcheck.blockOn", leaked[0].Top)
				return
			}
			assert.Empty(t, leaked)
		})
	}
}

// TestIdleHTTPConnectionsCountUntilClosed shows what the SDK's tests rely
// on: a client's idle keep-alive connection is a leak until closed.
func TestIdleHTTPConnectionsCountUntilClosed(t *testing.T) {
	s := Take()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok"))
	}))
	tr := &http.Transport{DialContext: (&net.Dialer{}).DialContext}
	res, err := (&http.Client{Transport: tr}).Get(srv.URL)
	require.NoError(t, err)
	_, _ = res.Body.Read(make([]byte, 8))
	require.NoError(t, res.Body.Close())

	leaked := s.Leaked(MaxWait(20 * time.Millisecond))
	var tops []string
	for _, g := range leaked {
		tops = append(tops, g.Stack)
	}
	assert.True(t, strings.Contains(strings.Join(tops, "\n"), "net/http.(*persistConn)"),
		"an idle connection's goroutines are reported: %v", tops)

	tr.CloseIdleConnections()
	srv.Close()
	assert.Empty(t, s.Leaked())
}

func TestParse(t *testing.T) {
	dump := "goroutine 7 [chan receive, 2 minutes]:\n" +
		"main.worker(0xc000012345)\n\t/src/main.go:10 +0x25\n" +
		"created by main.main in goroutine 1\n\t/src/main.go:5 +0x1d\n\n" +
		"goroutine 1 [running]:\nmain.main()\n\t/src/main.go:6 +0x2e\n"
	gs := parse(dump)
	require.Len(t, gs, 2)
	assert.Equal(t, Goroutine{ID: 7, State: "chan receive", Top: "main.worker", Stack: gs[0].Stack}, gs[0])
	assert.True(t, hasFrame(gs[0].Stack, "main.worker"))
	assert.False(t, hasFrame(gs[0].Stack, "main.main"), "a created-by line is not a frame")
	assert.Equal(t, "main.main", gs[1].Top)
	assert.Equal(t, "running", gs[1].State)
}
