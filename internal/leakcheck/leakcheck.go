// Package leakcheck finds goroutines a test left running, in the manner of
// go.uber.org/goleak (which the root module may not depend on).
//
// Check takes a snapshot of the goroutines when a test starts and, at the
// test's cleanup, waits until every goroutine started since then has ended;
// those still running after the wait fail the test with their stacks:
//
//	func TestX(t *testing.T) {
//		leakcheck.Check(t) // first, so that its cleanup runs last
//		s := sandbox.Start(t)
//		...
//	}
//
// Goroutines of the testing framework are ignored. Idle HTTP connections
// are not: close them (Transport.CloseIdleConnections) before the check
// runs, as a leak-free program would.
//
// The check is only meaningful for tests that do not run in parallel with
// other top-level tests (no t.Parallel at the top level): their goroutines
// would count as leaks.
package leakcheck

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// DefaultMaxWait is how long Verify waits for goroutines to end.
const DefaultMaxWait = 5 * time.Second

// Goroutine is one goroutine of a stack dump.
type Goroutine struct {
	ID    int64
	State string // "chan receive", "select", "IO wait", ...
	Top   string // function at the top of the stack, without arguments
	Stack string // the goroutine's full dump, header included
}

// String is the goroutine's dump.
func (g Goroutine) String() string { return g.Stack }

// Option adjusts a check.
type Option func(*config)

type config struct {
	maxWait time.Duration
	ignored []func(Goroutine) bool
}

// MaxWait sets how long Verify waits for goroutines to end before reporting
// them (default DefaultMaxWait).
func MaxWait(d time.Duration) Option { return func(c *config) { c.maxWait = d } }

// IgnoreTopFunction ignores goroutines whose top frame is fn
// ("internal/poll.runtime_pollWait").
func IgnoreTopFunction(fn string) Option {
	return func(c *config) {
		c.ignored = append(c.ignored, func(g Goroutine) bool { return g.Top == fn })
	}
}

// IgnoreAnyFunction ignores goroutines with fn anywhere in their stack.
func IgnoreAnyFunction(fn string) Option {
	return func(c *config) {
		c.ignored = append(c.ignored, func(g Goroutine) bool { return hasFrame(g.Stack, fn) })
	}
}

// frameworkFunctions are frames of goroutines that belong to the testing
// framework or the runtime, never to the code under test.
var frameworkFunctions = []string{
	"testing.tRunner",
	"testing.(*T).Run",
	"testing.(*T).Parallel",
	"testing.runTests",
	"testing.(*M).Run",
	"testing.(*F).Fuzz",
	"testing.runFuzzTests",
	"testing.runFuzzing",
	"os/signal.signal_recv",
	"os/signal.loop",
	"runtime.ensureSigM",
}

// Snapshot is the set of goroutines running at one moment.
type Snapshot struct {
	ids  map[int64]bool
	self int64 // the goroutine that took the snapshot
}

// Take records the goroutines running now.
func Take() *Snapshot {
	s := &Snapshot{ids: make(map[int64]bool), self: currentID()}
	for _, g := range All() {
		s.ids[g.ID] = true
	}
	return s
}

// Len is the number of goroutines in the snapshot.
func (s *Snapshot) Len() int { return len(s.ids) }

// Check takes a snapshot now and registers a cleanup on t that fails t,
// listing their stacks, if goroutines started since then are still running
// after the wait. Call it first in the test so that its cleanup runs after
// the others (servers closed, connections dropped).
func Check(t testing.TB, opts ...Option) {
	t.Helper()
	s := Take()
	t.Cleanup(func() { s.Verify(t, opts...) })
}

// Verify fails t if goroutines started since the snapshot are still running
// once the wait ends.
func (s *Snapshot) Verify(t testing.TB, opts ...Option) {
	t.Helper()
	leaked := s.Leaked(opts...)
	if len(leaked) == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "leakcheck: %d goroutine(s) leaked:\n", len(leaked))
	for _, g := range leaked {
		b.WriteString("\n")
		b.WriteString(g.Stack)
		b.WriteString("\n")
	}
	t.Error(b.String())
}

