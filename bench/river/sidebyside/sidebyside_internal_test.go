package sidebyside

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

func TestCPU(t *testing.T) {
	a := CPU{Go: 10 * time.Millisecond, Backends: 20 * time.Millisecond, Rest: 5 * time.Millisecond}
	b := CPU{Go: 4 * time.Millisecond, Backends: 8 * time.Millisecond, Rest: 1 * time.Millisecond}
	assert.Equal(t, CPU{Go: 6 * time.Millisecond, Backends: 12 * time.Millisecond, Rest: 4 * time.Millisecond}, a.Sub(b))
	assert.Equal(t, 35*time.Millisecond, a.Total())
	assert.Positive(t, ReadCPU(0).Go, "this process has used some CPU")
	assert.Zero(t, ReadCPU(0).Backends)
}

func TestTally(t *testing.T) {
	tl := newTally(3)
	tl.add(1)
	tl.add(2)
	select {
	case <-tl.all:
		t.Fatal("closed before every item was seen")
	default:
	}
	tl.add(2)
	tl.add(0)
	tl.add(4)
	tl.add(3)
	select {
	case <-tl.all:
	default:
		t.Fatal("not closed when every item was seen")
	}
	tl.add(3) // once closed, more items do not close it again
	missing, twice := tl.check()
	assert.Zero(t, missing)
	assert.Equal(t, 4, twice, "2 and 3 twice, 0 and 4 out of range")
	assert.EqualValues(t, 3, tl.done.Load())

	missing, twice = newTally(2).check()
	assert.Equal(t, 2, missing)
	assert.Zero(t, twice)
}

func TestOrderNumber(t *testing.T) {
	assert.EqualValues(t, 25, orderNumber("o-0000025"))
	assert.EqualValues(t, 1000000, orderNumber("o-1000000"))
	assert.EqualValues(t, -1, orderNumber("b-x"))
	assert.True(t, hasEvent(25))
	assert.True(t, hasEvent(50))
	assert.False(t, hasEvent(24))
	assert.False(t, hasEvent(26))
	assert.Equal(t, 80, eventsIn(2000))
	assert.Equal(t, 80, eventsIn(2024))
	assert.Equal(t, 81, eventsIn(2025))
}

func TestOutcome(t *testing.T) {
	now := time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)
	lease := func(id string) reconcile.Lease {
		return reconcile.Lease{Order: reconcile.Order{ID: id, Amount: 12345}, State: reconcile.Pending, Failures: 2, Token: "t"}
	}
	quiet := outcome(lease("o-0000024"), now, true)
	assert.Equal(t, reconcile.Update{State: reconcile.Pending, Next: now.Add(time.Hour), Checked: true}, quiet.Update)
	assert.Equal(t, lease("o-0000024"), quiet.Lease)

	paid := outcome(lease("o-0000025"), now, true)
	require.NotNil(t, paid.Update.Event)
	assert.Equal(t, reconcile.Paid, paid.Update.State)
	assert.True(t, paid.Update.Next.IsZero(), "paid is final: no next check")
	assert.True(t, paid.Update.Checked)
	assert.Equal(t, reconcile.Retry{Next: now.Add(time.Minute), Failures: 3}, paid.Update.Retry)
	ev := paid.Update.Event
	assert.Equal(t, reconcile.Paid, ev.Result)
	assert.Equal(t, upicollect.Money(12345), ev.Paid)
	assert.Equal(t, upicollect.Money(12345), ev.Expected)
	assert.Equal(t, now, ev.At)
	assert.Equal(t, "UTR25", ev.Status.UTR)

	assert.Nil(t, outcome(lease("o-0000025"), now, false).Update.Event, "the quiet loop pays none")
}

// run is a Run of n items over wall with cpu in all, its parts in the
// ratio 1:2:1.
func run(kind string, n int, wall, cpu time.Duration) Run {
	return Run{Kind: kind, N: n, Items: n, Wall: wall, CPU: CPU{Go: cpu / 4, Backends: cpu / 2, Rest: cpu / 4}}
}

func TestPair(t *testing.T) {
	p := Pair{
		River: run("river", 1000, time.Second, 100*time.Millisecond), // 1,000/s, 100 µs each
		Step:  run("step", 1000, 500*time.Millisecond, 80*time.Millisecond),
		Quiet: run("quiet", 1000, 250*time.Millisecond, 40*time.Millisecond),
	}
	p.Step.Events, p.Step.Batches, p.Quiet.Batches = 40, 4, 4
	p.Step.WALSyncs, p.Quiet.WALSyncs = 16, 8
	p.Step.Calls, p.Quiet.Calls = Counts{RoundTrips: 249}, Counts{RoundTrips: 9}
	assert.InDelta(t, 2.0, p.RateRatio(), 1e-9)
	assert.InDelta(t, 0.8, p.CPURatio(), 1e-9)
	assert.InDelta(t, 2.0, p.StepOverQuiet(), 1e-9)
	assert.Equal(t, time.Millisecond, p.EventCPU(), "40 ms more over 40 events")
	assert.InDelta(t, 2.0, p.EventWAL(), 1e-9)
	assert.InDelta(t, 6.0, p.EventTrips(), 1e-9)

	p.Step.Events = 0
	assert.Zero(t, p.EventCPU())
	assert.Zero(t, p.EventTrips())
	assert.Zero(t, perBatch(5, Run{}))
}

