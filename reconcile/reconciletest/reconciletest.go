// Package reconciletest is a test kit for reconciliation: the order mix
// of the reconcile tests, reconcile/sqlstore's tests and the reconcile
// benchmark, in sandbox time: 60 % paid within 10 minutes, 15 % failed,
// 5 % failed then paid 2–48 h later (a late authorisation), 5 % paid
// 30 min–6 h later, 15 % never paid. It plans the mix, creates it in a
// sandbox with each outcome scheduled, walks sandbox time step by step,
// and checks what a sweeper reported against the plan.
//
// It is a test kit, not part of the SDK: it stands above reconcile and the
// sandbox (see .ci/floors), and every module's tests share it.
package reconciletest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/clock"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/sandbox"
)

// Kind is an order's fate in the mix.
type Kind int

// The kinds of the mix, with their shares.
const (
	PaidEarly      Kind = iota // 60 %: SUCCESS within 10 minutes
	FailedEarly                // 15 %: FAIL within 10 minutes
	FailedThenPaid             // 5 %: FAIL within 10 minutes, SUCCESS 2–48 h after creation
	PaidLate                   // 5 %: SUCCESS 30 min–6 h after creation
	NeverPaid                  // 15 %: nothing
)

var kindNames = [...]string{"paid within 10 min", "failed", "failed then paid 2-48 h later", "paid 30 min-6 h later", "never paid"}

// String names the kind as the mix describes it.
func (k Kind) String() string { return kindNames[k] }

// Kinds lists every kind in order.
var Kinds = []Kind{PaidEarly, FailedEarly, FailedThenPaid, PaidLate, NeverPaid}

// kindOf maps i in [0, 100) to its kind by the mix's shares.
func kindOf(i int) Kind {
	switch {
	case i < 60:
		return PaidEarly
	case i < 75:
		return FailedEarly
	case i < 80:
		return FailedThenPaid
	case i < 85:
		return PaidLate
	}
	return NeverPaid
}

// Planned is one order of the mix and what should become of it.
type Planned struct {
	Order    reconcile.Order
	Kind     Kind
	FailedAt time.Time // zero when it never fails
	PaidAt   time.Time // zero when it is never paid
	Want     []reconcile.Result
}

// CreationSpread is how the mix's creation times are spread: one batch of
// orders per second over this many seconds.
const CreationSpread = 10

// Plan returns n orders created from start on (CreationSpread batches a
// second apart), their kinds in the mix's shares (exact for n a multiple of
// 100), their times drawn from seed.
func Plan(n int, start time.Time, seed uint64) []Planned {
	rnd := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	between := func(lo, hi time.Duration) time.Duration {
		return lo + time.Duration(rnd.Int64N(int64(hi-lo)/int64(time.Second)))*time.Second
	}
	out := make([]Planned, n)
	for i := range out {
		created := start.Add(time.Duration(i*CreationSpread/n) * time.Second)
		p := Planned{
			Order: reconcile.Order{ID: fmt.Sprintf("mix-%06d", i), Amount: upicollect.Rupees(int64(1 + i%5000)), Created: created},
			Kind:  kindOf((i * 37) % 100), // interleaved, so any prefix has the mix
		}
		switch p.Kind {
		case PaidEarly:
			p.PaidAt = created.Add(between(time.Second, 10*time.Minute))
			p.Want = []reconcile.Result{reconcile.Paid}
		case FailedEarly:
			p.FailedAt = created.Add(between(time.Second, 10*time.Minute))
			p.Want = []reconcile.Result{reconcile.Failed}
		case FailedThenPaid:
			p.FailedAt = created.Add(between(time.Second, 10*time.Minute))
			p.PaidAt = created.Add(between(2*time.Hour, 48*time.Hour))
			p.Want = []reconcile.Result{reconcile.Failed, reconcile.LatePaid}
		case PaidLate:
			p.PaidAt = created.Add(between(30*time.Minute, 6*time.Hour))
			p.Want = []reconcile.Result{reconcile.Expired, reconcile.LatePaid}
		case NeverPaid:
			p.Want = []reconcile.Result{reconcile.Expired}
		}
		out[i] = p
	}
	return out
}

