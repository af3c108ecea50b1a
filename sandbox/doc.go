// Package sandbox is a stateful fake of the Payment Collection Service,
// served over real HTTP in the manner of net/http/httptest.
//
// Merchants use it for integration tests; `upicollect sandbox` serves it
// from the command line and the quickstart example runs on it by default.
// By default it accepts what the live service accepts and answers as the
// service's interface document shows; variants switch on the other answer
// shapes the live service is known to send.
//
//	s := sandbox.Start(t)                      // 127.0.0.1, free port, closed at cleanup
//	c := s.Client()                            // SDK client wired to s
//	intent, _ := c.CreatePaymentIntent(ctx, p) // PENDING order
//	utr, _ := s.Pay(intent.OrderID)            // PENDING -> SUCCESS
//
// Service is the fake itself, an http.Handler holding one merchant
// (Credentials) and its orders in memory; Server serves a Service on
// loopback and reaches its methods directly. Both are safe for concurrent
// use.
//
// # API
//
// The four operations of the interface document and the vendor's hosted
// checkout, createOrderRequest, are POST {URL}/v1/payments/{operation}, with HTTP
// Basic credentials (public key : secret key) and the merchant's mid in the
// body. Bodies may be application/x-www-form-urlencoded (the document),
// application/json (what the vendor's PHP, WooCommerce and WHMCS clients
// send, with any charset parameter and escaped slashes), or
// multipart/form-data; HTTP/1.0 works too. A field given twice is refused.
// Fields an operation does not accept (woo_order_id, api_key, …) are
// ignored, as live ignores them, and a JSON null counts as absent; with
// Strict (or `upicollect sandbox --strict`) both are refused with 400.
// Answers are JSON with keys in the document's order. HTTP statuses:
//
//	200 success: {"status":true,"statusCode":200,"msg":…,"data":{…}}
//	200 status check of an unknown or unpaid order:
//	    {"status":false,"statusCode":200,"txnStatus":"PENDING","msg":"Transaction not found"}
//	200 status check of a FAIL or REJECT order:
//	    {"status":false,"statusCode":200,"txnStatus":"FAIL","msg":"Transaction failed","data":{"order_id":…,"amount":…}}
//	    ("REJECT", "Transaction rejected" likewise)
//	400 missing or invalid field, body unreadable (and, under Strict, an
//	    unknown field or a null): {"status":false,"statusCode":400,"msg":"<field> …"}
//	401 Authorization header missing: {"status":false,"message":"Authorization header is required"}
//	401 wrong or malformed Basic credentials: {…,"statusCode":401,"msg":"Invalid credentials"}
//	401 mid not this merchant's: {…,"statusCode":401,"msg":"Invalid mid"}
//	404 unknown operation under /v1/payments/
//	405 a method other than POST (Allow: POST)
//	409 order_id already used by another order: {…,"statusCode":409,"msg":"Order ID already exists"}
//	413 body over 1 MiB
//	415 a Content-Type other than the three above
//	429 beyond the quota of WithRateLimit, with Retry-After: {…,"statusCode":429,"msg":"Too many requests; retry later"}
//
// Checks run in this order: the operation and method, the quota (calls with
// the merchant's credentials only), scripted faults, Authorization, body,
// mid, then the fields in the document's table order; the first problem is
// answered.
//
// Field rules: amount is rupees from 1 to 100000, as a number or a string
// ("499", "123.00", 123.0), read exactly, digits and an optional decimal
// point only (no sign, exponent or grouping); a fraction of a rupee ("99.50") is
// refused unless the fractional-amounts variant is on. order_id (optional
// on intents, requests and order requests) is 1 to 100 characters without
// spaces or control characters, unique across all orders; redirect_url
// (intents and order requests) is an absolute http or https URL; vpa
// (requests) is <handle>@<bank_handle>; note and customer_name are not
// blank; customer_email is a plain address; customer_mobile is exactly 10
// digits, except on createOrderRequest, which takes the number as a
// shopper typed it into the plugins' checkout forms ("+91 98765 43210",
// "098765-43210", "+91.9876543210": spaces, hyphens, dots and brackets
// apart, 10 digits after an optional +91, 91 or 0) and keeps it so.
//
// Without an order_id the service makes one as live does: "utz_" and 13
// lower-case hex digits.
//
// createPaymentIntent data: intent (upi://pay?pa=…&pn=…&am=499.00&tr=…&tn=…&cu=INR),
// the per-app links phonepe (phonepe://pay?…), paytm (paytmmp://pay?…),
// gpay (tez://upi/pay?…) and cred (credpay://upi/pay?…) with the same
// query, dynamicQR (an absolute link to the QR PNG below), expiry (creation
// plus the intent lifetime, 5 minutes unless WithIntentTTL, as
// "2006-01-02 15:04:05" in India time, UTC+05:30), amount as a string
// ("499"), orderId and merchantName. createPaymentRequest data: orderId and
// payment_url (the hosted page). createPaymentLink data: payment_link (the
// hosted page). Absolute links use the request's scheme and Host, or
// WithPublicURL.
//
// checkPaymentStatus of a SUCCESS order:
//
//	{"status":true,"statusCode":200,"txnStatus":"SUCCESS","msg":"Transaction is successful",
//	 "data":{"amount":499,"UTR":"<12 digits>","order_id":"…"}}
//
// with amount a JSON number in rupees (499, or 1.08 after SettleWith with
// Settlement{PaidPaise: 108}), never through a float.
//
// # Hosted checkout
//
// createOrderRequest takes the fields of createPaymentIntent and answers,
// as the vendor documents,
//
//	{"status":true,"statusCode":200,"msg":"Order request created successfully",
//	 "data":{"orderId":"utz_…","payment_url":"{URL}/sandbox/pay/utz_…"}}
//
// At payment_url the payer chooses a UPI app (PhonePe, Paytm, Google Pay,
// CRED: links in each app's own scheme) or scans the QR code, then pays,
// fails or rejects; the page then sends the payer to redirect_url exactly
// as given, where the shop reads back its own reference, and the merchant
// confirms with checkPaymentStatus. The checkout page has no expiry. The
// bodies the vendor's PHP SDK, WooCommerce plugin and WHMCS module send
// (JSON with escaped slashes, "123.00", a utz_ order id, woo_order_id, the
// phone as typed) get these answers.
//
// # Orders and sandbox time
//
// Orders start PENDING, and every change of state goes one way through
// the sandbox, with two faces. The payer's choice at the checkout
// (SettleWith(id, Settlement{…}), Pay(id) its shorthand for SUCCESS; over
// HTTP, the pay endpoint without after; the hosted page's buttons): a
// PENDING order moves to SUCCESS, FAIL or REJECT at once, and a final
// state stays final for the payer (ErrOrderSettled). An intent cannot be
// paid after its expiry (ErrIntentExpired) but can still fail or be
// rejected.
//
// The bank's outcome, which may come later, and may change:
// Settle(id, result, at) schedules a state change at sandbox time at (at
// not after now means now), and the pay endpoint's after does the same
// from HTTP. A FAIL or REJECT may later become
// SUCCESS, as a bank's late authorisation does (a large Indian gateway
// keeps polling for three days for it); SUCCESS is final. Until its time
// a change is listed in Order.Scheduled, by GET /sandbox/orders and on the
// hosted pages; from its time on, every read (the status check, Order,
// Orders, the pages) reports it, with SettledAt set to its time, not the
// time it was first read.
//
// Sandbox time is WithClock's clock. Nothing in the sandbox waits on it:
// a test that advances a ManualClock (WithClock(c.Now)) walks 72 hours of
// late outcomes in well under a second, and a process elsewhere reads the sandbox's time
// from GET /sandbox/clock to step at it. WithSeed makes ids, keys and
// UTRs reproducible.
//
// A clock given with WithMovableClock can also be moved from outside the
// process, forward only: POST /sandbox/clock with JSON {"advance":"2h"}
// (a Go duration) or {"set":"2026-03-01T10:00:00Z"} (RFC 3339, not before
// the sandbox's time) answers the new time as GET does, up to the end of
// the year 9998; a move it cannot make is refused and leaves the clock as
// it was. `upicollect sandbox` serves on an OffsetClock (real time plus
// what was advanced), so late payments can be tried by hand:
//
//	upicollect sandbox pay ORDER_ID --result FAIL
//	upicollect sandbox pay ORDER_ID --result SUCCESS --after 3h
//	upicollect sandbox advance 3h
//
// # Hosted pages, QR codes and control endpoints
//
// These need no credentials: the sandbox is a local test tool.
//
//	GET    /                              list of orders (HTML)
//	GET    /sandbox/pay/{order_id}        hosted payment page (HTML; a 404 page for an unknown order)
//	GET    /sandbox/qr/{order_id}.png     QR code (PNG) of the order's upi://pay link
//	GET    /sandbox/orders                every order, oldest first (JSON array of Order)
//	GET    /sandbox/orders/{order_id}     one order (JSON; 404 {"error":…})
//	POST   /sandbox/orders/{order_id}/pay settle: form result=SUCCESS|FAIL|REJECT (required), optional utr,
//	                                      amount (the paid amount, in rupees: "1.08") and after (Settle's
//	                                      time from now, a Go duration, "90s", "26h"; absent: the payer now)
//	GET    /sandbox/clock                 the sandbox's time: {"now":"2025-01-15T10:00:00.000000000Z"}
//	                                      (RFC 3339 with nanoseconds)
//	POST   /sandbox/clock                 move a WithMovableClock forward: JSON {"advance":"2h"} or
//	                                      {"set":"2026-03-01T10:00:00Z"}; answers the new time as GET;
//	                                      400 for a bad body or an advance that is negative or no Go
//	                                      duration, 409 for a set before the sandbox's time, a move past
//	                                      the end of 9998 or a clock that cannot be moved; the clock then
//	                                      stays as it was
//	GET    /sandbox/stats                 server-side counts (JSON Stats): API requests per operation,
//	                                      API answers per HTTP status, the quota's 429s, connections
//	DELETE /sandbox/stats                 set the counts to zero; answers 204
//	GET    /sandbox/variants              every variant with its state (JSON array of Variant)
//	POST   /sandbox/variants              JSON {"enable":[names…],"disable":[names…]}; answers the new list
//	POST   /sandbox/faults                JSON fault (below); answers 201 {"queued":n}
//	DELETE /sandbox/faults                drop every queued fault; answers 204
//
// Another method on these paths gets net/http.ServeMux's own 405 with
// Allow; a path with none of them, its 404.
//
// The pay endpoint answers 200 with the order as JSON (202 when after
// scheduled the change); 400 for a missing or bad result, utr, amount or
// after, 404 for an unknown order, 409 for a settled one (or a scheduled
// change its states do not allow), 410 for an expired intent, each with
// {"error":"…"}. With return=page
// in the form (what the page's Pay, Fail and Reject buttons send) it
// answers 303: for an intent or order request to its redirect_url exactly as the merchant
// gave it (nothing is added, as live adds nothing: put your own reference
// in it), for other orders back to the hosted page.
//
// Because these endpoints have no credentials, they defend the developer's
// machine: the order list and every /sandbox/orders, /sandbox/clock,
// /sandbox/stats, /sandbox/variants and /sandbox/faults call answer 421
// unless the Host header names a loopback address, localhost, the address
// the server listens on, or the host of WithPublicURL (so a web page cannot read them through DNS rebinding); and
// the POST and DELETE calls answer 403 to a browser's cross-site request
// (Sec-Fetch-Site other than same-origin or none, or an Origin other than
// the sandbox's own). Requests without those headers, from curl or a
// script, pass.
//
// # Variants
//
// The live service is looser than its document. Each variant, off by
// default, makes the sandbox answer in one of the shapes live is known to
// send. Switch them with WithVariant, with
// `upicollect sandbox --variant NAME` (repeatable) or over HTTP with
// POST /sandbox/variants:
//
//	status-in-data      status checks carry the state in data.status (with order_id,
//	                    amount, vpa, transaction_id), no top-level txnStatus
//	status-bare         a paid order answers status:true with data, no state anywhere;
//	                    FAIL/REJECT answer status:false and a msg (excludes status-in-data)
//	not-found-404       unknown and unpaid orders answer
//	                    {"status":false,"statusCode":404,"msg":"Transaction not found"} with HTTP 404
//	string-status-code  statusCode is a string ("200") in every envelope that has one
//	string-amounts      amounts are strings with two decimals ("123.00") in intent and status answers
//	qr-base64           dynamicQR is data:image/png;base64,… of a PNG QR code of the intent link
//	failed-status-true  FAIL and REJECT status checks answer status:true
//	failures-http-200   every API failure is answered with HTTP 200; the body's statusCode is unchanged
//	request-iso-expiry  payment-request answers add order_id and an ISO-8601 expiry
//	                    (creation plus the intent lifetime, India time)
//	fractional-amounts  creates accept amounts to the paisa ("99.50")
//
// The missing-Authorization answer keeps the document's shape throughout.
//
// # Faults
//
// A fault scripts misbehaviour for the next API calls, per operation,
// oldest first: added latency, a canned status and body (before or after
// the request took effect), a connection reset (RST) before or after
// processing, a body dripped slowly, and a huge body. A fault is taken when
// the call is routed, before authentication; pages and control endpoints
// are never faulted. A delay that the client abandons, or that Close cuts
// short, ends with the connection dropped, never an empty answer.
// WithLatency delays every API answer.
//
// Queue one with InjectFault or WithFault (Go) or with POST
// /sandbox/faults. A Fault's one encoding is a JSON object
// (Fault.UnmarshalJSON) with these keys, all optional; `upicollect
// sandbox --fault SPEC` writes the same keys as comma-separated key=value
// pairs, which ParseFault reads into that JSON form:
//
//	op         operation it applies to ("createPaymentIntent", …); absent: any
//	times      matching calls it applies to: 0 or absent once, -1 until cleared
//	latency    delay before answering, a duration such as "250ms" or "2s"
//	status     HTTP status to answer instead of the real answer
//	body       body answered with status (a string)
//	header     headers added to the answer: {"Retry-After":"2"}
//	reset      "before" or "after" processing: close the connection with a reset
//	slow_body  process normally, drip the answer a byte at a time over this duration
//	huge_body  answer status (default 200) with a JSON-looking body of this many bytes
//	processed  true: with status or huge_body, take effect first (the order exists)
//
// For example, from a shell:
//
//	curl -d '{"op":"createPaymentIntent","status":500,"processed":true}' localhost:8787/sandbox/faults
//	upicollect sandbox --fault op=checkPaymentStatus,status=429,header=Retry-After:2,times=3
//
// # Quota and counts
//
// WithRateLimit (`upicollect sandbox --rate-limit N`) gives the merchant a
// quota like a live service's: beyond N API requests a second it answers
//
//	429 {"status":false,"statusCode":429,"msg":"Too many requests; retry later"}
//
// with Retry-After in whole seconds. The quota is a token bucket
// (golang.org/x/time/rate) that judges each request at the sandbox time it
// arrived, so a hand-moved clock gives exact answers; it forgives 50 ms of
// network jitter, so that a client holding the same rate gets no 429 and a
// benchmark may assert none. Only calls with the merchant's credentials
// count. The quota is judged before scripted faults and latency: a call
// it refuses takes no fault. Stats (GET /sandbox/stats) gives the server's own counts, for
// tests and benchmarks that must know what reached the service.
//
// # Leaving it running
//
// A long-running server stays small and closes idle and slow connections:
// the request log (Requests) is capped at 4 MiB and optionally by count
// (WithRequestLog), keeps the body fields only of
// API calls with valid credentials, at most 4 KiB of them per call, and
// redacts the merchant's credentials as the SDK's own logs do, by one list
// of forms: the Authorization header value, the Basic credential pair in
// any base64 and the secret key, each also percent-encoded or
// JSON-escaped, wherever they stand as a whole token (so a short or
// common-word secret does not blot out other text). Reading a request's
// header, reading a whole request and an idle keep-alive connection are
// bounded (WithTimeouts; DefaultTimeouts). The length of Orders proves
// whether a retried create made a second order; Reset empties the faults,
// the request log and the counts between a test's phases.
//
// # Mounting
//
// A Service (NewService, or Server.Service) serves the same state from
// another server; mount it at the root of a host (the paths above are
// absolute). Links in answers follow the request's Host, or WithPublicURL.
package sandbox
