package reconciletest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/sandbox"
)

var start = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// boundedCtx is a context every wait of a test ends with.
func boundedCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestKindOfAtEveryBoundary(t *testing.T) {
	for _, tc := range []struct {
		i    int
		want Kind
	}{
		{0, PaidEarly}, {59, PaidEarly},
		{60, FailedEarly}, {74, FailedEarly},
		{75, FailedThenPaid}, {79, FailedThenPaid},
		{80, PaidLate}, {84, PaidLate},
		{85, NeverPaid}, {99, NeverPaid},
	} {
		assert.Equal(t, tc.want, kindOf(tc.i), "kindOf(%d)", tc.i)
	}
	shares := map[Kind]int{}
	for i := range 100 {
		shares[kindOf(i)]++
	}
	assert.Equal(t, map[Kind]int{PaidEarly: 60, FailedEarly: 15, FailedThenPaid: 5, PaidLate: 5, NeverPaid: 15}, shares)
}

func TestKindString(t *testing.T) {
	for _, tc := range []struct {
		k    Kind
		want string
	}{
		{PaidEarly, "paid within 10 min"},
		{FailedEarly, "failed"},
		{FailedThenPaid, "failed then paid 2-48 h later"},
		{PaidLate, "paid 30 min-6 h later"},
		{NeverPaid, "never paid"},
	} {
		assert.Equal(t, tc.want, tc.k.String())
		assert.Equal(t, tc.want, fmt.Sprint(tc.k))
	}
	assert.Equal(t, []Kind{PaidEarly, FailedEarly, FailedThenPaid, PaidLate, NeverPaid}, Kinds)
}

// window is where a planned time may fall, counted from the order's
// creation: [lo, hi).
type window struct{ lo, hi time.Duration }

// TestPlanSharesAndWindows plans 10,000 orders and holds what Plan's doc
// promises: names, amounts, creation times one batch a second over
// CreationSpread seconds, each kind's exact share in every hundred, the
// results each kind wants, and every time in its kind's window, whole
// seconds, spread over the window.
func TestPlanSharesAndWindows(t *testing.T) {
	const n = 10_000
	plan := Plan(n, start, 42)
	require.Len(t, plan, n)

	windows := map[string]window{
		"paid early":         {time.Second, 10 * time.Minute},
		"failed early":       {time.Second, 10 * time.Minute},
		"failed then paid/f": {time.Second, 10 * time.Minute},
		"failed then paid/p": {2 * time.Hour, 48 * time.Hour},
		"paid late":          {30 * time.Minute, 6 * time.Hour},
	}
	lowest, highest := map[string]time.Duration{}, map[string]time.Duration{}
	in := func(name string, p Planned, at time.Time) {
		t.Helper()
		d := at.Sub(p.Order.Created)
		w := windows[name]
		if !assert.True(t, d >= w.lo && d < w.hi, "%s %s: %v not in [%v, %v)", p.Order.ID, name, d, w.lo, w.hi) {
			return
		}
		assert.Zero(t, d%time.Second, "%s %s: %v is not whole seconds", p.Order.ID, name, d)
		if lo, ok := lowest[name]; !ok || d < lo {
			lowest[name] = d
		}
		highest[name] = max(highest[name], d)
	}

	perSecond := map[time.Time]int{}
	shares := map[Kind]int{}
	for i, p := range plan {
		assert.Equal(t, fmt.Sprintf("mix-%06d", i), p.Order.ID)
		assert.Equal(t, upicollect.Rupees(int64(1+i%5000)), p.Order.Amount, p.Order.ID)
		assert.Equal(t, start.Add(time.Duration(i/(n/CreationSpread))*time.Second), p.Order.Created, p.Order.ID)
		perSecond[p.Order.Created]++
		shares[p.Kind]++
		if i%100 == 99 { // every hundred has the mix exactly
			assert.Equal(t, map[Kind]int{PaidEarly: 60, FailedEarly: 15, FailedThenPaid: 5, PaidLate: 5, NeverPaid: 15}, shares, "orders %d-%d", i-99, i)
			clear(shares)
		}
		switch p.Kind {
		case PaidEarly:
			assert.Zero(t, p.FailedAt, p.Order.ID)
			in("paid early", p, p.PaidAt)
			assert.Equal(t, []reconcile.Result{reconcile.Paid}, p.Want)
		case FailedEarly:
			in("failed early", p, p.FailedAt)
			assert.Zero(t, p.PaidAt, p.Order.ID)
			assert.Equal(t, []reconcile.Result{reconcile.Failed}, p.Want)
		case FailedThenPaid:
			in("failed then paid/f", p, p.FailedAt)
			in("failed then paid/p", p, p.PaidAt)
			assert.Equal(t, []reconcile.Result{reconcile.Failed, reconcile.LatePaid}, p.Want)
		case PaidLate:
			assert.Zero(t, p.FailedAt, p.Order.ID)
			in("paid late", p, p.PaidAt)
			assert.Equal(t, []reconcile.Result{reconcile.Expired, reconcile.LatePaid}, p.Want)
		case NeverPaid:
			assert.Zero(t, p.FailedAt, p.Order.ID)
			assert.Zero(t, p.PaidAt, p.Order.ID)
			assert.Equal(t, []reconcile.Result{reconcile.Expired}, p.Want)
		default:
			t.Errorf("%s: kind %d", p.Order.ID, p.Kind)
		}
	}
	require.Len(t, perSecond, CreationSpread)
	for s := range CreationSpread {
		assert.Equal(t, n/CreationSpread, perSecond[start.Add(time.Duration(s)*time.Second)], "orders created at second %d", s)
	}
	// The draws cover their windows: none outside, and each reaches
	// within a twentieth of both ends.
	for name, w := range windows {
		slack := (w.hi - w.lo) / 20
		assert.Less(t, lowest[name]-w.lo, slack, "%s: lowest %v", name, lowest[name])
		assert.Less(t, w.hi-highest[name], slack, "%s: highest %v", name, highest[name])
	}
}

