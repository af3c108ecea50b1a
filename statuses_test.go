package upicollect_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/internal/clock"
	"github.com/upicollect/upicollect-go/sandbox"
)

// countingIDs yields ids[0..] (or, with ids nil, "ord-0", "ord-1", ... for
// ever) and counts how many it handed out, to prove how far ahead the batch
// reads.
func countingIDs(ids []string, read *atomic.Int64) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := 0; ids == nil || i < len(ids); i++ {
			id := fmt.Sprintf("ord-%d", i)
			if ids != nil {
				id = ids[i]
			}
			read.Add(1)
			if !yield(id) {
				return
			}
		}
	}
}

// createIntents makes n intents in sb and returns their order ids.
func createIntents(t *testing.T, c *upicollect.Client, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("batch-%03d", i)
		_, err := c.CreatePaymentIntent(context.Background(), &upicollect.IntentParams{
			Amount: upicollect.Rupees(int64(10 + i)), OrderID: ids[i], RedirectURL: "https://shop.example.com/r",
			Note: "batch", Customer: upicollect.Customer{Name: "A", Email: "a@example.com", Mobile: "9876543210"},
		})
		require.NoError(t, err)
	}
	return ids
}

// TestCheckPaymentStatusesReportsEveryOrderOnce checks a batch against the
// sandbox: every order comes back exactly once, with its own state.
func TestCheckPaymentStatusesReportsEveryOrderOnce(t *testing.T) {
	verifyNoLeaks(t)
	for _, conc := range []int{0, 1, 3, 8, 100} { // 0: the default
		t.Run(fmt.Sprintf("concurrency=%d", conc), func(t *testing.T) {
			sb := sandbox.Start(t, sandbox.Strict())
			c := sb.Client()
			ids := createIntents(t, c, 40)
			paid := map[string]bool{}
			for i, id := range ids {
				if i%3 == 0 {
					_, err := sb.Pay(id)
					require.NoError(t, err)
					paid[id] = true
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), waitBound)
			defer cancel()
			seen := map[string]int{}
			for st, err := range c.CheckPaymentStatuses(ctx, countingIDs(ids, new(atomic.Int64)), upicollect.WithConcurrency(conc)) {
				require.NoError(t, err)
				seen[st.OrderID]++
				assert.Equal(t, paid[st.OrderID], st.Paid(), st.OrderID)
			}
			require.Len(t, seen, len(ids))
			for _, id := range ids {
				assert.Equal(t, 1, seen[id], id)
			}
			c.CloseIdleConnections()
		})
	}
}

// TestCheckPaymentStatusesBoundsConcurrency holds every request at the
// server until as many as the bound are in flight, then checks that no
// more ever were.
func TestCheckPaymentStatusesBoundsConcurrency(t *testing.T) {
	verifyNoLeaks(t)
	for _, tc := range []struct{ opt, want int }{{0, upicollect.DefaultConcurrency}, {1, 1}, {5, 5}, {-2, upicollect.DefaultConcurrency}} {
		t.Run(fmt.Sprintf("WithConcurrency(%d)", tc.opt), func(t *testing.T) {
			var inFlight, peak atomic.Int64
			full := make(chan struct{})
			var once sync.Once
			// No check can end before full is closed, and until one ends the
			// batch reads one id beyond its busy workers, no more.
			var read, readBeforeAnyEnded atomic.Int64
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				n := inFlight.Add(1)
				defer inFlight.Add(-1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				if n == int64(tc.want) {
					once.Do(func() { readBeforeAnyEnded.Store(read.Load()); close(full) })
				}
				select { // the first requests wait until the bound is reached
				case <-full:
				case <-r.Context().Done():
					return
				}
				respond(w, http.StatusOK, successBody(t, opStatus))
			})
			c, _ := newClient(t, srv.BaseURL())
			ctx, cancel := context.WithTimeout(context.Background(), waitBound)
			defer cancel()
			results := 0
			for st, err := range c.CheckPaymentStatuses(ctx, countingIDs(nil, &read), upicollect.WithConcurrency(tc.opt)) {
				require.NoError(t, err)
				require.True(t, st.Paid())
				if results++; results == 3*tc.want {
					break
				}
			}
			assert.Equal(t, int64(tc.want), peak.Load(), "requests in flight at most")
			assert.LessOrEqual(t, readBeforeAnyEnded.Load(), int64(tc.want+1), "ids read before any check ended")
			c.CloseIdleConnections()
		})
	}
}

