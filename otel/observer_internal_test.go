package upicollectotel

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/otel/metric/noop"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/upicollect/upicollect-go"
)

// TestCacheIsBounded: calls of ever new operations (Do's paths) and final
// states with ever new results leave at most maxSets attribute sets
// cached.
func TestCacheIsBounded(t *testing.T) {
	o := NewObserver(tracenoop.NewTracerProvider(), noop.NewMeterProvider()).(*Observer)
	ctx := context.Background()
	for i := 0; i < 3*maxSets; i++ {
		c := upicollect.CallInfo{Op: fmt.Sprintf("ORD-%d", i)}
		o.EndAttempt(o.StartAttempt(o.StartCall(ctx, c), c, 1), c, upicollect.AttemptEnd{Attempt: 1, HTTPStatus: 200})
		o.EndCall(ctx, c, upicollect.CallEnd{Attempts: 1, Outcome: upicollect.OutcomeSuccess})
		o.FinalState(ctx, upicollect.FinalState{Source: "reconcile", Result: fmt.Sprint("r", i), Status: upicollect.TxnFail, Elapsed: time.Second})
	}
	o.mu.RLock()
	defer o.mu.RUnlock()
	assert.Len(t, o.sets, maxSets)
	_, ok := o.sets[setKey{kind: kindCall, op: OtherOperation, outcome: upicollect.OutcomeSuccess}]
	assert.True(t, ok, "every such call shares one set")
}
