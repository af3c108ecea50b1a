package reconcile_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/sandbox"
)

// counting counts the status checks a client sends (every attempt).
type counting struct {
	rt     http.RoundTripper
	checks atomic.Int64
}

func (c *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/checkPaymentStatus") {
		c.checks.Add(1)
	}
	return c.rt.RoundTrip(r)
}

// maintenancePage is what a service that is down for maintenance answers
// every status check: an HTML page with 200 OK.
var maintenancePage = sandbox.Fault{Op: "checkPaymentStatus", Times: -1, Status: http.StatusOK,
	Header: http.Header{"Content-Type": {"text/html"}},
	Body:   []byte("<html><body><h1>Down for maintenance</h1><p>Back soon.</p></body></html>")}

// TestOutageCostsProbes runs a 6-hour outage of the service (every status
// check answered with an HTML maintenance page), the sweeper stepped every
// minute of sandbox time, for 200 and for 10,000 tracked orders: the outage
// costs at most 2 requests a minute in all (the first checks that found it,
// then one probe at a time, each with the client's retries), every payment
// made during it is delivered within 3 minutes of the service's return,
// and each event once.
func TestOutageCostsProbes(t *testing.T) {
	for _, n := range []int{200, 10000} {
		t.Run(fmt.Sprint(n, " orders"), func(t *testing.T) {
			e := newEnv(t)
			ctx := boundedCtx(t)
			cnt := &counting{rt: http.DefaultTransport.(*http.Transport).Clone()}
			client := e.sb.Client(upicollect.WithHTTPClient(&http.Client{Transport: cnt}),
				// The default three attempts a check, with backoffs too short
				// to wait for in a test.
				upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Microsecond, MaxDelay: time.Microsecond}))
			t.Cleanup(client.CloseIdleConnections)
			var (
				mu        sync.Mutex
				delivered = map[string][]reconcile.Event{}
			)
			sw, err := reconcile.New(client, reconcile.NewMemoryStore(), func(_ context.Context, ev reconcile.Event) error {
				mu.Lock()
				defer mu.Unlock()
				delivered[ev.Order.ID] = append(delivered[ev.Order.ID], ev)
				return nil
			}, reconcile.WithClock(e.clk.Now))
			require.NoError(t, err)

			// Orders the service never saw (not found) wait for their
			// payers; during the outage other payers create orders and pay.
			for i := range n {
				o := reconcile.Order{ID: fmt.Sprintf("out-%05d", i), Amount: upicollect.Rupees(10), Created: e.clk.Now()}
				require.NoError(t, sw.Track(ctx, o))
			}
			const payers = 12
			start := t0.Add(time.Minute)
			back := start.Add(6 * time.Hour)
			e.sb.InjectFault(maintenancePage)
			paidAt := map[string]time.Time{}
			step := func(now time.Time) {
				e.clk.Set(now)
				_, err := sw.Step(ctx, now)
				require.NoError(t, err)
			}
			for i, now := 0, start; now.Before(back); i, now = i+1, now.Add(time.Minute) {
				if i%30 == 0 && len(paidAt) < payers { // a payer every half hour
					id := fmt.Sprintf("paid-%02d", len(paidAt))
					e.clk.Set(now)
					require.NoError(t, sw.Track(ctx, e.intent(t, id, upicollect.Rupees(10))))
					_, err := e.sb.Pay(id)
					require.NoError(t, err)
					paidAt[id] = now
				}
				step(now)
			}
			during := cnt.checks.Load()
			minutes := int64(back.Sub(start) / time.Minute)
			t.Logf("%d orders: %d status requests in the %d minutes of the outage (%.2f a minute)", n, during, minutes, float64(during)/float64(minutes))
			assert.LessOrEqual(t, during, 2*minutes, "an outage costs probes, not a check per order")

			e.sb.Clear(sandbox.Faults)
			var last time.Time
			for now := back; now.Before(back.Add(10 * time.Minute)); now = now.Add(time.Minute) {
				step(now)
				mu.Lock()
				all := true
				for id := range paidAt {
					if len(delivered[id]) == 0 {
						all = false
					}
				}
				mu.Unlock()
				if all {
					last = now
					break
				}
			}
			require.False(t, last.IsZero(), "every payment made during the outage is delivered")
			t.Logf("%d orders: the last payment made during the outage delivered %v after the service's return; %d status requests after it",
				n, last.Sub(back), cnt.checks.Load()-during)
			assert.LessOrEqual(t, last.Sub(back), 3*time.Minute)
			mu.Lock()
			defer mu.Unlock()
			for id := range paidAt {
				require.Len(t, delivered[id], 1, "%s: each event once", id)
				assert.Equal(t, reconcile.Paid, delivered[id][0].Result, id)
			}
			for id, evs := range delivered {
				seen := map[reconcile.Result]bool{}
				for _, ev := range evs {
					assert.False(t, seen[ev.Result], "%s: %s delivered twice", id, ev.Result)
					seen[ev.Result] = true
				}
			}
		})
	}
}