func TestPlanCreationTimes(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want []time.Duration // creation, from start, of each order
	}{
		{0, nil},
		{1, []time.Duration{0}},
		{7, []time.Duration{0, 1, 2, 4, 5, 7, 8}},
		{20, []time.Duration{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9}},
	} {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			plan := Plan(tc.n, start, 1)
			require.Len(t, plan, tc.n)
			for i, p := range plan {
				assert.Equal(t, start.Add(tc.want[i]*time.Second), p.Order.Created, "order %d", i)
			}
		})
	}
}

func TestPlanIsDeterministicForASeed(t *testing.T) {
	a, b := Plan(500, start, 7), Plan(500, start, 7)
	assert.Equal(t, a, b)

	other := Plan(500, start, 8)
	require.Len(t, other, len(a))
	timesDiffer := 0
	for i := range a {
		// The seed draws the times only.
		assert.Equal(t, a[i].Order, other[i].Order)
		assert.Equal(t, a[i].Kind, other[i].Kind)
		assert.Equal(t, a[i].Want, other[i].Want)
		assert.Equal(t, a[i].FailedAt.IsZero(), other[i].FailedAt.IsZero())
		assert.Equal(t, a[i].PaidAt.IsZero(), other[i].PaidAt.IsZero())
		if !a[i].FailedAt.Equal(other[i].FailedAt) || !a[i].PaidAt.Equal(other[i].PaidAt) {
			timesDiffer++
		}
	}
	assert.Greater(t, timesDiffer, 300, "orders whose times another seed changes")

	later := Plan(500, start.Add(time.Hour), 7)
	for i := range a {
		assert.Equal(t, a[i].Order.Created.Add(time.Hour), later[i].Order.Created)
		assert.Equal(t, a[i].PaidAt.Sub(a[i].Order.Created), later[i].PaidAt.Sub(later[i].Order.Created))
		assert.Equal(t, a[i].FailedAt.Sub(a[i].Order.Created), later[i].FailedAt.Sub(later[i].Order.Created))
	}
}

func TestAddSumsEveryCount(t *testing.T) {
	due := start.Add(time.Hour)
	a := reconcile.Stats{Checked: 1, Paid: 2, Failed: 3, LatePaid: 4, Expired: 5, Mismatch: 6, Pending: 7, Errors: 8, NextDue: due}
	Add(&a, reconcile.Stats{Checked: 10, Paid: 20, Failed: 30, LatePaid: 40, Expired: 50, Mismatch: 60, Pending: 70, Errors: 80, NextDue: start})
	assert.Equal(t, reconcile.Stats{Checked: 11, Paid: 22, Failed: 33, LatePaid: 44, Expired: 55, Mismatch: 66, Pending: 77, Errors: 88, NextDue: due}, a,
		"every count summed, NextDue left alone")
}

