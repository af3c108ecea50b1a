package reconcile_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

// aheadStore is a memory store that shows a step's second Lease, the
// batch leased ahead: it signals when that Lease begins (started), holds
// it until gate is closed (bounded by the test), leases on a context that
// does not end (so that its leases must be given back), and signals when
// it returned. Release calls' orders go to released.
type aheadStore struct {
	reconcile.Store
	bound    context.Context
	leases   atomic.Int32
	started  chan struct{}
	gate     chan struct{}
	returned chan struct{}
	released chan []string
	// beforeCommit, when set, is called before each CommitMany; its
	// error fails the call. afterCommit is called after it.
	beforeCommit func() error
	afterCommit  func()
	// aheadErr, when set, is the second Lease's error; releaseErr every
	// Release's (the leases are given back all the same).
	aheadErr, releaseErr error
	// detached CommitMany calls finish whatever their context (as a
	// database's commit already sent does).
	detached bool
}

func newAheadStore(t *testing.T) *aheadStore {
	return &aheadStore{Store: reconcile.NewMemoryStore(), bound: boundedCtx(t),
		started: make(chan struct{}), gate: make(chan struct{}), returned: make(chan struct{}),
		released: make(chan []string, 16)}
}

func (s *aheadStore) Lease(ctx context.Context, now time.Time, limit int, ttl time.Duration) ([]reconcile.Lease, error) {
	if s.leases.Add(1) != 2 {
		return s.Store.Lease(ctx, now, limit, ttl)
	}
	close(s.started)
	defer close(s.returned)
	select {
	case <-s.gate:
	case <-s.bound.Done():
		return nil, errors.New("the gate of the batch leased ahead was never opened")
	}
	if s.aheadErr != nil {
		return nil, s.aheadErr
	}
	return s.Store.Lease(context.WithoutCancel(ctx), now, limit, ttl)
}

func (s *aheadStore) CommitMany(ctx context.Context, cs []reconcile.LeasedUpdate, deliver func(context.Context, int) error) ([]error, error) {
	if s.beforeCommit != nil {
		if err := s.beforeCommit(); err != nil {
			return nil, err
		}
	}
	if s.detached {
		ctx = context.WithoutCancel(ctx)
	}
	errs, err := s.Store.CommitMany(ctx, cs, deliver)
	if s.afterCommit != nil {
		s.afterCommit()
	}
	return errs, err
}

func (s *aheadStore) Release(ctx context.Context, ls ...reconcile.Lease) error {
	err := s.Store.Release(ctx, ls...)
	s.released <- ids(ls)
	if s.releaseErr != nil {
		return s.releaseErr
	}
	return err
}

// waitFor waits for c, bounded by the test.
func (s *aheadStore) waitFor(c <-chan struct{}) error {
	select {
	case <-c:
		return nil
	case <-s.bound.Done():
		return s.bound.Err()
	}
}

// nextRelease is the orders of the next Release call, bounded by the test.
func (s *aheadStore) nextRelease(t *testing.T) []string {
	t.Helper()
	select {
	case r := <-s.released:
		return r
	case <-s.bound.Done():
		require.FailNow(t, "no Release came")
		return nil
	}
}

// ids are the leases' order ids, sorted.
func ids(ls []reconcile.Lease) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Order.ID
	}
	sort.Strings(out)
	return out
}

// trackAhead tracks n orders ah-0… (the service knows them: pending), all
// due at t0.
func trackAhead(t *testing.T, e *env, sw *reconcile.Sweeper, n int) []string {
	t.Helper()
	ctx := boundedCtx(t)
	var out []string
	for i := range n {
		o := e.intent(t, fmt.Sprint("ah-", i), upicollect.Rupees(10))
		require.NoError(t, sw.Track(ctx, o))
		out = append(out, o.ID)
	}
	return out
}