// garbageFor answers the status checks of the orders in bad with an HTML
// page, as a broken cache in front of the service might; others pass.
type garbageFor struct {
	rt  http.RoundTripper
	bad map[string]bool
}

func (g garbageFor) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/checkPaymentStatus") && r.GetBody != nil {
		rc, err := r.GetBody()
		if err != nil {
			return nil, err
		}
		form, err := io.ReadAll(rc)
		if err != nil {
			return nil, err
		}
		q, err := url.ParseQuery(string(form))
		if err != nil {
			return nil, err
		}
		if g.bad[q.Get("order_id")] {
			return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/html"}},
				Body: io.NopCloser(strings.NewReader("<html>cached page</html>")), Request: r}, nil
		}
	}
	return g.rt.RoundTrip(r)
}

// TestOneOrdersBadAnswersKeepItsOwnBackoff: an order whose every answer is
// garbage while the others' are fine is not an outage: the others are
// checked and delivered as usual, and the bad one backs off on its own.
func TestOneOrdersBadAnswersKeepItsOwnBackoff(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	client := e.sb.Client(upicollect.WithHTTPClient(&http.Client{Transport: garbageFor{
		rt: http.DefaultTransport.(*http.Transport).Clone(), bad: map[string]bool{"bad-1": true}}}),
		upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1}))
	t.Cleanup(client.CloseIdleConnections)
	rec := &events{}
	sw, err := reconcile.New(client, reconcile.NewMemoryStore(), rec.handle, reconcile.WithConcurrency(1))
	require.NoError(t, err)
	require.NoError(t, sw.Track(ctx, e.intent(t, "bad-1", upicollect.Rupees(10))))
	for i := range 5 {
		require.NoError(t, sw.Track(ctx, e.intent(t, fmt.Sprint("good-", i), upicollect.Rupees(10))))
	}
	for i := range 5 {
		_, err := e.sb.Pay(fmt.Sprint("good-", i))
		require.NoError(t, err)
	}
	_, err = e.sb.Pay("bad-1")
	require.NoError(t, err)
	for now := t0.Add(10 * time.Second); now.Before(t0.Add(10 * time.Minute)); now = now.Add(10 * time.Second) {
		e.clk.Set(now)
		_, err := sw.Step(ctx, now)
		require.NoError(t, err)
	}
	for i := range 5 {
		assert.Equal(t, []reconcile.Result{reconcile.Paid}, rec.results(fmt.Sprint("good-", i)))
	}
	assert.Empty(t, rec.results("bad-1"))
	st, err := sw.Lookup(ctx, "bad-1")
	require.NoError(t, err)
	assert.Greater(t, st.Failures, 3, "its own failures count")
	assert.Zero(t, st.Checks, "no answer of it was read")
	c, err := sw.Confirm(ctx, "good-0")
	require.NoError(t, err, "not an outage: Confirm is not held")
	assert.Equal(t, reconcile.Paid, c.State)
}

