package upicollectotel

import (
	"context"
	"net/http"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.30.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/upicollect/upicollect-go"
)

// ScopeName is the instrumentation scope of the spans and metrics.
const ScopeName = "github.com/upicollect/upicollect-go/otel"

// Attribute keys of this package (the others come from the semantic
// conventions).
const (
	// OperationKey is the operation ("checkPaymentStatus", ...), on spans
	// and metrics.
	OperationKey = attribute.Key("upicollect.operation")
	// OrderIDKey is the call's order id, on spans only.
	OrderIDKey = attribute.Key("upicollect.order_id")
	// OutcomeKey is the call's upicollect.Outcome.
	OutcomeKey = attribute.Key("upicollect.outcome")
	// AttemptsKey is the number of attempts a call sent.
	AttemptsKey = attribute.Key("upicollect.attempts")
	// RateLimitWaitKey is the seconds an attempt waited for the rate limiter.
	RateLimitWaitKey = attribute.Key("upicollect.rate_limit.wait")
	// RetryReasonKey is why a call retried, on the RetryEvent.
	RetryReasonKey = attribute.Key("upicollect.retry.reason")
	// RetryDelayKey is the seconds before the next attempt, on the
	// RetryEvent.
	RetryDelayKey = attribute.Key("upicollect.retry.delay")
	// SourceKey is who learnt a final state: "WaitForPayment" or
	// "reconcile".
	SourceKey = attribute.Key("upicollect.source")
	// TxnStatusKey is the final state: SUCCESS, FAIL, REJECT, PENDING (an
	// order a reconciler gave up on) or "other".
	TxnStatusKey = attribute.Key("upicollect.txn_status")
	// ResultKey is the source's own word for the final state, such as
	// reconcile's "late_paid".
	ResultKey = attribute.Key("upicollect.result")
)

// RetryEvent is the name of the event an attempt span gets when the call
// retries after it.
const RetryEvent = "upicollect.retry"

// Observer is the upicollect.Observer NewObserver returns.
type Observer struct {
	tracer trace.Tracer

	calls          metric.Int64Counter
	attempts       metric.Int64Counter
	retries        metric.Int64Counter
	outcomeUnknown metric.Int64Counter
	callDuration   metric.Float64Histogram
	timeToFinal    metric.Float64Histogram

	// sets caches the metric attribute sets, which repeat: building one
	// per call would cost allocations. A map under a lock, not a sync.Map,
	// whose any keys would cost one each lookup.
	mu   sync.RWMutex
	sets map[setKey]measureOpts
	// names caches each operation's attempt span name.
	names map[string]string
}

var _ upicollect.Observer = (*Observer)(nil)

// NewObserver returns an Observer that records spans with tp and metrics
// with mp; a nil provider means OpenTelemetry's global one. Instruments the
// meter refuses (it returns an error only for invalid names, which these are
// not) are replaced by no-op ones, as the OpenTelemetry API does.
func NewObserver(tp trace.TracerProvider, mp metric.MeterProvider) upicollect.Observer {
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	version := trace.WithInstrumentationVersion(upicollect.Version)
	o := &Observer{tracer: tp.Tracer(ScopeName, version), sets: map[setKey]measureOpts{}, names: map[string]string{}}
	m := mp.Meter(ScopeName, metric.WithInstrumentationVersion(upicollect.Version))
	// The API returns a working no-op instrument with its error: the error
	// is the SDK's report of a bad name, and these names are constants.
	o.calls, _ = m.Int64Counter("upicollect.client.calls", metric.WithUnit("{call}"),
		metric.WithDescription("Calls to the payment service, by operation and outcome."))
	o.attempts, _ = m.Int64Counter("upicollect.client.attempts", metric.WithUnit("{attempt}"),
		metric.WithDescription("HTTP requests sent to the payment service, retries included."))
	o.retries, _ = m.Int64Counter("upicollect.client.retries", metric.WithUnit("{retry}"),
		metric.WithDescription("Attempts followed by another attempt of the same call."))
	o.outcomeUnknown, _ = m.Int64Counter("upicollect.client.outcome_unknown", metric.WithUnit("{call}"),
		metric.WithDescription("Creates that may or may not have taken effect: check the order's status."))
	o.callDuration, _ = m.Float64Histogram("upicollect.client.call.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of calls, retries, backoff and rate-limit waits included."))
	o.timeToFinal, _ = m.Float64Histogram("upicollect.payment.time_to_final_state", metric.WithUnit("s"),
		metric.WithDescription("Time for an order to reach a final state: since the wait began (WaitForPayment) or the order was created (reconcile)."))
	return o
}