func TestSpread(t *testing.T) {
	tests := []struct {
		vs   []float64
		want Spread
	}{
		{[]float64{3}, Spread{3, 3, 3}},
		{[]float64{3, 1, 2}, Spread{1, 2, 3}},
		{[]float64{4, 1, 3, 2}, Spread{1, 2.5, 4}},
	}
	for _, tt := range tests {
		in := append([]float64(nil), tt.vs...)
		assert.Equal(t, tt.want, spread(tt.vs))
		assert.Equal(t, in, tt.vs, "spread leaves its input alone")
	}
}

func TestVerdict(t *testing.T) {
	good := Pair{
		River: run("river", 1000, time.Second, 100*time.Millisecond),
		Step:  run("step", 1000, 400*time.Millisecond, 30*time.Millisecond),
		Quiet: run("quiet", 1000, 400*time.Millisecond, 25*time.Millisecond),
	}
	good.Step.Events, good.Step.Batches, good.Quiet.Batches = 40, 4, 4
	good.Step.WALSyncs, good.Quiet.WALSyncs = 12, 8
	var out bytes.Buffer
	assert.True(t, Verdict([]Series{{N: 1000, Pairs: []Pair{good}}}, &out))
	assert.Contains(t, out.String(), "PASS n=1000 step loop CPU per order ≤ 1.3 × the quiet loop's: median 1.20 ×")
	assert.Contains(t, out.String(), "PASS n=1000 CPU per order ≤ 0.4 × River's per job: median 0.30 ×")
	assert.Contains(t, out.String(), "PASS n=1000 rate ≥ 2 × River's: median 2.50 ×")
	assert.Contains(t, out.String(), "PASS n=1000 CPU per event ≤ 150.0 µs: median 125 µs")
	assert.Contains(t, out.String(), "PASS n=1000 events add ≤ 1 WAL flush per batch: median +1.00")
	assert.NotContains(t, out.String(), "INFO")
	assert.NotContains(t, out.String(), "FAIL")

	slow := good
	slow.Step = run("step", 1000, 2*time.Second, 90*time.Millisecond)
	slow.Step.Events, slow.Step.Batches = 40, 4
	slow.Step.WALSyncs = 100
	slow.River.Checks = []Check{{Name: "every job completed once", OK: false, Detail: "1 missing"}}
	out.Reset()
	assert.False(t, Verdict([]Series{{N: 1000, Pairs: []Pair{slow}}}, &out))
	for _, budget := range []string{"quiet loop's", "River's per job", "rate ≥", "CPU per event", "WAL flush"} {
		assert.Regexp(t, "INFO n=1000 [^\n]*"+budget, out.String())
	}
	assert.Contains(t, out.String(), "FAIL n=1000 pair 1 river: every job completed once: 1 missing")

	out.Reset()
	assert.True(t, Verdict([]Series{{N: 5}}, &out), "a series without pairs says nothing")
	assert.Empty(t, out.String())
}

func TestMarkdown(t *testing.T) {
	p := Pair{
		River: run("river", 1000, time.Second, 100*time.Millisecond),
		Step:  run("step", 1000, 500*time.Millisecond, 80*time.Millisecond),
		Quiet: run("quiet", 1000, 250*time.Millisecond, 40*time.Millisecond),
	}
	p.River.Load, p.Step.Load, p.Quiet.Load = "1.00 0.50 0.25", "2.00 1.00 0.50", "3.00 1.50 0.75"
	var out bytes.Buffer
	Markdown([]Series{{N: 1000, Pairs: []Pair{p}}}, &out)
	assert.Contains(t, out.String(), "| 1000 | 1 | 1.00 / 2.00 / 3.00 | 1000 | 2000 | 4000 | 100.0 (25.0 / 50.0 / 25.0) | 80.0 (20.0 / 40.0 / 20.0) | 40.0 (10.0 / 20.0 / 10.0) | 2.00 | 0.80 | 2.00 |")
	assert.Contains(t, out.String(), "| 1000 | **median** | | 1000 | 2000 | 4000 | 100.0 | 80.0 | 40.0 | 2.00 | 0.80 | 2.00 |")
}