// TestCheckPaymentStatusesStopsOnBreak breaks out after a few results of an
// endless input: the batch read at most a worker's worth ahead, and left
// no goroutine behind (verifyNoLeaks).
func TestCheckPaymentStatusesStopsOnBreak(t *testing.T) {
	verifyNoLeaks(t)
	sb := sandbox.Start(t, sandbox.Strict())
	c := sb.Client()
	const conc, want = 4, 10
	var read atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	got := 0
	for st, err := range c.CheckPaymentStatuses(ctx, countingIDs(nil, &read), upicollect.WithConcurrency(conc)) {
		require.NoError(t, err)
		assert.Equal(t, upicollect.TxnPending, st.TxnStatus) // the sandbox does not know them
		if got++; got == want {
			break
		}
	}
	assert.Equal(t, want, got)
	// want results taken, conc workers busy at most, and one id read that
	// waited for a free worker.
	assert.LessOrEqual(t, read.Load(), int64(want+conc+1), "ids read ahead")
	assert.LessOrEqual(t, len(sb.Requests()), want+conc, "checks sent")
	c.CloseIdleConnections()
}

// TestCheckPaymentStatusesEndsWithContext cancels the context while every
// check hangs at the server: the sequence ends, each check in flight
// reports an error naming its order and matching context.Canceled, and at
// most one order beyond them was read.
func TestCheckPaymentStatusesEndsWithContext(t *testing.T) {
	verifyNoLeaks(t)
	const conc = 3
	arrived := make(chan struct{}, 16)
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		arrived <- struct{}{}
		block(r)
	})
	c, _ := newClient(t, srv.BaseURL())
	ctx, cancel := context.WithCancel(context.Background())
	var read atomic.Int64
	done := make(chan map[string]error)
	go func() {
		errs := map[string]error{}
		for st, err := range c.CheckPaymentStatuses(ctx, countingIDs(nil, &read), upicollect.WithConcurrency(conc)) {
			assert.Nil(t, st)
			var ae *upicollect.APIError
			if assert.ErrorAs(t, err, &ae) {
				errs[ae.OrderID] = err
			}
		}
		done <- errs
	}()
	bound, stopBound := context.WithTimeout(context.Background(), waitBound)
	defer stopBound()
	for range conc { // until the server holds conc checks
		select {
		case <-arrived:
		case <-bound.Done():
			t.Fatal("the checks did not reach the server")
		}
	}
	cancel()
	var errs map[string]error
	select {
	case errs = <-done:
	case <-bound.Done():
		t.Fatal("the sequence did not end with its context")
	}
	require.Len(t, errs, conc)
	for id, err := range errs {
		assert.ErrorIs(t, err, context.Canceled, id)
		assert.True(t, strings.HasPrefix(id, "ord-"), id)
	}
	// conc ids in flight, one waiting for a worker when the context ended;
	// none read after.
	assert.LessOrEqual(t, read.Load(), int64(conc+1))
	c.CloseIdleConnections()
}