// Clock is sandbox time for a test: the sandbox reads it through
// sandbox.WithClock(clock.Now), and the test moves it. It is clock.Manual
// (sandbox.ManualClock is too), the one manual clock of every module's
// tests: stores' and sweepers' WithClock take its Now too.
type Clock = clock.Manual

// NewClock returns a Clock at start.
func NewClock(start time.Time) *Clock { return clock.NewManual(start) }

// Create creates the planned orders as intents in sb, through c, moving
// clk to each order's creation time, and schedules each one's outcomes
// with Settle. track, if not nil, is called with each order once created.
func Create(ctx context.Context, c *upicollect.Client, sb *sandbox.Server, clk *Clock, plan []Planned, track func(reconcile.Order) error) error {
	for _, p := range plan {
		clk.Set(p.Order.Created)
		_, err := c.CreatePaymentIntent(ctx, &upicollect.IntentParams{
			Amount: p.Order.Amount, OrderID: p.Order.ID, RedirectURL: "https://shop.example.com/return",
			Note: "mix", Customer: upicollect.Customer{Name: "Mix Payer", Email: "payer@example.com", Mobile: "9876543210"},
		})
		if err != nil {
			return fmt.Errorf("creating %s: %w", p.Order.ID, err)
		}
		if !p.FailedAt.IsZero() {
			if err := sb.Settle(p.Order.ID, upicollect.TxnFail, p.FailedAt); err != nil {
				return fmt.Errorf("scheduling FAIL for %s: %w", p.Order.ID, err)
			}
		}
		if !p.PaidAt.IsZero() {
			if err := sb.Settle(p.Order.ID, upicollect.TxnSuccess, p.PaidAt); err != nil {
				return fmt.Errorf("scheduling SUCCESS for %s: %w", p.Order.ID, err)
			}
		}
		if track != nil {
			if err := track(p.Order); err != nil {
				return fmt.Errorf("tracking %s: %w", p.Order.ID, err)
			}
		}
	}
	return nil
}

// Step is one sweeper step at sandbox time now.
type Step func(ctx context.Context, now time.Time) (reconcile.Stats, error)

// Walk steps at every time an order is due, moving clk there first, until
// nothing is due any more or the next due time is after until. A step's
// error ends the walk. It returns the stats summed and the number of steps.
func Walk(ctx context.Context, clk *Clock, until time.Time, step Step) (reconcile.Stats, int, error) {
	var sum reconcile.Stats
	steps := 0
	for ctx.Err() == nil {
		now := clk.Now()
		st, err := step(ctx, now)
		steps++
		Add(&sum, st)
		if err != nil {
			return sum, steps, fmt.Errorf("step at %v: %w", now, err)
		}
		next := st.NextDue
		if next.IsZero() || next.After(until) {
			return sum, steps, nil
		}
		if !next.After(now) { // due again at once (a handler failed): a second on
			next = now.Add(time.Second)
		}
		clk.Set(next)
	}
	return sum, steps, ctx.Err()
}

// Add adds b's counts to a.
func Add(a *reconcile.Stats, b reconcile.Stats) {
	a.Checked += b.Checked
	a.Paid += b.Paid
	a.Failed += b.Failed
	a.LatePaid += b.LatePaid
	a.Expired += b.Expired
	a.Mismatch += b.Mismatch
	a.Pending += b.Pending
	a.Errors += b.Errors
}

// StepAll steps every sweeper at now at once, as sweepers in several
// processes do, and returns their Stats added up (NextDue the earliest of
// theirs) and each sweeper's error, in the order of sweepers.
func StepAll(ctx context.Context, sweepers []*reconcile.Sweeper, now time.Time) (reconcile.Stats, []error) {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		sum  reconcile.Stats
		errs = make([]error, len(sweepers))
	)
	for i, sw := range sweepers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := sw.Step(ctx, now)
			mu.Lock()
			defer mu.Unlock()
			Add(&sum, s)
			if sum.NextDue.IsZero() || (!s.NextDue.IsZero() && s.NextDue.Before(sum.NextDue)) {
				sum.NextDue = s.NextDue
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	return sum, errs
}