// scripted is a Step that answers from a script and records the times
// it was called at and the clock's time then.
type scripted struct {
	clk    *Clock
	script []stepAnswer
	nows   []time.Time
	clocks []time.Time
}

type stepAnswer struct {
	st     reconcile.Stats
	err    error
	cancel context.CancelFunc
}

func (s *scripted) step(_ context.Context, now time.Time) (reconcile.Stats, error) {
	s.nows = append(s.nows, now)
	s.clocks = append(s.clocks, s.clk.Now())
	i := len(s.nows) - 1
	if i >= len(s.script) {
		return reconcile.Stats{}, fmt.Errorf("step %d beyond the script", i)
	}
	a := s.script[i]
	if a.cancel != nil {
		a.cancel()
	}
	return a.st, a.err
}

func TestWalk(t *testing.T) {
	errBoom := errors.New("boom")
	at := func(d time.Duration) time.Time { return start.Add(d) }
	until := at(time.Hour)
	type answer struct {
		checked int
		next    time.Duration // NextDue from start; -1 for none
		err     error
		cancel  bool
	}
	for _, tc := range []struct {
		name      string
		script    []answer
		cancelled bool // the context has ended before the walk
		wantNows  []time.Duration
		wantSteps int
		wantErr   error
		wantClock time.Duration
	}{
		{
			name:     "to the first zero NextDue",
			script:   []answer{{1, time.Minute, nil, false}, {2, 10 * time.Minute, nil, false}, {4, -1, nil, false}},
			wantNows: []time.Duration{0, time.Minute, 10 * time.Minute}, wantSteps: 3, wantClock: 10 * time.Minute,
		},
		{
			name:     "a NextDue at until is stepped, one after it is not",
			script:   []answer{{1, time.Hour, nil, false}, {2, time.Hour + time.Second, nil, false}},
			wantNows: []time.Duration{0, time.Hour}, wantSteps: 2, wantClock: time.Hour,
		},
		{
			name:     "due again at once or earlier: a second on",
			script:   []answer{{1, 0, nil, false}, {2, 0, nil, false}, {4, -1, nil, false}},
			wantNows: []time.Duration{0, time.Second, 2 * time.Second}, wantSteps: 3, wantClock: 2 * time.Second,
		},
		{
			name:     "a step's error ends the walk",
			script:   []answer{{1, time.Minute, nil, false}, {2, 2 * time.Minute, errBoom, false}},
			wantNows: []time.Duration{0, time.Minute}, wantSteps: 2, wantErr: errBoom, wantClock: time.Minute,
		},
		{
			name:     "the context ending ends the walk",
			script:   []answer{{1, time.Minute, nil, false}, {2, 2 * time.Minute, nil, true}},
			wantNows: []time.Duration{0, time.Minute}, wantSteps: 2, wantErr: context.Canceled, wantClock: 2 * time.Minute,
		},
		{
			name:      "an ended context walks no step",
			script:    []answer{{1, time.Minute, nil, false}},
			cancelled: true, wantErr: context.Canceled,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(boundedCtx(t))
			defer cancel()
			if tc.cancelled {
				cancel()
			}
			clk := NewClock(start)
			s := &scripted{clk: clk}
			want := reconcile.Stats{}
			for i, a := range tc.script {
				sa := stepAnswer{st: reconcile.Stats{Checked: a.checked, Paid: 10 * a.checked}, err: a.err}
				if a.next >= 0 {
					sa.st.NextDue = at(a.next)
				}
				if a.cancel {
					sa.cancel = cancel
				}
				s.script = append(s.script, sa)
				if i < len(tc.wantNows) {
					Add(&want, sa.st)
				}
			}
			sum, steps, err := Walk(ctx, clk, until, s.step)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
			} else {
				require.NoError(t, err)
			}
			if tc.wantErr == errBoom {
				assert.ErrorContains(t, err, fmt.Sprintf("step at %v: boom", at(tc.wantNows[len(tc.wantNows)-1])))
			}
			assert.Equal(t, tc.wantSteps, steps, "steps")
			assert.Equal(t, want, sum, "stats summed, this step's included")
			var wantNows []time.Time
			for _, d := range tc.wantNows {
				wantNows = append(wantNows, at(d))
			}
			assert.Equal(t, wantNows, s.nows, "times stepped at")
			assert.Equal(t, wantNows, s.clocks, "the clock moved there first")
			assert.Equal(t, at(tc.wantClock), clk.Now(), "the clock at the end")
		})
	}
}