// TestStepLeasesTheNextBatchAhead: while a full batch is checked and
// recorded, the next batch is leased beside it (the first batch's
// CommitMany waits for the second Lease to have begun); after a batch that
// was not full, nothing more is leased.
func TestStepLeasesTheNextBatchAhead(t *testing.T) {
	e := newEnv(t)
	st := newAheadStore(t)
	close(st.gate)
	st.beforeCommit = func() error { return st.waitFor(st.started) }
	sw, err := reconcile.New(e.client, st, (&events{}).handle, reconcile.WithBatchSize(2), reconcile.WithClock(e.clk.Now))
	require.NoError(t, err)
	trackAhead(t, e, sw, 5)
	stats, err := sw.Step(boundedCtx(t), t0.Add(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, 5, stats.Checked)
	assert.EqualValues(t, 3, st.leases.Load(), "leases of 2, 2 and 1 order")
	assert.Empty(t, st.released, "nothing given back")
}

// TestStepRecordsBesideTheNextChecks: a batch is recorded while the next
// one is checked (the first batch's CommitMany waits for the second
// batch's first check to be sent), its handlers one at a time, and every
// count comes back to the step's Stats.
func TestStepRecordsBesideTheNextChecks(t *testing.T) {
	e := newEnv(t)
	st := newAheadStore(t)
	close(st.gate)
	var sent atomic.Int32
	third := make(chan struct{})
	rt := http.DefaultTransport.(*http.Transport).Clone()
	e.client = e.sb.Client(upicollect.WithHTTPClient(&http.Client{Transport: gatedChecks{rt: rt, check: func() error {
		if sent.Add(1) == 3 {
			close(third)
		}
		return nil
	}}}))
	t.Cleanup(e.client.CloseIdleConnections)
	var commits atomic.Int32
	st.beforeCommit = func() error {
		if commits.Add(1) == 1 {
			return st.waitFor(third)
		}
		return nil
	}
	var (
		inside  atomic.Int32
		overlap atomic.Bool
		got     events
	)
	handler := func(ctx context.Context, ev reconcile.Event) error {
		if inside.Add(1) > 1 {
			overlap.Store(true)
		}
		defer inside.Add(-1)
		return got.handle(ctx, ev)
	}
	sw, err := reconcile.New(e.client, st, handler, reconcile.WithBatchSize(2), reconcile.WithClock(e.clk.Now))
	require.NoError(t, err)
	all := trackAhead(t, e, sw, 5)
	for _, id := range all {
		_, err := e.sb.Pay(id)
		require.NoError(t, err)
	}
	stats, err := sw.Step(boundedCtx(t), t0.Add(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, 5, stats.Checked)
	assert.Equal(t, 5, stats.Paid, "the counts of every recording")
	assert.Zero(t, stats.Errors)
	assert.EqualValues(t, 3, commits.Load())
	for _, id := range all {
		assert.Equal(t, []reconcile.Result{reconcile.Paid}, got.results(id), "delivered once: %s", id)
	}
	assert.False(t, overlap.Load(), "one handler at a time")
}

// TestStepLeasesAgainWhenTheLeaseAheadFailed: a lease ahead that failed
// (on SQLite it may have waited past its busy timeout for the step's own
// batch) is made again after the batch, and the step goes on.
func TestStepLeasesAgainWhenTheLeaseAheadFailed(t *testing.T) {
	e := newEnv(t)
	st := newAheadStore(t)
	close(st.gate)
	st.aheadErr = errors.New("database is locked (SQLITE_BUSY)")
	var log bytes.Buffer
	sw, err := reconcile.New(e.client, st, (&events{}).handle, reconcile.WithBatchSize(2), reconcile.WithClock(e.clk.Now),
		reconcile.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	require.NoError(t, err)
	trackAhead(t, e, sw, 4)
	stats, err := sw.Step(boundedCtx(t), t0.Add(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, 4, stats.Checked)
	assert.EqualValues(t, 4, st.leases.Load(), "a batch, the failed lease ahead, the same again, the empty lease ahead")
	assert.Contains(t, log.String(), "database is locked (SQLITE_BUSY)", "the failed lease ahead is logged")
}

// TestStoreErrorsWithABatchLeasedAhead: when the store fails a batch's
// CommitMany, or the Release of the batch leased ahead, the step ends with
// the store's error, and the batch leased ahead is given back before it
// returns.
func TestStoreErrorsWithABatchLeasedAhead(t *testing.T) {
	t.Run("CommitMany", func(t *testing.T) {
		e := newEnv(t)
		st := newAheadStore(t)
		close(st.gate)
		st.beforeCommit = func() error { return errors.New("connection reset") }
		sw, err := reconcile.New(e.client, st, (&events{}).handle, reconcile.WithBatchSize(2), reconcile.WithClock(e.clk.Now))
		require.NoError(t, err)
		trackAhead(t, e, sw, 6)
		stats, err := sw.Step(boundedCtx(t), t0.Add(time.Minute))
		require.ErrorContains(t, err, "connection reset")
		assert.Equal(t, 4, stats.Errors, "two batches checked, neither recorded")
		// The first batch's CommitMany fails while the second (leased
		// ahead) is checked: neither is recorded, and the third, leased
		// ahead of it, is not checked.
		require.Len(t, st.released, 3, "the batch not recorded, the one checked beside it and the one leased ahead, given back before Step returned")
		assert.Len(t, <-st.released, 2)
		assert.Len(t, <-st.released, 2)
		assert.Len(t, <-st.released, 2)
	})
	t.Run("Release", func(t *testing.T) {
		st := newAheadStore(t)
		close(st.gate)
		st.releaseErr = errors.New("connection reset")
		e := outageEnv(t, func() error { return st.waitFor(st.returned) })
		sw, err := reconcile.New(e.client, st, (&events{}).handle, reconcile.WithBatchSize(3), reconcile.WithClock(e.clk.Now))
		require.NoError(t, err)
		trackAhead(t, e, sw, 6)
		_, err = sw.Step(boundedCtx(t), t0.Add(time.Minute))
		require.ErrorContains(t, err, "giving back 3 orders leased ahead: connection reset")
		require.Len(t, st.released, 2)
	})
}

// outageEnv is a sandbox down for maintenance, its client retrying without
// waiting, each check sent only once check allows it.
func outageEnv(t *testing.T, check func() error) *env {
	e := newEnv(t)
	e.sb.InjectFault(maintenancePage)
	rt := http.DefaultTransport.(*http.Transport).Clone()
	e.client = e.sb.Client(upicollect.WithHTTPClient(&http.Client{Transport: gatedChecks{rt: rt, check: check}}),
		upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Microsecond, MaxDelay: time.Microsecond}))
	t.Cleanup(e.client.CloseIdleConnections)
	return e
}

// gatedChecks sends a status check once check returns (its error fails
// the check).
type gatedChecks struct {
	rt    http.RoundTripper
	check func() error
}

func (g gatedChecks) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path == "/v1/payments/checkPaymentStatus" {
		if err := g.check(); err != nil {
			return nil, err
		}
	}
	return g.rt.RoundTrip(r)
}

// TestOutageGivesBackTheBatchLeasedAhead: when the first batch shows the
// service failing for every order, the batch leased beside it is given
// back unchecked, due as it was, before Step returns: at once when its
// Lease had returned, after waiting for it when it had not.
func TestOutageGivesBackTheBatchLeasedAhead(t *testing.T) {
	for _, returned := range []bool{true, false} {
		t.Run(fmt.Sprint("lease returned ", returned), func(t *testing.T) {
			st := newAheadStore(t)
			var check func() error
			if returned { // the checks wait for the batch leased ahead
				close(st.gate)
				check = func() error { return st.waitFor(st.returned) }
			} else { // the lease ahead goes on once the outage shows
				var checks atomic.Int32
				check = func() error {
					if checks.Add(1) == 3 { // the third check sent
						close(st.gate)
					}
					return nil
				}
			}
			e := outageEnv(t, check)
			sw, err := reconcile.New(e.client, st, (&events{}).handle, reconcile.WithBatchSize(3), reconcile.WithClock(e.clk.Now))
			require.NoError(t, err)
			all := trackAhead(t, e, sw, 6)
			now := t0.Add(time.Minute)
			stats, err := sw.Step(boundedCtx(t), now)
			require.NoError(t, err)
			assert.Equal(t, 0, stats.Checked)
			assert.Equal(t, 3, stats.Errors, "the first batch's checks failed")
			// The first two failures are recorded (each order backs off);
			// the third shows the outage, and its order is given back.
			require.Len(t, st.released, 2, "both given back before Step returned")
			first, ahead := <-st.released, <-st.released
			assert.Len(t, first, 1)
			assert.Len(t, ahead, 3, "the second batch")
			// Leased late, it may hold the order given back first.
			again, err := st.Store.Lease(boundedCtx(t), now, 10, time.Minute)
			require.NoError(t, err)
			assert.Len(t, again, 4, "every order but the two backing off due again as it was")
			assert.Subset(t, ids(again), append(slices.Clone(ahead), first...))
			assert.Subset(t, all, ids(again))
		})
	}
}

// TestStepEndsWhileTheBatchAheadIsLeased: a step whose context ends while
// it waits for the batch leased ahead returns at once with ctx's error;
// that batch is given back by the cleanup when its Lease returns (a Lease
// that found nothing makes no Release call), and the next step, which
// waits for the cleanup, checks it.
func TestStepEndsWhileTheBatchAheadIsLeased(t *testing.T) {
	for _, ahead := range []int{2, 0} {
		t.Run(fmt.Sprint(ahead, " leased ahead"), func(t *testing.T) {
			e := newEnv(t)
			st := newAheadStore(t)
			ctx, cancel := context.WithCancel(boundedCtx(t))
			defer cancel()
			st.afterCommit = cancel
			sw, err := reconcile.New(e.client, st, (&events{}).handle, reconcile.WithBatchSize(2), reconcile.WithClock(e.clk.Now))
			require.NoError(t, err)
			trackAhead(t, e, sw, 2+ahead)
			now := t0.Add(time.Minute)
			stats, err := sw.Step(ctx, now)
			require.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, 2, stats.Checked, "the first batch")
			assert.Empty(t, st.released)
			close(st.gate)
			st.afterCommit = nil
			stats, err = sw.Step(boundedCtx(t), now)
			require.NoError(t, err)
			assert.Equal(t, ahead, stats.Checked, "the batch given back, checked by the next step")
			if ahead > 0 {
				assert.Len(t, st.nextRelease(t), ahead, "the batch leased ahead given back")
			}
			assert.Empty(t, st.released, "no other Release")
		})
	}
}