// setKey identifies a cached attribute set: the instrument's kind and the
// values its attributes are made of (for kindFinal: the source, the state
// and the result, in op, errorType and outcome).
type setKey struct {
	kind      uint8
	op        string
	outcome   upicollect.Outcome
	errorType string
	status    int
}

const (
	kindCall uint8 = iota
	kindAttempt
	kindRetry
	kindDuration
	kindUnknown
	kindFinal
)

// measureOpts are one attribute set as the options of Add and Record,
// built once: a variadic argument built per call would escape.
type measureOpts struct {
	add []metric.AddOption
	rec []metric.RecordOption
}

// attrs returns the measurement options for k, building them on first use.
func (o *Observer) attrs(k setKey, build func() []attribute.KeyValue) measureOpts {
	o.mu.RLock()
	v, ok := o.sets[k]
	o.mu.RUnlock()
	if ok {
		return v
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if v, ok := o.sets[k]; ok {
		return v
	}
	set := metric.WithAttributeSet(attribute.NewSet(build()...))
	v = measureOpts{add: []metric.AddOption{set}, rec: []metric.RecordOption{set}}
	o.sets[k] = v
	return v
}

// attemptName is the name of op's attempt spans, "POST /v1/payments/{op}",
// built once per operation.
func (o *Observer) attemptName(op string) string {
	o.mu.RLock()
	name, ok := o.names[op]
	o.mu.RUnlock()
	if ok {
		return name
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	name = http.MethodPost + " /v1/payments/" + op
	o.names[op] = name
	return name
}

// The spans' start options, shared: a variadic argument built per call
// would escape. Attributes are set once a span is known to record.
var (
	callStart    = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal)}
	attemptStart = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)}
)

// StartCall starts the call's span.
func (o *Observer) StartCall(ctx context.Context, c upicollect.CallInfo) context.Context {
	ctx, span := o.tracer.Start(ctx, c.Op, callStart...)
	if span.IsRecording() {
		span.SetAttributes(OperationKey.String(c.Op), semconv.ServerAddress(c.ServerAddress), semconv.ServerPort(c.ServerPort))
		if c.OrderID != "" {
			span.SetAttributes(OrderIDKey.String(c.OrderID))
		}
	}
	return ctx
}

// StartAttempt starts the attempt's span, a child of the call's.
func (o *Observer) StartAttempt(ctx context.Context, c upicollect.CallInfo, n int) context.Context {
	ctx, span := o.tracer.Start(ctx, o.attemptName(c.Op), attemptStart...)
	if span.IsRecording() {
		span.SetAttributes(
			semconv.HTTPRequestMethodPost,
			semconv.HTTPRequestResendCount(n-1),
			semconv.ServerAddress(c.ServerAddress),
			semconv.ServerPort(c.ServerPort),
			OperationKey.String(c.Op),
		)
	}
	return ctx
}