func TestCheck(t *testing.T) {
	created := start
	early := func(id string, paidAfter time.Duration) Planned {
		return Planned{Order: reconcile.Order{ID: id, Created: created}, Kind: PaidEarly,
			PaidAt: created.Add(paidAfter), Want: []reconcile.Result{reconcile.Paid}}
	}
	failed := Planned{Order: reconcile.Order{ID: "failed", Created: created}, Kind: FailedEarly,
		FailedAt: created.Add(time.Minute), Want: []reconcile.Result{reconcile.Failed}}
	lateAfterFail := Planned{Order: reconcile.Order{ID: "ftp", Created: created}, Kind: FailedThenPaid,
		FailedAt: created.Add(time.Minute), PaidAt: created.Add(5 * time.Hour), Want: []reconcile.Result{reconcile.Failed, reconcile.LatePaid}}
	late := Planned{Order: reconcile.Order{ID: "late", Created: created}, Kind: PaidLate,
		PaidAt: created.Add(5 * time.Minute), Want: []reconcile.Result{reconcile.Expired, reconcile.LatePaid}}
	never := Planned{Order: reconcile.Order{ID: "never", Created: created}, Kind: NeverPaid, Want: []reconcile.Result{reconcile.Expired}}
	d := func(id string, r reconcile.Result, at time.Duration) Delivery {
		return Delivery{OrderID: id, Result: r, At: created.Add(at)}
	}
	paid := func(id string, paidAfter, delay time.Duration) Delivery {
		return d(id, reconcile.Paid, paidAfter+delay)
	}

	for _, tc := range []struct {
		name       string
		plan       []Planned
		deliveries []Delivery
		want       Report // Problems: how many, compared on their number only
		problems   []string
	}{
		{
			name:       "nothing planned, nothing delivered",
			want:       Report{ByResult: map[reconcile.Result]int{}},
			deliveries: nil,
		},
		{
			name: "every event once, in any order",
			plan: []Planned{early("a", time.Minute), failed, lateAfterFail, late, never},
			deliveries: []Delivery{
				d("never", reconcile.Expired, time.Hour), d("late", reconcile.LatePaid, 6*time.Minute), paid("a", time.Minute, 5*time.Second),
				d("ftp", reconcile.LatePaid, 5*time.Hour), d("failed", reconcile.Failed, time.Minute), d("ftp", reconcile.Failed, time.Minute),
				d("late", reconcile.Expired, 4*time.Minute),
			},
			want: Report{Orders: 5, Events: 7, EarlyPaid: 1, MaxDelay: 5 * time.Second,
				ByResult: map[reconcile.Result]int{reconcile.Paid: 1, reconcile.Failed: 2, reconcile.LatePaid: 2, reconcile.Expired: 2}},
		},
		{
			name:       "an event three times is one counted twice",
			plan:       []Planned{failed},
			deliveries: []Delivery{d("failed", reconcile.Failed, time.Minute), d("failed", reconcile.Failed, 2*time.Minute), d("failed", reconcile.Failed, 3*time.Minute)},
			want:       Report{Orders: 1, Events: 3, Twice: 1, ByResult: map[reconcile.Result]int{reconcile.Failed: 3}},
			problems:   []string{"failed (failed): failed delivered twice"},
		},
		{
			name: "each of two results twice",
			plan: []Planned{lateAfterFail},
			deliveries: []Delivery{d("ftp", reconcile.Failed, time.Minute), d("ftp", reconcile.LatePaid, 5*time.Hour),
				d("ftp", reconcile.LatePaid, 6*time.Hour), d("ftp", reconcile.Failed, 2*time.Minute)},
			want: Report{Orders: 1, Events: 4, Twice: 2, ByResult: map[reconcile.Result]int{reconcile.Failed: 2, reconcile.LatePaid: 2}},
			problems: []string{"ftp (failed then paid 2-48 h later): late_paid delivered twice",
				"ftp (failed then paid 2-48 h later): failed delivered twice"},
		},
		{
			name:     "planned events missed",
			plan:     []Planned{lateAfterFail, never},
			want:     Report{Orders: 2, Lost: 3, ByResult: map[reconcile.Result]int{}},
			problems: []string{"ftp (failed then paid 2-48 h later): failed never delivered", "ftp (failed then paid 2-48 h later): late_paid never delivered", "never (never paid): expired never delivered"},
		},
		{
			name:       "one of two planned events missed",
			plan:       []Planned{late},
			deliveries: []Delivery{d("late", reconcile.Expired, time.Hour)},
			want:       Report{Orders: 1, Events: 1, Lost: 1, ByResult: map[reconcile.Result]int{reconcile.Expired: 1}},
			problems:   []string{"late (paid 30 min-6 h later): late_paid never delivered"},
		},
		{
			name:       "a wrong amount instead of the payment",
			plan:       []Planned{early("a", time.Minute)},
			deliveries: []Delivery{d("a", reconcile.Mismatch, 2*time.Minute)},
			want:       Report{Orders: 1, Events: 1, Wrong: 1, Lost: 1, ByResult: map[reconcile.Result]int{reconcile.Mismatch: 1}},
			problems: []string{fmt.Sprintf("a (paid within 10 min): unexpected mismatch at %v", created.Add(2*time.Minute)),
				"a (paid within 10 min): paid never delivered"},
		},
		{
			name:       "an unexpected event twice is wrong twice and twice",
			plan:       []Planned{never},
			deliveries: []Delivery{d("never", reconcile.Expired, time.Hour), d("never", reconcile.Paid, time.Minute), d("never", reconcile.Paid, 2*time.Minute)},
			want:       Report{Orders: 1, Events: 3, Wrong: 2, Twice: 1, ByResult: map[reconcile.Result]int{reconcile.Expired: 1, reconcile.Paid: 2}},
			problems: []string{fmt.Sprintf("never (never paid): unexpected paid at %v", created.Add(time.Minute)),
				"never (never paid): paid delivered twice",
				fmt.Sprintf("never (never paid): unexpected paid at %v", created.Add(2*time.Minute))},
		},
		{
			name:       "events of orders not in the plan",
			plan:       []Planned{failed},
			deliveries: []Delivery{d("failed", reconcile.Failed, time.Minute), d("stranger", reconcile.Paid, time.Minute), d("stranger", reconcile.Paid, time.Hour)},
			want:       Report{Orders: 1, Events: 3, Wrong: 1, ByResult: map[reconcile.Result]int{reconcile.Failed: 1, reconcile.Paid: 2}},
			problems:   []string{"stranger: events for an order not in the plan"},
		},
		{
			name: "reporting delays of early payments",
			plan: []Planned{early("on-time", time.Minute), early("at-30s", time.Minute), early("at-31s", 2*time.Minute), early("before", 3*time.Minute),
				early("at-once", 4*time.Minute)},
			deliveries: []Delivery{paid("on-time", time.Minute, 10*time.Second), paid("at-30s", time.Minute, 30*time.Second),
				paid("at-31s", 2*time.Minute, 31*time.Second), paid("before", 3*time.Minute, -time.Second), paid("at-once", 4*time.Minute, 0)},
			want: Report{Orders: 5, Events: 5, EarlyPaid: 5, SlowPaid: 2, MaxDelay: 31 * time.Second,
				ByResult: map[reconcile.Result]int{reconcile.Paid: 5}},
			problems: []string{
				fmt.Sprintf("at-31s: paid at %v, reported at %v", created.Add(2*time.Minute), created.Add(2*time.Minute+31*time.Second)),
				fmt.Sprintf("before: paid at %v, reported at %v", created.Add(3*time.Minute), created.Add(3*time.Minute-time.Second)),
			},
		},
		{
			name:       "early: paid at 15 min is, at 15 min 1 s is not",
			plan:       []Planned{early("at-15m", 15*time.Minute), early("after-15m", 15*time.Minute+time.Second)},
			deliveries: []Delivery{paid("at-15m", 15*time.Minute, time.Hour), paid("after-15m", 15*time.Minute+time.Second, time.Hour)},
			want: Report{Orders: 2, Events: 2, EarlyPaid: 1, SlowPaid: 1, MaxDelay: time.Hour,
				ByResult: map[reconcile.Result]int{reconcile.Paid: 2}},
			problems: []string{fmt.Sprintf("at-15m: paid at %v, reported at %v", created.Add(15*time.Minute), created.Add(15*time.Minute+time.Hour))},
		},
		{
			name: "only the payments of orders planned paid early count",
			plan: []Planned{late, early("a", time.Minute)},
			deliveries: []Delivery{d("late", reconcile.Expired, time.Hour), d("late", reconcile.LatePaid, 2*time.Hour), paid("late", 5*time.Minute, time.Hour),
				paid("a", time.Minute, time.Second), d("a", reconcile.Failed, time.Hour)},
			want: Report{Orders: 2, Events: 5, Wrong: 2, EarlyPaid: 1, MaxDelay: time.Second,
				ByResult: map[reconcile.Result]int{reconcile.Expired: 1, reconcile.LatePaid: 1, reconcile.Paid: 2, reconcile.Failed: 1}},
			problems: []string{fmt.Sprintf("late (paid 30 min-6 h later): unexpected paid at %v", created.Add(time.Hour+5*time.Minute)),
				fmt.Sprintf("a (paid within 10 min): unexpected failed at %v", created.Add(time.Hour))},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(tc.plan, tc.deliveries)
			assert.Equal(t, tc.problems, r.Problems, "problems")
			r.Problems = nil
			assert.Equal(t, tc.want, r)
		})
	}
}

