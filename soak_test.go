package upicollect_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

// The soak: many goroutines, one client, one sandbox misbehaving now and
// then. It proves the invariants that matter in production under load and
// faults: no panic, no duplicate order, no error outside the sentinels,
// and nothing left behind (goroutines, memory).

const (
	soakCalls        = 20_000
	soakWorkers      = 128
	soakFaultPercent = 5
	soakDeadline     = 5 * time.Second // each call's own context
)

// soakFaults are the matrix's faults, with small delays: what a busy
// production service does now and then.
var soakFaults = []struct {
	name  string
	fault func(op, other string) sandbox.Fault
}{
	{"reset before processing", fResetB.fault},
	{"reset after processing", fResetA.fault},
	{"timeout", func(op, _ string) sandbox.Fault { return sandbox.Fault{Op: op, Latency: 2 * time.Second} }},
	{"429 Retry-After: 1", func(op, _ string) sandbox.Fault {
		return sandbox.Fault{Op: op, Status: 429, Body: []byte(fmRateBody), Header: fmRetryAfter("1")}
	}},
	{"500 HTML", f500.fault},
	{"500 HTML after processing", f500Done.fault},
	{"502 empty", f502.fault},
	{"truncated JSON after processing", fTrunc.fault},
	{"slow body (100ms)", func(op, _ string) sandbox.Fault { return sandbox.Fault{Op: op, SlowBody: 100 * time.Millisecond} }},
	{"302 to another host", fRedirect.fault},
}

// soakCounter is a slog.Handler that counts records by message.
type soakCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

func (h *soakCounter) Enabled(context.Context, slog.Level) bool { return true }
func (h *soakCounter) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	h.counts[r.Message]++
	h.mu.Unlock()
	return nil
}
func (h *soakCounter) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *soakCounter) WithGroup(string) slog.Handler      { return h }

// soakStats is what one worker saw; the workers' are merged at the end.
type soakStats struct {
	calls, faults, panics int
	byKind                map[string]int // calls per operation
	errs                  map[string]int // errors per matcher name
	unmatched             []string       // errors that match no matcher
	forbidden             []string       // errors that must never happen
	maxLatency            time.Duration
	keyed                 map[string]string
	keyedOK               map[string]string // order id -> kind, for successful creates
	links, linksOK        int
	linkNotes             map[string]bool // the unique note of every link call
	waits, waitsPaid      int
}

func newSoakStats() *soakStats {
	return &soakStats{byKind: map[string]int{}, errs: map[string]int{}, keyed: map[string]string{},
		keyedOK: map[string]string{}, linkNotes: map[string]bool{}}
}

func (s *soakStats) merge(o *soakStats) {
	s.calls += o.calls
	s.faults += o.faults
	s.panics += o.panics
	for k, v := range o.byKind {
		s.byKind[k] += v
	}
	for k, v := range o.errs {
		s.errs[k] += v
	}
	s.unmatched = append(s.unmatched, o.unmatched...)
	s.forbidden = append(s.forbidden, o.forbidden...)
	s.maxLatency = max(s.maxLatency, o.maxLatency)
	for k, v := range o.keyed {
		s.keyed[k] = v
	}
	for k, v := range o.keyedOK {
		s.keyedOK[k] = v
	}
	s.links += o.links
	for k := range o.linkNotes {
		s.linkNotes[k] = true
	}
	s.linksOK += o.linksOK
	s.waits += o.waits
	s.waitsPaid += o.waitsPaid
}

// record classifies one call's error.
func (s *soakStats) record(kind string, err error) {
	if err == nil {
		return
	}
	matched := false
	for _, m := range fmMatchers {
		if errors.Is(err, m.err) {
			s.errs[m.name]++
			matched = true
		}
	}
	// A transport failure (reset, EOF) that outlasted the retries is a
	// net.Error (*url.Error) under the operation's wrapping.
	var ne net.Error
	if errors.As(err, &ne) {
		s.errs["net.Error"]++
		matched = true
	}
	if !matched {
		s.unmatched = append(s.unmatched, kind+": "+err.Error())
	}
	for _, bad := range []error{upicollect.ErrDuplicateOrderID, upicollect.ErrValidation, upicollect.ErrUnauthorized,
		upicollect.ErrInvalidRequest, upicollect.ErrNotFound, context.Canceled} {
		if errors.Is(err, bad) {
			s.forbidden = append(s.forbidden, kind+": "+err.Error())
		}
	}
	if kind == "status" || kind == "wait" {
		if errors.Is(err, upicollect.ErrOutcomeUnknown) {
			s.forbidden = append(s.forbidden, kind+" (read-only) said outcome unknown: "+err.Error())
		}
	}
}