// EndAttempt ends the attempt's span and counts the attempt (and its retry).
func (o *Observer) EndAttempt(ctx context.Context, c upicollect.CallInfo, a upicollect.AttemptEnd) {
	span := trace.SpanFromContext(ctx)
	if span.IsRecording() {
		if a.HTTPStatus != 0 {
			span.SetAttributes(semconv.HTTPResponseStatusCode(a.HTTPStatus))
		}
		if a.RateLimitWait > 0 {
			span.SetAttributes(RateLimitWaitKey.Float64(a.RateLimitWait.Seconds()))
		}
		if a.ErrorType != "" {
			span.SetAttributes(semconv.ErrorTypeKey.String(a.ErrorType))
			span.SetStatus(codes.Error, a.ErrorType)
		}
		if a.RetryReason != "" {
			span.AddEvent(RetryEvent, trace.WithAttributes(
				RetryReasonKey.String(a.RetryReason), RetryDelayKey.Float64(a.RetryDelay.Seconds())))
		}
	}
	span.End()
	o.attempts.Add(ctx, 1, o.attrs(setKey{kind: kindAttempt, op: c.Op, errorType: a.ErrorType, status: a.HTTPStatus},
		func() []attribute.KeyValue {
			kv := []attribute.KeyValue{OperationKey.String(c.Op)}
			if a.HTTPStatus != 0 {
				kv = append(kv, semconv.HTTPResponseStatusCode(a.HTTPStatus))
			}
			if a.ErrorType != "" {
				kv = append(kv, semconv.ErrorTypeKey.String(a.ErrorType))
			}
			return kv
		}).add...)
	if a.RetryReason != "" {
		o.retries.Add(ctx, 1, o.attrs(setKey{kind: kindRetry, op: c.Op, errorType: a.ErrorType},
			func() []attribute.KeyValue {
				return []attribute.KeyValue{OperationKey.String(c.Op), semconv.ErrorTypeKey.String(a.ErrorType)}
			}).add...)
	}
}

// EndCall ends the call's span and counts the call.
func (o *Observer) EndCall(ctx context.Context, c upicollect.CallInfo, e upicollect.CallEnd) {
	span := trace.SpanFromContext(ctx)
	if span.IsRecording() {
		span.SetAttributes(OutcomeKey.String(string(e.Outcome)), AttemptsKey.Int(e.Attempts))
		if e.HTTPStatus != 0 {
			span.SetAttributes(semconv.HTTPResponseStatusCode(e.HTTPStatus))
		}
		if e.ErrorType != "" {
			span.SetAttributes(semconv.ErrorTypeKey.String(e.ErrorType))
			span.SetStatus(codes.Error, e.Reason)
		}
	}
	span.End()
	o.calls.Add(ctx, 1, o.attrs(setKey{kind: kindCall, op: c.Op, outcome: e.Outcome, errorType: e.ErrorType},
		func() []attribute.KeyValue {
			kv := []attribute.KeyValue{OperationKey.String(c.Op), OutcomeKey.String(string(e.Outcome))}
			if e.ErrorType != "" {
				kv = append(kv, semconv.ErrorTypeKey.String(e.ErrorType))
			}
			return kv
		}).add...)
	o.callDuration.Record(ctx, e.Duration.Seconds(), o.attrs(setKey{kind: kindDuration, op: c.Op, outcome: e.Outcome},
		func() []attribute.KeyValue {
			return []attribute.KeyValue{OperationKey.String(c.Op), OutcomeKey.String(string(e.Outcome))}
		}).rec...)
	if e.Outcome == upicollect.OutcomeUnknown {
		o.outcomeUnknown.Add(ctx, 1, o.attrs(setKey{kind: kindUnknown, op: c.Op},
			func() []attribute.KeyValue { return []attribute.KeyValue{OperationKey.String(c.Op)} }).add...)
	}
}

// FinalState records the time the order took to reach its final state.
func (o *Observer) FinalState(ctx context.Context, f upicollect.FinalState) {
	status := txnStatusAttr(f.Status)
	o.timeToFinal.Record(ctx, f.Elapsed.Seconds(), o.attrs(setKey{kind: kindFinal, op: f.Source, errorType: status, outcome: upicollect.Outcome(f.Result)},
		func() []attribute.KeyValue {
			kv := []attribute.KeyValue{SourceKey.String(f.Source), TxnStatusKey.String(status)}
			if f.Result != "" {
				kv = append(kv, ResultKey.String(f.Result))
			}
			return kv
		}).rec...)
}

// txnStatusAttr keeps the metric's cardinality bounded: a state the SDK
// does not know is "other".
func txnStatusAttr(s upicollect.TxnStatus) string {
	switch s {
	case upicollect.TxnSuccess, upicollect.TxnFail, upicollect.TxnReject, upicollect.TxnPending:
		return string(s)
	}
	return "other"
}