func TestCheckKeepsTheFirstTenProblems(t *testing.T) {
	for _, tc := range []struct {
		missed int
		want   int
	}{{9, 9}, {10, 10}, {11, 10}, {30, 10}} {
		t.Run(fmt.Sprint(tc.missed), func(t *testing.T) {
			var plan []Planned
			var want []string
			for i := range tc.missed {
				id := fmt.Sprintf("o%02d", i)
				plan = append(plan, Planned{Order: reconcile.Order{ID: id, Created: start}, Kind: NeverPaid, Want: []reconcile.Result{reconcile.Expired}})
				want = append(want, id+" (never paid): expired never delivered")
			}
			r := Check(plan, nil)
			assert.Equal(t, tc.missed, r.Lost)
			assert.Equal(t, want[:tc.want], r.Problems)
		})
	}
}

// TestCheckPlannedMix checks a plan against the deliveries it plans: all
// well, in the mix's shares.
func TestCheckPlannedMix(t *testing.T) {
	const n = 1_000
	plan := Plan(n, start, 3)
	var ds []Delivery
	for _, p := range plan {
		for _, w := range p.Want {
			at := p.Order.Created.Add(time.Hour)
			if w == reconcile.Paid {
				at = p.PaidAt.Add(3 * time.Second)
			}
			ds = append(ds, Delivery{OrderID: p.Order.ID, Result: w, At: at})
		}
	}
	r := Check(plan, ds)
	assert.Equal(t, Report{Orders: n, Events: len(ds), EarlyPaid: n * 60 / 100, MaxDelay: 3 * time.Second,
		ByResult: map[reconcile.Result]int{reconcile.Paid: n * 60 / 100, reconcile.Failed: n * 20 / 100,
			reconcile.LatePaid: n * 10 / 100, reconcile.Expired: n * 20 / 100}}, r)
}