// TestCheckPaymentStatusesNamesTheOrderInEveryError mixes ids that fail
// validation with ids the server refuses: every error is an *APIError with
// the order's id, and a validation error still matches ErrValidation and
// carries the *ValidationError, with no request sent for it.
func TestCheckPaymentStatusesNamesTheOrderInEveryError(t *testing.T) {
	verifyNoLeaks(t)
	srv := newTestServer(t, always(http.StatusUnauthorized, []byte(`{"status":false,"statusCode":401,"msg":"Invalid credentials"}`)))
	c, _ := newClient(t, srv.BaseURL(), noRetry())
	ids := []string{"", "has space", "ok-1", "ok-2", "zero\u200bwidth"}
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	got := map[string]error{}
	for st, err := range c.CheckPaymentStatuses(ctx, countingIDs(ids, new(atomic.Int64))) {
		require.Nil(t, st)
		var ae *upicollect.APIError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, "checkPaymentStatus", ae.Op)
		assert.Equal(t, ae.OrderID, upicollect.OrderIDOf(st, err))
		got[ae.OrderID] = err
	}
	require.Len(t, got, len(ids))
	for _, id := range []string{"", "has space", "zero\u200bwidth"} {
		err := got[id]
		assert.ErrorIs(t, err, upicollect.ErrValidation, "%q", id)
		var ve *upicollect.ValidationError
		if assert.ErrorAs(t, err, &ve, "%q", id) {
			_, ok := ve.Field("order_id")
			assert.True(t, ok, "%q", id)
		}
	}
	for _, id := range []string{"ok-1", "ok-2"} {
		assert.ErrorIs(t, got[id], upicollect.ErrUnauthorized, id)
		assert.NotErrorIs(t, got[id], upicollect.ErrValidation, id)
	}
	assert.Equal(t, 2, srv.Count(), "only the valid ids were sent")
	c.CloseIdleConnections()
}

// TestOrderIDOf: the order of a status, else of the error's *APIError,
// else none.
func TestOrderIDOf(t *testing.T) {
	tests := []struct {
		name string
		st   *upicollect.PaymentStatus
		err  error
		want string
	}{
		{"a status", &upicollect.PaymentStatus{OrderID: "ord-1"}, nil, "ord-1"},
		{"a wrapped APIError", nil, fmt.Errorf("x: %w", &upicollect.APIError{OrderID: "ord-2"}), "ord-2"},
		{"another error", nil, errors.New("x"), ""},
		{"neither", nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, upicollect.OrderIDOf(tt.st, tt.err))
		})
	}
}

// TestCheckPaymentStatusesGoesThroughTheRateLimiter runs a batch on a client
// limited to 2 requests a second with a burst of 1: in fake time, the
// limiter spaced every check after the first, whatever the concurrency.
func TestCheckPaymentStatusesGoesThroughTheRateLimiter(t *testing.T) {
	verifyNoLeaks(t)
	sb := sandbox.Start(t, sandbox.Strict())
	clk := clock.NewFake(time.Now())
	c := sb.Client(upicollect.WithRateLimit(2, 1), upicollect.WithClock(clk))
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	n := 0
	for _, err := range c.CheckPaymentStatuses(ctx, countingIDs([]string{"a", "b", "c", "d", "e"}, new(atomic.Int64)), upicollect.WithConcurrency(5)) {
		require.NoError(t, err)
		n++
	}
	require.Equal(t, 5, n)
	var waited time.Duration
	for _, d := range clk.Sleeps() {
		waited += d
	}
	// Four checks beyond the burst at 2/s: 2s of limiter waits at least
	// (one nanosecond of rounding per wait allowed).
	assert.GreaterOrEqual(t, waited, 2*time.Second-5)
	assert.Len(t, sb.Requests(), 5)
	c.CloseIdleConnections()
}

