package reconcile

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

// checkErr is the error of one status check that the sandbox answers with
// fault (none: the order id given decides).
func checkErr(t *testing.T, fault *sandbox.Fault, orderID string) error {
	t.Helper()
	sb := sandbox.Start(t)
	c := sb.Client(upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1}))
	t.Cleanup(c.CloseIdleConnections)
	if fault != nil {
		sb.InjectFault(*fault)
	}
	_, err := c.CheckPaymentStatus(context.Background(), orderID)
	return err
}

// TestServiceFailure: what a failing service answers every order alike is
// a service failure; a refusal of one order's request, a bad order id and
// a plain error are not.
func TestServiceFailure(t *testing.T) {
	op := "checkPaymentStatus"
	for _, tc := range []struct {
		name       string
		fault      *sandbox.Fault
		orderID    string
		want       bool
		retryAfter time.Duration
	}{
		{"500", &sandbox.Fault{Op: op, Status: 500, Body: []byte(`{"status":false,"statusCode":500,"msg":"down"}`)}, "o-1", true, 0},
		{"502 HTML", &sandbox.Fault{Op: op, Status: 502, Body: []byte(`<html>bad gateway</html>`)}, "o-1", true, 0},
		{"200 HTML", &sandbox.Fault{Op: op, Status: 200, Body: []byte(`<html>maintenance</html>`)}, "o-1", true, 0},
		{"429 with Retry-After", &sandbox.Fault{Op: op, Status: 429, Header: http.Header{"Retry-After": {"20"}},
			Body: []byte(`{"status":false,"statusCode":429,"msg":"slow"}`)}, "o-1", true, 20 * time.Second},
		{"503 with a long Retry-After", &sandbox.Fault{Op: op, Status: 503, Header: http.Header{"Retry-After": {"3600"}},
			Body: []byte(`{"status":false,"statusCode":503,"msg":"later"}`)}, "o-1", true, maxPause},
		{"401", &sandbox.Fault{Op: op, Status: 401, Body: []byte(`{"status":false,"statusCode":401,"msg":"Unauthorized"}`)}, "o-1", true, 0},
		{"connection reset", &sandbox.Fault{Op: op, ResetBeforeProcessing: true}, "o-1", true, 0},
		{"400 for the order", &sandbox.Fault{Op: op, Status: 400, Body: []byte(`{"status":false,"statusCode":400,"msg":"bad order"}`)}, "o-1", false, 0},
		{"an order id the service would refuse", nil, "bad id with spaces", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkErr(t, tc.fault, tc.orderID)
			require.Error(t, err)
			assert.Equal(t, tc.want, serviceFailure(err))
			assert.Equal(t, tc.retryAfter, retryAfterOf(err))
		})
	}
	assert.False(t, serviceFailure(errors.New("not the client's")))
	assert.False(t, serviceFailure(nil))
	assert.Zero(t, retryAfterOf(errors.New("not the client's")))
}