func TestRecorder(t *testing.T) {
	ctx := boundedCtx(t)
	rec := &Recorder{}
	assert.Empty(t, rec.Deliveries())

	const writers, each = 8, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				err := rec.Handle(ctx, reconcile.Event{
					Order:  reconcile.Order{ID: fmt.Sprintf("w%d-%03d", w, i), Amount: upicollect.Rupees(5), Created: start},
					Result: reconcile.Paid, At: start.Add(time.Duration(i) * time.Second),
				})
				assert.NoError(t, err)
				_ = rec.Deliveries() // reads while others write
			}
		}()
	}
	wg.Wait()

	got := rec.Deliveries()
	require.Len(t, got, writers*each)
	seen := map[string]bool{}
	for _, d := range got {
		seen[d.OrderID] = true
		assert.Equal(t, reconcile.Paid, d.Result)
	}
	assert.Len(t, seen, writers*each, "each event recorded once")
	ordered := slicesIndex(got, "w3-007")
	require.GreaterOrEqual(t, ordered, 0)
	assert.Equal(t, Delivery{OrderID: "w3-007", Result: reconcile.Paid, At: start.Add(7 * time.Second)}, got[ordered])

	// A copy: changing it changes nothing recorded, and what is recorded
	// later does not show in it.
	got[0] = Delivery{OrderID: "changed"}
	require.NoError(t, rec.Handle(ctx, reconcile.Event{Order: reconcile.Order{ID: "last"}, Result: reconcile.Expired, At: start}))
	again := rec.Deliveries()
	require.Len(t, again, writers*each+1)
	assert.NotEqual(t, "changed", again[0].OrderID)
	assert.Len(t, got, writers*each)
	assert.Equal(t, Delivery{OrderID: "last", Result: reconcile.Expired, At: start}, again[writers*each])
}