// Unexpected is the errors of errs (a joined one taken part by part, as
// Step joins a step's) that are not expected, joined; nil when every one
// is expected or nil. Tests that let a handler fail on purpose check a
// step's error with it, so that no other error (a store's) goes unseen.
func Unexpected(errs []error, expected error) error {
	var out []error
	for _, err := range errs {
		parts := []error{err}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			parts = j.Unwrap()
		}
		for _, part := range parts {
			if part != nil && !errors.Is(part, expected) {
				out = append(out, part)
			}
		}
	}
	return errors.Join(out...)
}

// Delivery is one event as a handler saw it.
type Delivery struct {
	OrderID string
	Result  reconcile.Result
	At      time.Time
}

// Report compares the deliveries with the plan.
type Report struct {
	Orders   int
	Events   int // deliveries in all
	Twice    int // events of an order delivered more than once
	Lost     int // planned events never delivered
	Wrong    int // delivered events the plan does not have
	ByResult map[reconcile.Result]int
	// EarlyPaid counts the orders paid in the first 15 minutes; SlowPaid,
	// those of them reported more than 30 s after the payment; MaxDelay is
	// the longest such delay.
	EarlyPaid, SlowPaid int
	MaxDelay            time.Duration
	Problems            []string // the first few problems, for the test's message
}

// Check compares deliveries (in any order) with the plan.
func Check(plan []Planned, deliveries []Delivery) Report {
	r := Report{Orders: len(plan), Events: len(deliveries), ByResult: map[reconcile.Result]int{}}
	got := map[string][]Delivery{}
	for _, d := range deliveries {
		got[d.OrderID] = append(got[d.OrderID], d)
		r.ByResult[d.Result]++
	}
	problem := func(format string, args ...any) {
		if len(r.Problems) < 10 {
			r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
		}
	}
	for _, p := range plan {
		ds := got[p.Order.ID]
		delete(got, p.Order.ID)
		seen := map[reconcile.Result]int{}
		for _, d := range ds {
			seen[d.Result]++
			if seen[d.Result] == 2 {
				r.Twice++
				problem("%s (%s): %s delivered twice", p.Order.ID, p.Kind, d.Result)
			}
			if !slices.Contains(p.Want, d.Result) {
				r.Wrong++
				problem("%s (%s): unexpected %s at %v", p.Order.ID, p.Kind, d.Result, d.At)
			}
		}
		for _, w := range p.Want {
			if seen[w] == 0 {
				r.Lost++
				problem("%s (%s): %s never delivered", p.Order.ID, p.Kind, w)
			}
		}
		if p.Kind == PaidEarly && p.PaidAt.Sub(p.Order.Created) <= 15*time.Minute {
			for _, d := range ds {
				if d.Result != reconcile.Paid {
					continue
				}
				r.EarlyPaid++
				delay := d.At.Sub(p.PaidAt)
				r.MaxDelay = max(r.MaxDelay, delay)
				if delay > 30*time.Second || delay < 0 {
					r.SlowPaid++
					problem("%s: paid at %v, reported at %v", p.Order.ID, p.PaidAt, d.At)
				}
			}
		}
	}
	for id := range got {
		r.Wrong++
		problem("%s: events for an order not in the plan", id)
	}
	return r
}

// Recorder is a thread-safe list of deliveries, and a Handler that adds
// to it.
type Recorder struct {
	mu sync.Mutex
	ds []Delivery
}

// Handle records e.
func (r *Recorder) Handle(_ context.Context, e reconcile.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ds = append(r.ds, Delivery{OrderID: e.Order.ID, Result: e.Result, At: e.At})
	return nil
}

// Deliveries returns a copy of what was recorded.
func (r *Recorder) Deliveries() []Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ds)
}
