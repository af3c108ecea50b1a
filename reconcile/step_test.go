package reconcile_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/sandbox"
)

// TestStepEndsWithItsContext cancels a step whose checks hang at the
// service: Step returns the context's error, the leased orders are given
// back as they were, and the next step checks them and delivers.
func TestStepEndsWithItsContext(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	rec := &events{}
	sent := make(chan struct{}, 16)
	transport := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(transport.CloseIdleConnections)
	client := e.sb.Client(upicollect.WithHTTPClient(&http.Client{Transport: signalling{transport, sent}}))
	sw, err := reconcile.New(client, reconcile.NewMemoryStore(), rec.handle, reconcile.WithConcurrency(2))
	require.NoError(t, err)
	for _, id := range []string{"hang-1", "hang-2", "hang-3"} {
		o := e.intent(t, id, upicollect.Rupees(10))
		_, err := e.sb.Pay(id)
		require.NoError(t, err)
		require.NoError(t, sw.Track(ctx, o))
	}
	e.sb.InjectFault(sandbox.Fault{Op: "checkPaymentStatus", Latency: time.Hour, Times: -1})
	stepCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	now := t0.Add(10 * time.Second)
	go func() {
		_, err := sw.Step(stepCtx, now)
		done <- err
	}()
	// Cancel once the service holds two checks (the concurrency).
	for range 2 {
		select {
		case <-sent:
		case <-ctx.Done():
			t.Fatal("the checks never reached the service")
		}
	}
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
	case <-ctx.Done():
		t.Fatal("Step did not end with its context")
	}
	assert.Empty(t, rec.results("hang-1"))

	e.sb.Clear(sandbox.Faults)
	st, err := sw.Step(ctx, now)
	require.NoError(t, err)
	assert.Equal(t, 3, st.Paid, "the orders of the cancelled step were given back, due as they were")
}

// signalling is a transport that tells the test of every request it sends.
type signalling struct {
	rt   http.RoundTripper
	sent chan<- struct{}
}

func (s signalling) RoundTrip(r *http.Request) (*http.Response, error) {
	select {
	case s.sent <- struct{}{}:
	default: // nobody is counting any more
	}
	return s.rt.RoundTrip(r)
}

// TestOptionsShapeTheSweep runs a sweeper with its own payer window and
// schedule and a logger: the order expires at the window's end, is checked
// at the schedule's pace, and a failed check is logged, its order named.
func TestOptionsShapeTheSweep(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	client := e.sb.Client(upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1}))
	t.Cleanup(client.CloseIdleConnections)
	var logs syncBuffer
	rec := &events{}
	sw, err := reconcile.New(client, reconcile.NewMemoryStore(), rec.handle,
		reconcile.WithPayerWindow(2*time.Minute), reconcile.WithLateWindow(time.Hour),
		reconcile.WithSchedule(reconcile.Schedule{{Until: 2 * time.Minute, Every: time.Minute}, {Until: time.Hour, Every: 20 * time.Minute}}),
		reconcile.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	require.NoError(t, err)
	o := e.intent(t, "opts-1", upicollect.Rupees(10))
	require.NoError(t, sw.Track(ctx, o))
	e.sb.InjectFault(sandbox.Fault{Op: "checkPaymentStatus", Status: http.StatusBadGateway, Times: 1})
	sum := walk(t, e, sw, t0.Add(10*time.Hour))
	assert.Equal(t, []reconcile.Result{reconcile.Expired}, rec.results("opts-1"))
	assert.Equal(t, t0.Add(2*time.Minute), rec.get("opts-1", reconcile.Expired).At)
	// 1 min failed, retried after one step interval (1m05s), then 2 min,
	// 22 min, 42 min and the late window's end.
	assert.Equal(t, 5, sum.Checked)
	assert.Equal(t, 1, sum.Errors)
	assert.Contains(t, logs.String(), "status check failed")
	assert.Contains(t, logs.String(), "order_id=opts-1")
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestStepEndingRecordsWhatItChecked cancels a step after its first check
// answered and while its second hangs: the answered check is recorded (on a
// context of the step's own), and the hanging order is given back, due as
// it was.
func TestStepEndingRecordsWhatItChecked(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	sent := make(chan struct{}, 16)
	transport := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(transport.CloseIdleConnections)
	client := e.sb.Client(upicollect.WithHTTPClient(&http.Client{Transport: signalling{transport, sent}}))
	sw, err := reconcile.New(client, reconcile.NewMemoryStore(), (&events{}).handle, reconcile.WithConcurrency(1))
	require.NoError(t, err)
	for _, id := range []string{"first", "second"} {
		require.NoError(t, sw.Track(ctx, e.intent(t, id, upicollect.Rupees(10))))
	}
	e.sb.InjectFault(sandbox.Fault{Op: "checkPaymentStatus", Latency: time.Nanosecond, Times: 1})
	e.sb.InjectFault(sandbox.Fault{Op: "checkPaymentStatus", Latency: time.Hour, Times: -1})
	stepCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	now := t0.Add(10 * time.Second)
	go func() {
		_, err := sw.Step(stepCtx, now)
		done <- err
	}()
	for range 2 {
		select {
		case <-sent:
		case <-ctx.Done():
			t.Fatal("the checks never reached the service")
		}
	}
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	checked, hung := 0, 0
	for _, id := range []string{"first", "second"} {
		s, err := sw.Lookup(ctx, id)
		require.NoError(t, err)
		switch s.Checks {
		case 1:
			checked++
			assert.Equal(t, now.Add(10*time.Second), s.Next, "%s: rescheduled by its check", id)
		case 0:
			hung++
			assert.Equal(t, now, s.Next, "%s: given back, due as it was", id)
		}
	}
	assert.Equal(t, 1, checked, "the answered check is recorded")
	assert.Equal(t, 1, hung)
}