// limitsSeen records the limit of every Lease call.
type limitsSeen struct {
	*aheadStore
	mu     sync.Mutex
	limits []int
}

func (s *limitsSeen) Lease(ctx context.Context, now time.Time, limit int, ttl time.Duration) ([]reconcile.Lease, error) {
	s.mu.Lock()
	s.limits = append(s.limits, limit)
	s.mu.Unlock()
	return s.aheadStore.Lease(ctx, now, limit, ttl)
}

// TestProbeGivesBackTheBatchLeasedAhead: when the service is seen failing
// (by Confirm calls, while a step records a batch) before the batch leased
// ahead comes, that batch is given back, and the step's next check is a
// single probe; the probe answered, the step leases full batches again.
func TestProbeGivesBackTheBatchLeasedAhead(t *testing.T) {
	for _, tc := range []struct {
		name    string
		before  time.Duration // the Confirms' clock, before the step's
		checked int
		limits  []int // a batch, the one leased ahead, …
		release error // every Release's
	}{
		// Past the first probe's time (30 s) at the step's: it probes,
		// then leases full batches again.
		{"probe due", 40 * time.Second, 4, []int{2, 2, 1, 2}, nil},
		// Not yet: the checks are held, and the step ends.
		{"checks held", 10 * time.Second, 2, []int{2, 2}, nil},
		// The same, and the giving back fails: the step says so.
		{"give-back failed", 10 * time.Second, 2, []int{2, 2}, errors.New("connection reset")},
	} {
		t.Run(tc.name, func(t *testing.T) { testProbeGivesBack(t, tc.before, tc.checked, tc.limits, tc.release) })
	}
}