func slicesIndex(ds []Delivery, id string) int {
	for i, d := range ds {
		if d.OrderID == id {
			return i
		}
	}
	return -1
}

// TestCreateInSandbox creates a plan of 100 orders in a sandbox over
// loopback and reads the sandbox's orders back: each created at its time
// for its amount, each tracked once in plan order, each outcome scheduled
// at the planned time.
func TestCreateInSandbox(t *testing.T) {
	ctx := boundedCtx(t)
	clk := NewClock(start)
	sb := sandbox.Start(t, sandbox.WithClock(clk.Now), sandbox.WithSeed(7))
	c := sb.Client()
	t.Cleanup(c.CloseIdleConnections)

	plan := Plan(100, start, 5)
	var tracked []reconcile.Order
	require.NoError(t, Create(ctx, c, sb, clk, plan, func(o reconcile.Order) error {
		tracked = append(tracked, o)
		assert.Equal(t, o.Created, clk.Now(), "the clock at the order's creation")
		return nil
	}))
	want := make([]reconcile.Order, len(plan))
	for i, p := range plan {
		want[i] = p.Order
	}
	assert.Equal(t, want, tracked)
	assert.Equal(t, plan[len(plan)-1].Order.Created, clk.Now())
	require.Len(t, sb.Orders(), len(plan))
	for _, p := range plan {
		o, ok := sb.Order(p.Order.ID)
		require.True(t, ok, p.Order.ID)
		assert.Equal(t, p.Order.Amount.Paise(), o.AmountPaise, p.Order.ID)
		assert.True(t, p.Order.Created.Equal(o.CreatedAt), "%s created at %v", p.Order.ID, o.CreatedAt)
	}

	// The outcomes, read back at their times, earliest first.
	type outcome struct {
		at     time.Time
		id     string
		status string
	}
	var outcomes []outcome
	for _, p := range plan {
		if !p.FailedAt.IsZero() {
			outcomes = append(outcomes, outcome{p.FailedAt, p.Order.ID, sandbox.StatusFail})
		}
		if !p.PaidAt.IsZero() {
			outcomes = append(outcomes, outcome{p.PaidAt, p.Order.ID, sandbox.StatusSuccess})
		}
	}
	sort.SliceStable(outcomes, func(i, j int) bool { return outcomes[i].at.Before(outcomes[j].at) })
	require.Len(t, outcomes, 60+15+2*5+5)
	for _, oc := range outcomes {
		clk.Set(oc.at)
		o, ok := sb.Order(oc.id)
		require.True(t, ok, oc.id)
		assert.Equal(t, oc.status, o.Status, "%s at %v", oc.id, oc.at)
		assert.True(t, oc.at.Equal(o.SettledAt), "%s settled at %v, planned %v", oc.id, o.SettledAt, oc.at)
	}
	clk.Set(start.Add(100 * time.Hour))
	for _, p := range plan {
		o, _ := sb.Order(p.Order.ID)
		switch p.Kind {
		case FailedEarly:
			assert.Equal(t, sandbox.StatusFail, o.Status, p.Order.ID)
		case NeverPaid:
			assert.Equal(t, sandbox.StatusPending, o.Status, p.Order.ID)
			assert.Empty(t, o.Scheduled, p.Order.ID)
		default:
			assert.Equal(t, sandbox.StatusSuccess, o.Status, p.Order.ID)
		}
	}
}