// Leaked waits, up to the configured maximum, until no goroutine outside the
// snapshot and the ignored ones runs, and returns those still running then
// (nil when none). Waiting yields the processor first and then waits on
// short timers with growing periods.
func (s *Snapshot) Leaked(opts ...Option) []Goroutine {
	cfg := config{maxWait: DefaultMaxWait}
	for _, o := range opts {
		o(&cfg)
	}
	deadline := time.Now().Add(cfg.maxWait)
	wait := 100 * time.Microsecond
	for i := 0; ; i++ {
		leaked := s.extra(cfg)
		if len(leaked) == 0 {
			return nil
		}
		if i < 50 {
			runtime.Gosched()
			continue
		}
		left := time.Until(deadline)
		if left <= 0 {
			return leaked
		}
		t := time.NewTimer(min(wait, left))
		<-t.C
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// extra lists the goroutines that are neither in the snapshot nor ignored.
func (s *Snapshot) extra(cfg config) []Goroutine {
	var out []Goroutine
	for _, g := range All() {
		if s.ids[g.ID] || g.ID == s.self || ignored(g, cfg) {
			continue
		}
		out = append(out, g)
	}
	return out
}

func ignored(g Goroutine, cfg config) bool {
	for _, fn := range frameworkFunctions {
		if hasFrame(g.Stack, fn) {
			return true
		}
	}
	for _, f := range cfg.ignored {
		if f(g) {
			return true
		}
	}
	return false
}

// hasFrame reports whether stack has a frame calling fn.
func hasFrame(stack, fn string) bool {
	for _, line := range strings.Split(stack, "\n") {
		if funcName(line) == fn {
			return true
		}
	}
	return false
}

// All returns every goroutine running now but the caller.
func All() []Goroutine {
	self := currentID()
	var out []Goroutine
	for _, g := range parse(dump(true)) {
		if g.ID != self {
			out = append(out, g)
		}
	}
	return out
}

// dump returns runtime.Stack's text, growing the buffer until it fits.
func dump(all bool) string {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, all)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

func currentID() int64 {
	gs := parse(dump(false))
	if len(gs) == 0 {
		return 0
	}
	return gs[0].ID
}

// parse splits a runtime.Stack dump into goroutines. Each starts with a
// header "goroutine 7 [chan receive, 2 minutes]:" and ends at a blank line.
func parse(s string) []Goroutine {
	var out []Goroutine
	for _, block := range strings.Split(strings.TrimSpace(s), "\n\n") {
		lines := strings.Split(block, "\n")
		head, ok := strings.CutPrefix(lines[0], "goroutine ")
		if !ok {
			continue
		}
		idText, rest, ok := strings.Cut(head, " ")
		if !ok {
			continue
		}
		id, err := strconv.ParseInt(idText, 10, 64)
		if err != nil {
			continue
		}
		state := strings.TrimSuffix(strings.TrimPrefix(rest, "["), "]:")
		if i := strings.Index(state, ","); i >= 0 {
			state = state[:i]
		}
		g := Goroutine{ID: id, State: state, Stack: block}
		if len(lines) > 1 {
			g.Top = funcName(lines[1])
		}
		out = append(out, g)
	}
	return out
}

// funcName extracts the function of a frame line
// ("net/http.(*persistConn).readLoop(0xc000123456)") or "" for file lines
// and "created by" lines.
func funcName(line string) string {
	if line == "" || strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "created by ") {
		return ""
	}
	if strings.HasSuffix(line, ")") {
		if i := strings.LastIndex(line, "("); i > 0 {
			return line[:i]
		}
	}
	if strings.HasSuffix(line, "...") { // "...additional frames elided..."
		return ""
	}
	return line
}