// TestHealth walks the outage rule: outageAfter service failures of
// distinct orders in a row open an outage; a failure of the same order
// again, or an answer between, does not; probes wait probeFirst, doubling
// to probeMax; an answer ends it; a Retry-After holds every check.
func TestHealth(t *testing.T) {
	down := checkErr(t, &sandbox.Fault{Op: "checkPaymentStatus", Status: 500, Body: []byte(`{"status":false,"statusCode":500,"msg":"down"}`)}, "o-1")
	refused := checkErr(t, &sandbox.Fault{Op: "checkPaymentStatus", Status: 400, Body: []byte(`{"status":false,"statusCode":400,"msg":"no"}`)}, "o-1")
	pause := checkErr(t, &sandbox.Fault{Op: "checkPaymentStatus", Status: 429, Header: http.Header{"Retry-After": {"30"}},
		Body: []byte(`{"status":false,"statusCode":429,"msg":"slow"}`)}, "o-1")
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	var h health
	requireFree := func(at time.Time) {
		t.Helper()
		_, probe, held := h.held(at)
		require.False(t, held, "held at %v", at)
		require.False(t, probe, "a probe at %v", at)
	}

	for i := range outageAfter - 1 {
		assert.False(t, h.failedAt(fmt.Sprint("o-", i), down, now), "failure %d", i+1)
	}
	assert.False(t, h.failedAt("o-0", down, now), "the same order again is not another order")
	assert.False(t, h.failedAt("o-9", refused, now), "one order's refusal is not the service's")
	requireFree(now)
	h.answered()
	assert.False(t, h.failedAt("o-7", down, now), "an answer started the count again")
	assert.False(t, h.failedAt("o-8", down, now))
	assert.True(t, h.failedAt("o-9", down, now), "the third order in a row: an outage")
	assert.True(t, h.isOut())

	until, probe, held := h.held(now.Add(probeFirst - time.Nanosecond))
	assert.True(t, held)
	assert.False(t, probe)
	assert.Equal(t, now.Add(probeFirst), until)
	_, probe, held = h.held(now.Add(probeFirst))
	assert.False(t, held)
	assert.True(t, probe, "the probe is due")
	until, probe, held = h.held(now.Add(probeFirst))
	assert.True(t, held, "one probe at a time: the next caller is held while it is out")
	assert.False(t, probe)
	assert.Equal(t, now.Add(2*probeFirst), until)

	at := now.Add(probeFirst)
	for _, gap := range []time.Duration{2 * probeFirst, probeMax, probeMax} {
		assert.True(t, h.failedAt("o-1", down, at), "a failed probe keeps the outage")
		until, _, held = h.held(at)
		assert.True(t, held)
		assert.Equal(t, at.Add(gap), until, "the next probe %v later", gap)
		at = until
	}
	assert.True(t, h.failedAt("o-2", refused, at), "an order's refusal during an outage ends nothing")
	h.answered()
	assert.False(t, h.isOut())
	requireFree(at)

	assert.True(t, h.failedAt("o-3", pause, at), "a Retry-After holds every check")
	assert.False(t, h.isOut(), "a pause is no outage")
	until, probe, held = h.held(at.Add(30*time.Second - time.Nanosecond))
	assert.True(t, held)
	assert.False(t, probe)
	assert.Equal(t, at.Add(30*time.Second), until)
	requireFree(at.Add(30 * time.Second))
	assert.False(t, h.failedAt("o-4", refused, at.Add(30*time.Second)))
	assert.True(t, h.failedAt("o-4", pause, at.Add(time.Second)), "a later Retry-After extends the pause")
	until, _, _ = h.held(at.Add(time.Second))
	assert.Equal(t, at.Add(31*time.Second), until)
}

// TestHealthFailureWithoutRetryAfterPausesNothing: a failure that asked for
// no pause sets none, not even one ending at its own time: a step at an
// earlier time (a sweeper whose clock is behind) is not held.
func TestHealthFailureWithoutRetryAfterPausesNothing(t *testing.T) {
	down := checkErr(t, &sandbox.Fault{Op: "checkPaymentStatus", Status: 500, Body: []byte(`{"status":false,"statusCode":500,"msg":"down"}`)}, "o-1")
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	var h health
	assert.False(t, h.failedAt("o-1", down, now))
	until, probe, held := h.held(now.Add(-time.Second))
	assert.False(t, held, "held until %v", until)
	assert.False(t, probe)
	assert.True(t, h.pauseEnd.IsZero())
}

// TestAnsweredBy: a check the service answered, even with a refusal of
// the order's own request, shows it answering; no answer, a 5xx, garbage,
// a 429 and an order id refused before sending do not.
func TestAnsweredBy(t *testing.T) {
	op := "checkPaymentStatus"
	assert.True(t, answeredBy(nil))
	assert.True(t, answeredBy(checkErr(t, &sandbox.Fault{Op: op, Status: 400, Body: []byte(`{"status":false,"statusCode":400,"msg":"bad order"}`)}, "o-1")))
	assert.False(t, answeredBy(checkErr(t, &sandbox.Fault{Op: op, Status: 500, Body: []byte(`{"status":false,"statusCode":500,"msg":"down"}`)}, "o-1")))
	assert.False(t, answeredBy(checkErr(t, &sandbox.Fault{Op: op, Status: 200, Body: []byte(`<html>maintenance</html>`)}, "o-1")))
	assert.False(t, answeredBy(checkErr(t, &sandbox.Fault{Op: op, Status: 429, Body: []byte(`{"status":false,"statusCode":429,"msg":"slow"}`)}, "o-1")))
	assert.False(t, answeredBy(checkErr(t, &sandbox.Fault{Op: op, ResetBeforeProcessing: true}, "o-1")))
	assert.False(t, answeredBy(checkErr(t, nil, "bad id with spaces")))
	assert.False(t, answeredBy(errors.New("not the client's")))
}