func TestCreateFailures(t *testing.T) {
	errTrack := errors.New("no room")
	twice := Plan(3, start, 1)
	twice[2].Order.ID = twice[0].Order.ID
	byKind := func(k Kind) []Planned {
		for _, p := range Plan(100, start, 1) {
			if p.Kind == k {
				return []Planned{p}
			}
		}
		panic(k)
	}
	for _, tc := range []struct {
		name        string
		plan        []Planned
		otherSB     bool // settle in another sandbox than the one the client creates in
		track       func(reconcile.Order) error
		wantErr     string
		wantIs      error
		wantTracked int
	}{
		{name: "creation refused", plan: twice, wantErr: "creating mix-000000: ", wantTracked: 2},
		{name: "FAIL refused", plan: byKind(FailedEarly), otherSB: true, wantErr: "scheduling FAIL for mix-", wantIs: sandbox.ErrOrderNotFound},
		{name: "SUCCESS refused", plan: byKind(PaidEarly), otherSB: true, wantErr: "scheduling SUCCESS for mix-", wantIs: sandbox.ErrOrderNotFound},
		{name: "tracking refused", plan: Plan(3, start, 1), track: func(o reconcile.Order) error {
			if o.ID == "mix-000001" {
				return errTrack
			}
			return nil
		}, wantErr: "tracking mix-000001: no room", wantIs: errTrack, wantTracked: 2},
		{name: "no tracking", plan: Plan(3, start, 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := boundedCtx(t)
			clk := NewClock(start)
			sb := sandbox.Start(t, sandbox.WithClock(clk.Now))
			settleIn := sb
			if tc.otherSB {
				settleIn = sandbox.Start(t, sandbox.WithClock(clk.Now))
			}
			c := sb.Client()
			t.Cleanup(c.CloseIdleConnections)
			tracked := 0
			var track func(reconcile.Order) error
			if tc.track != nil || tc.wantTracked > 0 {
				track = func(o reconcile.Order) error {
					tracked++
					if tc.track != nil {
						return tc.track(o)
					}
					return nil
				}
			}
			err := Create(ctx, c, settleIn, clk, tc.plan, track)
			if tc.wantErr == "" {
				require.NoError(t, err)
				assert.Len(t, sb.Orders(), len(tc.plan))
				return
			}
			require.ErrorContains(t, err, tc.wantErr)
			if tc.wantIs != nil {
				assert.ErrorIs(t, err, tc.wantIs)
			}
			assert.Equal(t, tc.wantTracked, tracked)
		})
	}
}

// TestStepAll steps three sweepers of one ledger at once: their Stats add
// up to one check of each due order (each leased by one sweeper), NextDue
// is the earliest of theirs, and an error (none here) for each sweeper.
func TestStepAll(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	sb := sandbox.Start(t, sandbox.WithClock(func() time.Time { return t0 }))
	c := sb.Client()
	t.Cleanup(c.CloseIdleConnections)
	st := reconcile.NewMemoryStore()
	var sweepers []*reconcile.Sweeper
	for range 3 {
		sw, err := reconcile.New(c, st, func(context.Context, reconcile.Event) error { return nil }, reconcile.WithBatchSize(2))
		require.NoError(t, err)
		sweepers = append(sweepers, sw)
	}
	for i := range 6 {
		require.NoError(t, sweepers[0].Track(ctx, reconcile.Order{ID: fmt.Sprint("sa-", i), Amount: upicollect.Rupees(10), Created: t0}))
	}
	sum, errs := StepAll(ctx, sweepers, t0.Add(10*time.Second))
	assert.Equal(t, []error{nil, nil, nil}, errs)
	assert.Equal(t, 6, sum.Checked, "each due order checked once, by one sweeper")
	assert.Equal(t, 6, sum.Pending)
	assert.Equal(t, t0.Add(20*time.Second), sum.NextDue, "the earliest next due of all")
	empty, errs := StepAll(ctx, nil, t0)
	assert.Empty(t, errs)
	assert.Equal(t, reconcile.Stats{}, empty)
}

// TestUnexpected: a step's joined error is taken part by part; the parts
// that wrap the expected error (at any depth) and nils are let through,
// any other is returned.
func TestUnexpected(t *testing.T) {
	down := errors.New("receiver down")
	store := errors.New("store down")
	handler := fmt.Errorf("handling o-1: %w", down)
	assert.NoError(t, Unexpected(nil, down))
	assert.NoError(t, Unexpected([]error{nil, handler, errors.Join(handler, fmt.Errorf("o-2: %w", down))}, down))
	err := Unexpected([]error{errors.Join(handler, fmt.Errorf("recording: %w", store)), store}, down)
	require.Error(t, err)
	assert.Equal(t, "recording: store down\nstore down", err.Error(), "the store's errors only, the handler's left out")
	assert.ErrorIs(t, Unexpected([]error{fmt.Errorf("wrapped: %w", store)}, down), store, "a wrapped error is not let through for wrapping")
}