func testProbeGivesBack(t *testing.T, before time.Duration, checked int, limits []int, release error) {
	e := newEnv(t)
	bad := map[string]bool{"x-0": true, "x-1": true, "x-2": true}
	rt := http.DefaultTransport.(*http.Transport).Clone()
	e.client = e.sb.Client(upicollect.WithHTTPClient(&http.Client{Transport: garbageFor{rt: rt, bad: bad}}),
		upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1}))
	t.Cleanup(e.client.CloseIdleConnections)
	st := &limitsSeen{aheadStore: newAheadStore(t)}
	st.releaseErr = release
	sw, err := reconcile.New(e.client, st, (&events{}).handle, reconcile.WithBatchSize(2), reconcile.WithClock(e.clk.Now))
	require.NoError(t, err)
	trackAhead(t, e, sw, 4)
	for id := range bad { // created later: not due in the step
		o := e.intent(t, id, upicollect.Rupees(10))
		o.Created = t0.Add(2 * time.Hour)
		require.NoError(t, sw.Track(boundedCtx(t), o))
	}
	ctx := boundedCtx(t)
	st.beforeCommit = func() error {
		st.beforeCommit = nil
		defer close(st.gate) // the batch leased ahead comes after the Confirms
		// The Confirms' clock: their orders' backoff (a minute) not past
		// at the step's.
		e.clk.Set(t0.Add(time.Hour - before))
		for id := range bad { // three orders' checks fail: the service is out
			_, err := sw.Confirm(ctx, id)
			assert.Error(t, err, id)
		}
		return nil
	}
	stats, err := sw.Step(ctx, t0.Add(time.Hour))
	if release != nil {
		require.ErrorContains(t, err, "giving back 2 orders leased as the service failed: connection reset")
	} else {
		require.NoError(t, err)
	}
	assert.Equal(t, checked, stats.Checked)
	var released [][]string // the step's (a Confirm gives its order back too)
	for len(st.released) > 0 {
		if r := <-st.released; !bad[r[0]] {
			released = append(released, r)
		}
	}
	require.Len(t, released, 1, "the batch leased ahead given back")
	assert.Len(t, released[0], 2)
	st.mu.Lock()
	defer st.mu.Unlock()
	require.GreaterOrEqual(t, len(st.limits), len(limits))
	assert.Equal(t, limits, st.limits[:len(limits)])
	if len(limits) == 2 {
		assert.Len(t, st.limits, 2, "held: nothing more leased")
	}
}