func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak: 20,000 calls; skipped under -short")
	}
	goroutinesBefore := runtime.NumGoroutine()
	ignore := goleak.IgnoreCurrent()
	var memBefore, memAfter runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&memBefore)

	st, elapsed, retries, attempts := soakRun(t)

	goleak.VerifyNone(t, ignore) // everything soakRun started has ended
	goroutinesAfter := runtime.NumGoroutine()
	runtime.GC()
	runtime.ReadMemStats(&memAfter)

	var errNames []string
	for name, n := range st.errs {
		errNames = append(errNames, fmt.Sprintf("%s=%d", name, n))
	}
	sort.Strings(errNames)
	var kinds []string
	for k, n := range st.byKind {
		kinds = append(kinds, fmt.Sprintf("%s=%d", k, n))
	}
	sort.Strings(kinds)
	const mib = 1 << 20
	t.Logf("soak: %d calls (%s) from %d goroutines in %v: %.0f calls/s", st.calls, strings.Join(kinds, " "),
		soakWorkers, elapsed.Round(time.Millisecond), float64(st.calls)/elapsed.Seconds())
	t.Logf("soak: %d faults injected (%.1f%%); %d requests sent, %d retries", st.faults,
		100*float64(st.faults)/float64(st.calls), attempts, retries)
	t.Logf("soak: errors by sentinel: %s", strings.Join(errNames, " "))
	t.Logf("soak: waits %d, paid %d; links %d, created %d", st.waits, st.waitsPaid, st.links, st.linksOK)
	t.Logf("soak: max latency %v (deadline %v); panics %d", st.maxLatency.Round(time.Millisecond), soakDeadline, st.panics)
	t.Logf("soak: heap %.1f MiB before, %.1f MiB after; goroutines %d before, %d after",
		float64(memBefore.HeapAlloc)/mib, float64(memAfter.HeapAlloc)/mib, goroutinesBefore, goroutinesAfter)

	// Goroutines are back to baseline: goleak.VerifyNone above failed the test
	// otherwise, listing those left running.
	assert.Less(t, int64(memAfter.HeapAlloc)-int64(memBefore.HeapAlloc), int64(32*mib), "heap back to baseline")
}

// soakRun runs the soak against its own sandbox and client, checks the
// invariants, and releases everything before returning.
func soakRun(t *testing.T) (st *soakStats, elapsed time.Duration, retries, attempts int) {
	s := sandbox.New(sandbox.Strict(), sandbox.WithRequestLog(16, 0))
	defer s.Close()
	other, otherHits := fmCounter(t)
	defer other.Close()

	logs := &soakCounter{counts: map[string]int{}}
	c, err := upicollect.NewClient(s.Credentials(),
		upicollect.WithBaseURL(s.URL()),
		upicollect.WithTimeout(time.Second),
		upicollect.WithRetryPolicy(upicollect.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond}),
		upicollect.WithLogger(slog.New(logs)))
	require.NoError(t, err)
	defer c.CloseIdleConnections()

	// Ids of orders created by earlier calls, for status checks to look up.
	var known struct {
		sync.Mutex
		ids []string
	}
	remember := func(id string) {
		known.Lock()
		known.ids = append(known.ids, id)
		known.Unlock()
	}
	pick := func(r *rand.Rand) string {
		known.Lock()
		defer known.Unlock()
		if len(known.ids) == 0 || r.IntN(10) == 0 {
			return upicollect.NewOrderID() // unknown: PENDING
		}
		return known.ids[r.IntN(len(known.ids))]
	}

	var next atomic.Int64
	stats := make([]*soakStats, soakWorkers)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range soakWorkers {
		stats[w] = newSoakStats()
		wg.Add(1)
		go func(ws *soakStats, r *rand.Rand) {
			defer wg.Done()
			for next.Add(1) <= soakCalls {
				soakOne(c, s, other.URL, ws, r, remember, pick)
			}
		}(stats[w], rand.New(rand.NewPCG(uint64(w), 0x5eed)))
	}
	wg.Wait()
	elapsed = time.Since(start)
	s.Clear(sandbox.Faults)

	st = newSoakStats()
	for _, ws := range stats {
		st.merge(ws)
	}
	logs.mu.Lock()
	retries, attempts = logs.counts["upicollect: retrying"], logs.counts["upicollect: attempt"]
	logs.mu.Unlock()

	assert.Zero(t, st.panics, "panics")
	assert.Empty(t, st.forbidden, "errors that must never happen")
	assert.Empty(t, st.unmatched, "errors that match no sentinel or context error")
	// Latency is reported, never asserted: wall time on a shared machine
	// says nothing about the code. That every wait ends with its context is
	// proven on the fake clock by the retry, rate-limit and wait tests.
	assert.Zero(t, otherHits.Load(), "no request followed a redirect")
	assert.GreaterOrEqual(t, st.calls, soakCalls)
	assert.Greater(t, st.faults, soakCalls*soakFaultPercent/200, "faults were injected")
	assert.Greater(t, retries, 0, "faults were retried")

	// No duplicate order: every order is one of the test's keyed creates
	// (each id once) or a link (each link call's note once); every
	// successful create is there.
	seen := map[string]bool{}
	linkOrders := map[string]int{}
	links := 0
	var twice, foreign []string
	for _, o := range s.Orders() {
		require.False(t, seen[o.OrderID], "order %s stored twice", o.OrderID)
		seen[o.OrderID] = true
		if o.Kind == sandbox.KindLink {
			links++
			if linkOrders[o.Note]++; linkOrders[o.Note] == 2 {
				twice = append(twice, o.Note)
			}
			if !st.linkNotes[o.Note] {
				foreign = append(foreign, o.Kind+" "+o.OrderID)
			}
			continue
		}
		if kind, ours := st.keyed[o.OrderID]; !ours || kind != o.Kind {
			foreign = append(foreign, o.Kind+" "+o.OrderID)
		}
	}
	assert.Empty(t, twice, "link calls that made two links")
	assert.Empty(t, foreign, "orders the test did not create (or of another kind)")
	for id, kind := range st.keyedOK {
		o, found := s.Order(id)
		if assert.True(t, found, "created %s %s is stored", kind, id) {
			assert.Equal(t, kind, o.Kind)
		}
	}
	assert.LessOrEqual(t, links, st.links, "no link created twice")
	assert.GreaterOrEqual(t, links, st.linksOK, "every link returned exists")
	return st, elapsed, retries, attempts
}