// TestConfirmDuringAnOutage: while the sweeper holds its checks, Confirm
// returns the ledger's state with ErrServiceFailing and sends nothing; once
// the probe is due, Confirm's check is the probe, and its answer ends the
// outage.
func TestConfirmDuringAnOutage(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	cnt := &counting{rt: http.DefaultTransport.(*http.Transport).Clone()}
	client := e.sb.Client(upicollect.WithHTTPClient(&http.Client{Transport: cnt}), upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1}))
	t.Cleanup(client.CloseIdleConnections)
	rec := &events{}
	sw, err := reconcile.New(client, reconcile.NewMemoryStore(), rec.handle, reconcile.WithClock(e.clk.Now))
	require.NoError(t, err)
	for i := range 5 {
		require.NoError(t, sw.Track(ctx, e.intent(t, fmt.Sprint("o-", i), upicollect.Rupees(10))))
	}
	e.sb.InjectFault(maintenancePage)
	now := t0.Add(10 * time.Second)
	e.clk.Set(now)
	_, err = sw.Step(ctx, now)
	require.NoError(t, err)
	before := cnt.checks.Load()
	require.GreaterOrEqual(t, before, int64(3), "the checks that found the outage")
	_, err = e.sb.Pay("o-4")
	require.NoError(t, err)
	st, err := sw.Confirm(ctx, "o-4")
	require.ErrorIs(t, err, reconcile.ErrServiceFailing)
	require.NotNil(t, st)
	assert.Equal(t, reconcile.Pending, st.State, "the ledger's state as it is")
	assert.Equal(t, before, cnt.checks.Load(), "no check beyond the probe")

	e.sb.Clear(sandbox.Faults)
	e.clk.Set(now.Add(time.Minute)) // the probe is due
	st, err = sw.Confirm(ctx, "o-4")
	require.NoError(t, err)
	assert.Equal(t, reconcile.Paid, st.State)
	assert.Equal(t, before+1, cnt.checks.Load(), "Confirm's one check was the probe")
	assert.Equal(t, []reconcile.Result{reconcile.Paid}, rec.results("o-4"))
	stats, err := sw.Step(ctx, now.Add(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, 4, stats.Checked, "the outage is over: every held order is checked")
}

// TestRetryAfterSlowsTheWholeSweeper: a 429 with Retry-After holds every
// order's check until then, not only the order that drew it.
func TestRetryAfterSlowsTheWholeSweeper(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	cnt := &counting{rt: http.DefaultTransport.(*http.Transport).Clone()}
	client := e.sb.Client(upicollect.WithHTTPClient(&http.Client{Transport: cnt}), upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1}))
	t.Cleanup(client.CloseIdleConnections)
	sw, err := reconcile.New(client, reconcile.NewMemoryStore(), (&events{}).handle, reconcile.WithConcurrency(1))
	require.NoError(t, err)
	for i := range 4 {
		require.NoError(t, sw.Track(ctx, e.intent(t, fmt.Sprint("ra-", i), upicollect.Rupees(10))))
	}
	e.sb.InjectFault(sandbox.Fault{Op: "checkPaymentStatus", Status: http.StatusTooManyRequests,
		Header: http.Header{"Retry-After": {"90"}}, Body: []byte(`{"status":false,"statusCode":429,"msg":"slow down"}`)})
	now := t0.Add(10 * time.Second)
	stats, err := sw.Step(ctx, now)
	require.NoError(t, err)
	sent := cnt.checks.Load()
	assert.LessOrEqual(t, sent, int64(2), "the 429 (and the one check in flight beside it), then nothing more in this step")
	assert.Equal(t, now.Add(90*time.Second), stats.NextDue, "the whole sweeper waits for the Retry-After")
	assert.Equal(t, 1, stats.Errors, "the 429 that held the checks is counted")
	assert.Zero(t, stats.Checked)
	stats, err = sw.Step(ctx, now.Add(89*time.Second))
	require.NoError(t, err)
	assert.Equal(t, sent, cnt.checks.Load(), "held until then")
	assert.Zero(t, stats.Checked)
	_, err = sw.Step(ctx, now.Add(90*time.Second))
	require.NoError(t, err)
	for i := range 4 {
		st, err := sw.Lookup(ctx, fmt.Sprint("ra-", i))
		require.NoError(t, err)
		assert.Equal(t, 1, st.Checks, "ra-%d: checked once the pause is over, the 429's order included", i)
		assert.Zero(t, st.Failures, "ra-%d: the pause is no order's failure", i)
	}
}