// TestCheckPaymentStatusesSpendsTheRetryBudget runs a batch against a
// server that always fails: the client's retry budget, shared by the
// batch's checks, stops the retries long before every check used its
// attempts, and the errors say so.
func TestCheckPaymentStatusesSpendsTheRetryBudget(t *testing.T) {
	verifyNoLeaks(t)
	srv := newTestServer(t, always(http.StatusServiceUnavailable, []byte(`{"status":false,"statusCode":503,"msg":"down"}`)))
	// A budget of 20 tokens pays for 4 retries at 5 each.
	c, _ := newClient(t, srv.BaseURL(), upicollect.WithRetryBudget(20), attempts(3))
	ids := make([]string, 30)
	for i := range ids {
		ids[i] = fmt.Sprintf("down-%02d", i)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	var budgetOut, names []string
	for _, err := range c.CheckPaymentStatuses(ctx, countingIDs(ids, new(atomic.Int64)), upicollect.WithConcurrency(4)) {
		var ae *upicollect.APIError
		require.ErrorAs(t, err, &ae)
		require.ErrorIs(t, err, upicollect.ErrServer)
		names = append(names, ae.OrderID)
		if ae.Reason == upicollect.ReasonBudgetExhausted {
			budgetOut = append(budgetOut, ae.OrderID)
		}
	}
	sort.Strings(names)
	assert.Equal(t, ids, names)
	assert.Equal(t, len(ids)+4, srv.Count(), "one attempt each and the 4 retries the budget paid for")
	assert.NotEmpty(t, budgetOut)
	c.CloseIdleConnections()
}

// TestCheckPaymentStatusesCleansUpAfterAPanickingLoop panics in the loop's
// body: the panic reaches the caller and the batch's goroutines end.
func TestCheckPaymentStatusesCleansUpAfterAPanickingLoop(t *testing.T) {
	verifyNoLeaks(t)
	sb := sandbox.Start(t, sandbox.Strict())
	c := sb.Client()
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	assert.PanicsWithValue(t, "boom", func() {
		for range c.CheckPaymentStatuses(ctx, countingIDs(nil, new(atomic.Int64))) {
			panic("boom")
		}
	})
	c.CloseIdleConnections()
}

// The batch call's signature, as the public contract states it.
var (
	_ func(*upicollect.Client, context.Context, iter.Seq[string], ...upicollect.BatchOption) iter.Seq2[*upicollect.PaymentStatus, error] = (*upicollect.Client).CheckPaymentStatuses
	_ func(int) upicollect.BatchOption                                                                                                   = upicollect.WithConcurrency
)

// panickingIDs yields ids, then panics with value.
func panickingIDs(value any, ids ...string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, id := range ids {
			if !yield(id) {
				return
			}
		}
		panic(value)
	}
}

// TestCheckPaymentStatusesRaisesTheSequencesPanicInTheCaller: the batch
// reads orderIDs on a goroutine of its own, where a panic would kill the
// process; it reaches the caller's goroutine instead, with its value, after
// the checks already started were yielded, and also when the caller broke
// out of the loop. The batch's goroutines end either way.
func TestCheckPaymentStatusesRaisesTheSequencesPanicInTheCaller(t *testing.T) {
	verifyNoLeaks(t)
	sb := sandbox.Start(t, sandbox.Strict())
	c := sb.Client()
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	for _, tt := range []struct {
		name   string
		ids    []string
		breaks bool
		want   int // results yielded before the panic
	}{
		{"panic before the first order", nil, false, 0},
		{"panic after two orders", []string{"ord-a", "ord-b"}, false, 2},
		// The sequence panics right after its first order, which the batch
		// takes at once (a slot is free); the caller breaks out after that
		// order's result.
		{"panic after the caller broke out", []string{"ord-a"}, true, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			yielded := 0
			assert.PanicsWithValue(t, "bad id source", func() {
				for _, err := range c.CheckPaymentStatuses(ctx, panickingIDs("bad id source", tt.ids...), upicollect.WithConcurrency(1)) {
					yielded++
					assert.NoError(t, err)
					if tt.breaks {
						break
					}
				}
			})
			assert.Equal(t, tt.want, yielded)
		})
	}
	c.CloseIdleConnections()
}