// soakOne makes one call (or, for a wait, a create, a payment and a wait),
// injecting a fault first now and then.
func soakOne(c *upicollect.Client, s *sandbox.Server, other string, ws *soakStats, r *rand.Rand,
	remember func(string), pick func(*rand.Rand) string) {
	kind := "status"
	switch n := r.IntN(100); {
	case n < 30:
		kind = "intent"
	case n < 50:
		kind = "request"
	case n < 62:
		kind = "link"
	case n < 67:
		kind = "wait"
	}
	ws.byKind[kind]++
	ws.calls++
	if r.IntN(100) < soakFaultPercent {
		op := map[string]string{"intent": sandbox.OpCreatePaymentIntent, "request": sandbox.OpCreatePaymentRequest,
			"link": sandbox.OpCreatePaymentLink, "status": sandbox.OpCheckPaymentStatus, "wait": sandbox.OpCheckPaymentStatus}[kind]
		s.InjectFault(soakFaults[r.IntN(len(soakFaults))].fault(op, other))
		ws.faults++
	}

	ctx, cancel := context.WithTimeout(context.Background(), soakDeadline)
	defer cancel()
	begin := time.Now()
	defer func() {
		if p := recover(); p != nil {
			ws.panics++
		}
		ws.maxLatency = max(ws.maxLatency, time.Since(begin))
	}()

	switch kind {
	case "intent", "request":
		id := upicollect.NewOrderID()
		ws.keyed[id] = map[string]string{"intent": sandbox.KindIntent, "request": sandbox.KindRequest}[kind]
		var err error
		if kind == "intent" {
			var in *upicollect.Intent
			if in, err = c.CreatePaymentIntent(ctx, fmParams(fmIntent, id).(*upicollect.IntentParams)); err == nil && in.OrderID != id {
				err = fmt.Errorf("intent for %s came back as %s", id, in.OrderID)
				ws.forbidden = append(ws.forbidden, err.Error())
			}
		} else {
			var pr *upicollect.PaymentRequest
			if pr, err = c.CreatePaymentRequest(ctx, fmParams(fmRequest, id).(*upicollect.RequestParams)); err == nil && pr.OrderID != id {
				err = fmt.Errorf("request for %s came back as %s", id, pr.OrderID)
				ws.forbidden = append(ws.forbidden, err.Error())
			}
		}
		ws.record(kind, err)
		if err == nil {
			ws.keyedOK[id] = ws.keyed[id]
			remember(id)
		}
	case "link":
		// A link has no order id: its unique note identifies its orders.
		ws.links++
		p := fmParams(fmLink, "").(*upicollect.LinkParams)
		p.Note = "soak link " + upicollect.NewOrderID()
		ws.linkNotes[p.Note] = true
		l, err := c.CreatePaymentLink(ctx, p)
		ws.record(kind, err)
		if err == nil && l.URL != "" {
			ws.linksOK++
		}
	case "status":
		_, err := c.CheckPaymentStatus(ctx, pick(r))
		ws.record(kind, err)
	case "wait":
		// A checkout: create, the customer pays, wait for the payment.
		id := upicollect.NewOrderID()
		ws.keyed[id] = sandbox.KindIntent
		_, err := c.CreatePaymentIntent(ctx, fmParams(fmIntent, id).(*upicollect.IntentParams))
		ws.record("intent", err)
		if err != nil {
			return
		}
		ws.keyedOK[id] = sandbox.KindIntent
		remember(id)
		if _, err := s.Pay(id); err != nil {
			ws.forbidden = append(ws.forbidden, "pay "+id+": "+err.Error())
			return
		}
		ws.waits++
		ws.calls++
		ps, err := c.WaitForPayment(ctx, id, upicollect.WithPollInterval(time.Millisecond, 5*time.Millisecond))
		ws.record(kind, err)
		if err == nil {
			if ps.Paid() {
				ws.waitsPaid++
			} else {
				ws.forbidden = append(ws.forbidden, "wait "+id+" ended "+string(ps.TxnStatus))
			}
		}
	}
}
