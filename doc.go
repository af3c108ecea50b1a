// Package upicollect is the Go SDK for the Payment Collection Service: it
// collects UPI payments through the hosted checkout (order requests),
// payment intents (links and QR codes), payment requests sent to a
// customer's UPI ID, and shareable payment links, and checks their status.
//
// # Client
//
// Make one Client per set of credentials and share it; it is immutable and
// safe for concurrent use:
//
//	client, err := upicollect.NewClient(creds,
//		upicollect.WithBaseURL("https://api.example.com"))
//
// Every call is a form-encoded POST to {base}/v1/payments/<operation> with
// HTTP Basic credentials (public key and secret key) and the merchant id in
// the body. Amounts are Money, in paise; the service takes whole rupees.
//
// The client never follows a redirect, whichever http.Client it sends
// through: credentials and bodies go to the base URL's host and port only.
// Its own transport opens at most WithMaxConns connections (DefaultMaxConns
// by default; calls beyond wait for one, within their context) and reads at
// most 64 KiB of response headers. Call CloseIdleConnections when done with
// a client. A Client must come from NewClient: the methods of a zero or nil
// Client panic saying so.
//
// # Validation
//
// Parameters are checked before any I/O. Every problem is reported at once in
// a *ValidationError whose Fields (each a FieldError) name the wire field
// ("amount", "vpa", "customer_mobile", ...) and the problem;
// errors.Is(err, ErrValidation) is true for it.
// Text fields are capped (MaxOrderIDLen, MaxNoteLen, MaxCustomerNameLen,
// MaxEmailLen, MaxVPALen, MaxRedirectURLLen) at lengths no real value
// reaches, and order ids must be valid UTF-8 without invisible characters.
//
// # Errors
//
// Every error after validation is an *APIError naming the operation and the
// order, matched with errors.Is against
// ErrUnauthorized, ErrDuplicateOrderID, ErrInvalidRequest, ErrNotFound,
// ErrRateLimited, ErrServer, ErrUnexpectedResponse and ErrOutcomeUnknown. The
// body decides; the HTTP status fills in where the body is silent. Network
// and context errors are its cause and stay matchable
// (errors.Is(err, context.DeadlineExceeded)). The service's message is kept
// without any echo of the credentials, cut at 512 bytes, and what it holds
// that is not safe to show (controls, bidi overrides and other format
// characters: SafeToShow) is escaped in Error.
// An unknown order is not an error: CheckPaymentStatus returns TxnPending
// with PaymentStatus.NotFound set; WithUnknownOrderTimeout makes a wait give
// up on one with ErrNotFound.
// Every result and every *APIError carries the raw *Response.
//
// # Retries
//
// Each call makes up to RetryPolicy.MaxAttempts attempts (3 by default) with
// full-jitter exponential backoff, honours Retry-After up to a cap, and
// draws on a client-wide retry budget so that an outage does not multiply
// the load. What is retried depends on what repeating the request may do:
//
//   - CheckPaymentStatus is read-only: retried on connection errors,
//     timeouts, 429, 500, 502, 503 and 504.
//   - CreateOrderRequest, CreatePaymentIntent and CreatePaymentRequest
//     always carry an order id: the caller's OrderID, or one the client sets
//     from NewOrderID before the first attempt. They are retried on
//     connection errors, timeouts, 429, 500, 502, 503 and 504, because the
//     service refuses a second order with the same id. A 409 on any
//     attempt after the first means an earlier attempt may have created the
//     order: the call returns an error matching ErrOutcomeUnknown that
//     carries the order id, never ErrDuplicateOrderID. When retries end on
//     a timeout, a reset, a 429, 500, 502, 503 or 504 (a proxy may have
//     forwarded the create before it answered), the error matches
//     ErrOutcomeUnknown too. Another 5xx (501, 505, ...) is not retried and
//     is ErrServer only: no repeat could change it.
//   - CreatePaymentLink takes no order id, and Do cannot know whether its
//     endpoint is safe to repeat, so they are sent once: only a request
//     that provably never reached the service (DNS or connect failure) is
//     sent again. A timeout, a reset, a 429, 500, 502, 503 or 504 after the
//     request went out returns ErrOutcomeUnknown; a refusal (a 4xx, or
//     another 5xx such as 501) does not.
//   - A create answered with something that is not the service's envelope
//     (a redirect, an HTML page, a truncated body) is not retried and
//     returns ErrOutcomeUnknown: the request reached the service.
//
// Each operation's doc comment lists its faults: the attempts it makes with
// the default RetryPolicy and the sentinels its error then matches (the
// repository's guide docs/reliability.md tables them side by side).
//
// When retries stop at RetryPolicy.MaxAttempts, at an empty retry budget or
// at a Retry-After beyond RetryPolicy.MaxRetryAfter, APIError.Reason says
// so (ReasonAttemptsExhausted, ReasonBudgetExhausted).
//
// Give every create an id from NewOrderID and store it with the checkout
// before calling: after ErrOutcomeUnknown, CheckPaymentStatus (or a retried
// create with the same id) tells what happened. Without one, the id the
// client set is in the result's OrderID and in APIError.OrderID.
//
// # Context
//
// The context is the first argument of every call and bounds all of it:
// attempts, backoff, Retry-After waits, rate-limit waits and polling. Each
// attempt also has its own timeout (WithTimeout, 30s by default). A create
// whose context ends after the request went out gives no guarantee either
// way: the error matches both the context's error and ErrOutcomeUnknown.
// WaitForPayment ends with its context or after DefaultMaxWait, whichever
// comes first (WithMaxWait changes the latter); its error is then an
// *APIError matching the context's error and carrying the last poll's
// failure, if the last poll failed.
//
// # A pay page
//
// An intent is paid in a UPI app: a payer on a laptop scans its QR code
// with a phone, a payer on a phone taps a button that opens an app. A
// laptop's browser cannot open a upi: link, so a page never sends it
// there. Package github.com/upicollect/upicollect-go/paypage gives a page
// what it needs, typed for html/template: the app links in a stable order
// with the apps' names (paypage.Links) and the QR code as a PNG and a
// data: URL from whichever form DynamicQR took (paypage.QR).
// examples/checkout is the whole pattern, with the return page that
// confirms the payment through the ledger (reconcile.Sweeper.Confirm).
//
// # Many processes and telemetry
//
// WithRateLimiter makes every attempt wait on a RateLimiter of your choice,
// such as one kept in Redis and shared by every process on the same
// merchant id (module github.com/upicollect/upicollect-go/redisrate).
// WithObserver reports each call and attempt to an Observer (module
// github.com/upicollect/upicollect-go/otel is one for OpenTelemetry); the
// call's context reaches every attempt. The client's log is an Observer
// too, the one WithLogger installs. Without a limiter the client makes no
// limiter call; without an Observer or a logger it calls a no-op observer,
// which allocates nothing.
//
// # Secrets
//
// The secret key and the Authorization header never appear in errors, logs,
// any fmt verb, JSON or text encoding of this package's values (Credentials,
// a struct embedding them, a Client or a copy of one); WithLogger records
// mask the customer's e-mail, mobile and VPA.
package upicollect