// TestNothingLeasedAheadNothingGivenBack: a lease ahead that found nothing
// makes no Release call when the service turns out to be failing (for a
// step whose context ended, see TestStepEndsWhileTheBatchAheadIsLeased).
func TestNothingLeasedAheadNothingGivenBack(t *testing.T) {
	st := newAheadStore(t)
	close(st.gate)
	e := outageEnv(t, func() error { return st.waitFor(st.returned) })
	sw, err := reconcile.New(e.client, st, (&events{}).handle, reconcile.WithBatchSize(3), reconcile.WithClock(e.clk.Now))
	require.NoError(t, err)
	trackAhead(t, e, sw, 3)
	_, err = sw.Step(boundedCtx(t), t0.Add(time.Minute))
	require.NoError(t, err)
	assert.Len(t, st.nextRelease(t), 1, "the order that showed the outage")
	assert.Empty(t, st.released, "no Release for the empty lease ahead")
}

// refusingStore is a memory store whose first CommitMany (every one, with
// every set) refuses its first outcome (the others are recorded).
type refusingStore struct {
	reconcile.Store
	every bool
	calls atomic.Int32
}

func (s *refusingStore) CommitMany(ctx context.Context, cs []reconcile.LeasedUpdate, deliver func(context.Context, int) error) ([]error, error) {
	if s.calls.Add(1) != 1 && !s.every {
		return s.Store.CommitMany(ctx, cs, deliver)
	}
	var shifted func(context.Context, int) error
	if deliver != nil {
		shifted = func(ctx context.Context, i int) error { return deliver(ctx, i+1) }
	}
	errs, err := s.Store.CommitMany(ctx, cs[1:], shifted)
	return append([]error{fmt.Errorf("row of %s refused", cs[0].Lease.Order.ID)}, errs...), err
}

