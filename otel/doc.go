// Package upicollectotel reports what an upicollect client does to
// OpenTelemetry: a span per call with a child span per attempt, and
// metrics for calls, attempts, retries, outcome-unknown results and the
// time payments take to reach a final state.
//
//	client, err := upicollect.NewClient(creds,
//		upicollect.WithBaseURL(baseURL),
//		upicollect.WithObserver(upicollectotel.NewObserver(tracerProvider, meterProvider)))
//
// # Spans
//
// Each call is an internal span named by its operation
// ("createPaymentIntent", "checkPaymentStatus", ...) with
// upicollect.operation, upicollect.order_id (when the call has one),
// server.address and server.port; at its end upicollect.outcome,
// upicollect.attempts, http.response.status_code of the last answer and,
// on failure, error.type and an Error status. Each attempt is a client
// span below it, named "POST /v1/payments/{operation}", with
// http.request.method, http.request.resend_count (the attempt number less
// one, from the HTTP semantic conventions), server.address, server.port,
// http.response.status_code, error.type and upicollect.rate_limit.wait (the
// seconds the rate limiter held the attempt back). An attempt that is
// retried carries an "upicollect.retry" event with the reason
// (upicollect.retry.reason, such as "rate limited (429)") and the delay
// before the next attempt (upicollect.retry.delay, in seconds). The
// attempt's context is the HTTP request's, so an instrumented transport's
// spans nest below it.
//
// # Metrics
//
//	upicollect.client.calls              counter   {call}     upicollect.operation, upicollect.outcome, error.type
//	upicollect.client.attempts           counter   {attempt}  upicollect.operation, http.response.status_code, error.type
//	upicollect.client.retries            counter   {retry}    upicollect.operation, error.type (what was retried)
//	upicollect.client.outcome_unknown    counter   {call}     upicollect.operation
//	upicollect.client.call.duration      histogram s          upicollect.operation, upicollect.outcome
//	upicollect.payment.time_to_final_state histogram s        upicollect.source, upicollect.txn_status, upicollect.result
//
// Metric attributes are of low cardinality: never an order id, and retry
// reasons (which quote transport errors) only on spans.
//
// Nothing recorded holds a credential or customer data: the client gives
// its Observer only the operation, the order id, statuses, counts,
// durations and its own words for what happened.
package upicollectotel
