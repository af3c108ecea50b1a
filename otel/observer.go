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
	// OperationKey is the operation ("checkPaymentStatus", ...). On
	// metrics it is one of the operations the SDK wraps, or "other" (Do's
	// paths may carry ids, which would grow a metric without bound); spans
	// carry it as the client named it.
	OperationKey = attribute.Key("upicollect.operation")
	// AppKey is the app whose link an intent's answer carried and the
	// client dropped (see upicollect.CallEnd.DroppedLinks): on the
	// DroppedLinkEvent as the answer named it, on the metric one of the
	// apps the service is known to name, or "other".
	AppKey = attribute.Key("upicollect.app")
	// ReasonKey is why the client dropped an app's link, on the
	// DroppedLinkEvent.
	ReasonKey = attribute.Key("upicollect.reason")
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

// DroppedLinkEvent is the name of the event a call span gets for each app
// link the client dropped from an intent.
const DroppedLinkEvent = "upicollect.app_link.dropped"

// OtherOperation is the metric operation of every call that is not one of
// the operations the SDK wraps (Do's), and the AppKey of every app the
// service is not known to name.
const OtherOperation = "other"

// operations are the operations the SDK wraps: the only values of a
// metric's OperationKey besides OtherOperation.
var operations = map[string]bool{
	"createPaymentIntent": true, "createPaymentRequest": true, "createPaymentLink": true,
	"checkPaymentStatus": true, "createOrderRequest": true,
}

// apps are the keys the service is known to give app links under.
var apps = map[string]bool{
	"phonepe": true, "paytm": true, "gpay": true, "cred": true, "app_a": true, "app_b": true, "app_c": true,
}

// metricOp bounds an operation for metrics and span names.
func metricOp(op string) string {
	if operations[op] {
		return op
	}
	return OtherOperation
}

// maxSets bounds the cache of attribute sets: what FinalState gets
// (a reconciler's source and result) is the caller's, and a cache keyed by
// it must not grow without bound. Past it, sets are built each time.
const maxSets = 1024

// Observer is the upicollect.Observer NewObserver returns.
type Observer struct {
	tracer trace.Tracer

	calls          metric.Int64Counter
	attempts       metric.Int64Counter
	retries        metric.Int64Counter
	outcomeUnknown metric.Int64Counter
	callDuration   metric.Float64Histogram
	timeToFinal    metric.Float64Histogram

	droppedLinks metric.Int64Counter

	// sets caches the metric attribute sets, which repeat: building one
	// per call would cost allocations. A map under a lock, not a sync.Map,
	// whose any keys would cost one each lookup; at most maxSets of them.
	mu   sync.RWMutex
	sets map[setKey]measureOpts
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
	o := &Observer{tracer: tp.Tracer(ScopeName, version), sets: map[setKey]measureOpts{}}
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
	o.droppedLinks, _ = m.Int64Counter("upicollect.client.app_links_dropped", metric.WithUnit("{link}"),
		metric.WithDescription("App links an intent's answer carried that the client dropped: unreadable, or naming no payee."))
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
	kindDropped
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
	if len(o.sets) < maxSets {
		o.sets[k] = v
	}
	return v
}

// attemptNames are the names of the attempt spans: "POST
// /v1/payments/{op}" for the operations the SDK wraps, "POST" (the
// method alone, as the HTTP conventions name a span whose route is not
// known) for Do's.
var attemptNames = func() map[string]string {
	m := map[string]string{OtherOperation: http.MethodPost}
	for op := range operations {
		m[op] = http.MethodPost + " /v1/payments/" + op
	}
	return m
}()

// The spans' start options, shared: a variadic argument built per call
// would escape. Attributes are set once a span is known to record.
var (
	callStart    = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal)}
	attemptStart = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)}
)

// StartCall starts the call's span.
func (o *Observer) StartCall(ctx context.Context, c upicollect.CallInfo) context.Context {
	ctx, span := o.tracer.Start(ctx, metricOp(c.Op), callStart...)
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
	ctx, span := o.tracer.Start(ctx, attemptNames[metricOp(c.Op)], attemptStart...)
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
	op := metricOp(c.Op)
	o.attempts.Add(ctx, 1, o.attrs(setKey{kind: kindAttempt, op: op, errorType: a.ErrorType, status: a.HTTPStatus},
		func() []attribute.KeyValue {
			kv := []attribute.KeyValue{OperationKey.String(op)}
			if a.HTTPStatus != 0 {
				kv = append(kv, semconv.HTTPResponseStatusCode(a.HTTPStatus))
			}
			if a.ErrorType != "" {
				kv = append(kv, semconv.ErrorTypeKey.String(a.ErrorType))
			}
			return kv
		}).add...)
	if a.RetryReason != "" {
		o.retries.Add(ctx, 1, o.attrs(setKey{kind: kindRetry, op: op, errorType: a.ErrorType},
			func() []attribute.KeyValue {
				return []attribute.KeyValue{OperationKey.String(op), semconv.ErrorTypeKey.String(a.ErrorType)}
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
		for _, d := range e.DroppedLinks {
			span.AddEvent(DroppedLinkEvent, trace.WithAttributes(AppKey.String(d.App), ReasonKey.String(d.Reason)))
		}
	}
	span.End()
	op := metricOp(c.Op)
	for _, d := range e.DroppedLinks {
		app := appAttr(d.App)
		o.droppedLinks.Add(ctx, 1, o.attrs(setKey{kind: kindDropped, op: op, errorType: app},
			func() []attribute.KeyValue { return []attribute.KeyValue{OperationKey.String(op), AppKey.String(app)} }).add...)
	}
	o.calls.Add(ctx, 1, o.attrs(setKey{kind: kindCall, op: op, outcome: e.Outcome, errorType: e.ErrorType},
		func() []attribute.KeyValue {
			kv := []attribute.KeyValue{OperationKey.String(op), OutcomeKey.String(string(e.Outcome))}
			if e.ErrorType != "" {
				kv = append(kv, semconv.ErrorTypeKey.String(e.ErrorType))
			}
			return kv
		}).add...)
	o.callDuration.Record(ctx, e.Duration.Seconds(), o.attrs(setKey{kind: kindDuration, op: op, outcome: e.Outcome},
		func() []attribute.KeyValue {
			return []attribute.KeyValue{OperationKey.String(op), OutcomeKey.String(string(e.Outcome))}
		}).rec...)
	if e.Outcome == upicollect.OutcomeUnknown {
		o.outcomeUnknown.Add(ctx, 1, o.attrs(setKey{kind: kindUnknown, op: op},
			func() []attribute.KeyValue { return []attribute.KeyValue{OperationKey.String(op)} }).add...)
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

// appAttr keeps the dropped links metric's cardinality bounded: an app
// the service is not known to name is "other".
func appAttr(app string) string {
	if apps[app] {
		return app
	}
	return OtherOperation
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