// TestStepEndsAfterTheBatchBesideARefusal: when the store refuses some
// of a batch's outcomes (not the whole call), the batch checked beside it
// is still recorded, and the step ends after it with the refusal.
func TestStepEndsAfterTheBatchBesideARefusal(t *testing.T) {
	e := newEnv(t)
	st := &refusingStore{Store: reconcile.NewMemoryStore()}
	sw, err := reconcile.New(e.client, st, (&events{}).handle, reconcile.WithBatchSize(2), reconcile.WithClock(e.clk.Now))
	require.NoError(t, err)
	all := trackAhead(t, e, sw, 6)
	ctx := boundedCtx(t)
	stats, err := sw.Step(ctx, t0.Add(time.Minute))
	require.ErrorContains(t, err, "recording the check: row of")
	assert.Equal(t, 4, stats.Checked, "two batches")
	assert.EqualValues(t, 2, st.calls.Load(), "both recorded; the third batch not checked")
	checks := 0
	for _, id := range all {
		o, err := sw.Lookup(ctx, id)
		require.NoError(t, err)
		checks += o.Checks
	}
	assert.Equal(t, 3, checks, "the first batch's other outcome and the second batch's two")
	again, err := st.Lease(ctx, t0.Add(time.Minute), 10, time.Minute)
	require.NoError(t, err)
	assert.Len(t, again, 3, "the refused order given back at once, with the third batch")

	// Refused again in the second batch: the step says both.
	e2 := newEnv(t)
	st2 := &refusingStore{Store: reconcile.NewMemoryStore(), every: true}
	sw2, err := reconcile.New(e2.client, st2, (&events{}).handle, reconcile.WithBatchSize(2), reconcile.WithClock(e2.clk.Now))
	require.NoError(t, err)
	trackAhead(t, e2, sw2, 6)
	_, err = sw2.Step(ctx, t0.Add(time.Minute))
	require.Error(t, err)
	assert.Equal(t, 2, strings.Count(err.Error(), "recording the check: row of"), "both refusals: %v", err)
}

// endInFirstCommit makes the store's first CommitMany end the returned
// context (a step's, while its next batch is checked) and wait until hold
// is closed; commits counts the CommitMany calls.
func (s *aheadStore) endInFirstCommit(t *testing.T) (ctx context.Context, hold chan struct{}, commits *atomic.Int32) {
	ctx, cancel := context.WithCancel(boundedCtx(t))
	t.Cleanup(cancel)
	hold, commits = make(chan struct{}), new(atomic.Int32)
	s.beforeCommit = func() error {
		if commits.Add(1) == 1 {
			cancel()
			return s.waitFor(hold)
		}
		return nil
	}
	return ctx, hold, commits
}

// TestStepEndsWhileABatchIsRecorded: a step whose context ends while the
// last batch's record is under way returns at once with ctx's error (said
// once); the record goes on in a cleanup, which the next step waits for.
func TestStepEndsWhileABatchIsRecorded(t *testing.T) {
	e := newEnv(t)
	st := newAheadStore(t)
	close(st.gate)
	ctx, hold, commits := st.endInFirstCommit(t)
	sw, err := reconcile.New(e.client, st, (&events{}).handle, reconcile.WithBatchSize(2), reconcile.WithClock(e.clk.Now))
	require.NoError(t, err)
	trackAhead(t, e, sw, 4)
	now := t0.Add(time.Minute)
	_, err = sw.Step(ctx, now)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, strings.Count(err.Error(), context.Canceled.Error()), "ctx's error said once: %v", err)
	assert.EqualValues(t, 1, commits.Load(), "the first record still under way")
	close(hold)
	stats, err := sw.Step(boundedCtx(t), now)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, commits.Load(), int32(2))
	assert.Positive(t, stats.Checked, "what the first step did not record is checked again")
}

// panickyObserver panics when told of a final state.
type panickyObserver struct{ upicollect.NopObserver }

func (panickyObserver) FinalState(context.Context, upicollect.FinalState) { panic("observer broke") }

// TestStepRaisesARecordingsPanic: a panic while a batch is recorded (on a
// goroutine of its own: an Observer's, a store's) comes out of Step, as it
// would have from a record made in line.
func TestStepRaisesARecordingsPanic(t *testing.T) {
	e := newEnv(t)
	e.client = e.sb.Client(upicollect.WithObserver(panickyObserver{}))
	t.Cleanup(e.client.CloseIdleConnections)
	sw, err := reconcile.New(e.client, reconcile.NewMemoryStore(), (&events{}).handle, reconcile.WithClock(e.clk.Now))
	require.NoError(t, err)
	for _, id := range trackAhead(t, e, sw, 1) {
		_, err := e.sb.Pay(id)
		require.NoError(t, err)
	}
	defer func() {
		p := recover()
		require.NotNil(t, p, "Step panicked")
		assert.Contains(t, fmt.Sprint(p), "observer broke")
		assert.Contains(t, fmt.Sprint(p), "recording a batch")
	}()
	_, _ = sw.Step(boundedCtx(t), t0.Add(time.Minute))
}

// TestRecordingsPanicAfterItsStepIsLogged: a panic while a batch is
// recorded after its step's context ended has no caller to come out of:
// the cleanup that waits for the record logs it.
func TestRecordingsPanicAfterItsStepIsLogged(t *testing.T) {
	e := newEnv(t)
	e.client = e.sb.Client(upicollect.WithObserver(panickyObserver{}))
	t.Cleanup(e.client.CloseIdleConnections)
	st := newAheadStore(t)
	close(st.gate)
	st.detached = true
	ctx, hold, _ := st.endInFirstCommit(t)
	var logs syncBuffer
	sw, err := reconcile.New(e.client, st, (&events{}).handle, reconcile.WithBatchSize(2), reconcile.WithClock(e.clk.Now),
		reconcile.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	require.NoError(t, err)
	for _, id := range trackAhead(t, e, sw, 2) {
		_, err := e.sb.Pay(id)
		require.NoError(t, err)
	}
	_, err = sw.Step(ctx, t0.Add(time.Minute))
	require.ErrorIs(t, err, context.Canceled)
	// The record goes on, and its FinalState panics; the next step waits
	// for the cleanup.
	close(hold)
	_, err = sw.Step(boundedCtx(t), t0.Add(time.Minute))
	require.NoError(t, err)
	assert.Contains(t, logs.String(), "recording a batch panicked after its step had ended")
	assert.Contains(t, logs.String(), "observer broke")
}
