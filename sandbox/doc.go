// Package sandbox is a faithful, stateful fake of the Payment Collection
// Service, served over real HTTP, in the manner of net/http/httptest.
//
// Merchants use it for integration tests; `upicollect sandbox` serves it
// from the command line and the quickstart example runs on it by default.
// It is written from the service's interface document, not from the SDK's
// decoding code, so that it catches the SDK's mistakes instead of sharing
// them. It is strict where the document allows it: a field an operation
// does not accept is refused.
//
//	s := sandbox.Start(t)                      // 127.0.0.1, free port, closed at cleanup
//	c := s.Client()                            // SDK client wired to s
//	intent, _ := c.CreatePaymentIntent(ctx, p) // PENDING order
//	utr, _ := s.Pay(intent.OrderID)            // PENDING -> SUCCESS
//
// One server holds one merchant (Credentials), its orders in memory, and
// is safe for concurrent use.
//
// # API
//
// The four operations are POST {URL}/v1/payments/{operation}, with HTTP
// Basic credentials (public key : secret key) and the merchant's mid in the
// body. Bodies may be application/x-www-form-urlencoded (the document),
// application/json with string or number values (the vendor's PHP
// clients), or multipart/form-data. A field given twice is refused.
// Answers are JSON with keys in the document's order. HTTP statuses:
//
//	200 success: {"status":true,"statusCode":200,"msg":…,"data":{…}}
//	200 status check of an unknown or unpaid order:
//	    {"status":false,"statusCode":200,"txnStatus":"PENDING","msg":"Transaction not found"}
//	200 status check of a FAIL or REJECT order:
//	    {"status":false,"statusCode":200,"txnStatus":"FAIL","msg":"Transaction failed","data":{"order_id":…,"amount":…}}
//	    ("REJECT", "Transaction rejected" likewise)
//	400 missing or invalid field, unknown field, mid missing, body unreadable:
//	    {"status":false,"statusCode":400,"msg":"<field> …"} naming the field
//	401 Authorization header missing: {"status":false,"message":"Authorization header is required"}
//	401 wrong or malformed Basic credentials: {…,"statusCode":401,"msg":"Invalid credentials"}
//	401 mid not this merchant's: {…,"statusCode":401,"msg":"Invalid mid"}
//	404 unknown operation under /v1/payments/
//	405 a method other than POST (Allow: POST)
//	409 order_id already used by an intent or request: {…,"statusCode":409,"msg":"Order ID already exists"}
//	413 body over 1 MiB
//	415 a Content-Type other than the three above
//	503 any request reaching Handler() after Close (plain text)
//
// Checks run in this order: Authorization, body, mid, then the fields
// (unknown fields first, then the document's table order); the first
// problem is answered.
//
// Field rules: amount is a whole number of rupees, 1 to 100000, written
// without sign, decimals or leading zeros; order_id (optional on intents
// and requests) is 1 to 100 characters without spaces or control
// characters, unique across intents and requests; redirect_url (intents) is
// an absolute http or https URL; vpa (requests) is <handle>@<bank_handle>;
// note and customer_name are not blank; customer_email is a plain address;
// customer_mobile is exactly 10 digits on every operation; a payment link
// accepts no order_id.
//
// Without an order_id the service makes one: "ORD", the time in India
// (yyyyMMddHHmmss) and eight random upper-case letters or digits.
//
// createPaymentIntent data: intent (upi://pay?pa=…&pn=…&am=499.00&tr=…&tn=…&cu=INR),
// the per-app links phonepe (phonepe://pay?…), paytm (paytmmp://pay?…) and
// gpay (tez://upi/pay?…) with the same query, dynamicQR (an absolute link to
// the QR PNG below), expiry (creation + 5 minutes, "2006-01-02 15:04:05" in
// India time, UTC+05:30), amount as a string ("499") and orderId.
// createPaymentRequest data: orderId and payment_url (the hosted page).
// createPaymentLink data: payment_link (the hosted page). Absolute links use
// the request's scheme and Host, or WithPublicURL.
//
// checkPaymentStatus of a SUCCESS order:
//
//	{"status":true,"statusCode":200,"txnStatus":"SUCCESS","msg":"Transaction is successful",
//	 "data":{"amount":499,"UTR":"<12 digits>","order_id":"…"}}
//
// with amount a JSON number in rupees (499, or 1.08 after SettleWith with
// PaidPaise 108), built from int64 paise, never through a float.
//
// # Orders
//
// Orders start PENDING and move once to SUCCESS, FAIL or REJECT; terminal
// states are final (ErrOrderSettled). An intent cannot be paid after its
// expiry (ErrIntentExpired) but can still fail or be rejected. Settle them
// from Go with Pay and Settle, over HTTP with the control endpoints, or by
// hand on the hosted page. WithClock and WithSeed make times, ids, keys and
// UTRs reproducible.
//
// # Hosted pages, QR codes and control endpoints
//
// These need no authentication: the sandbox is a local test tool.
//
//	GET  /                              list of orders (HTML)
//	GET  /sandbox/pay/{order_id}        hosted payment page (HTML; 404 page for an unknown order)
//	GET  /sandbox/qr/{order_id}.png     QR code (PNG) of the order's upi://pay link
//	GET  /sandbox/orders                every order, oldest first (JSON array of Order)
//	GET  /sandbox/orders/{order_id}     one order (JSON; 404 {"error":…})
//	POST /sandbox/orders/{order_id}/pay settle: form result=SUCCESS|FAIL|REJECT (default SUCCESS), optional utr
//	                                    and amount (paid rupees, "1.08", reported by the status check)
//
// The pay endpoint answers 200 with the order as JSON; 400 for a bad result,
// utr or amount, 404 for an unknown order, 409 for a settled one, 410 for an
// expired intent, each with {"error":"…"}. With return=page in the form
// (what the page's Pay, Fail and Reject buttons send) it answers 303: for
// an intent to its redirect_url with order_id=<id> added to the query, for
// other orders back to the hosted page, which then shows the result.
//
// # Real-world variants
//
// The live service is looser than its document. Variants, set with
// WithVariants or at run time with SetVariants, make the sandbox answer in
// those shapes: the status answer's shape (StatusShapeSpec,
// StatusShapeDataStatus, StatusShapeBare), a 404 not-found answer
// (NotFound404), a string statusCode (StringStatusCode), string amounts in
// status answers (StringAmounts) and the extra intent fields (IntentExtras).
// The missing-Authorization answer keeps the document's shape throughout.
//
// # Faults
//
// InjectFault scripts misbehaviour for the next API calls, per operation,
// oldest first: added latency, a canned status and body (before or after
// the request took effect), a connection reset (RST) before or after
// processing, a body dripped slowly, and a huge body. A fault is taken when
// the call is routed, before authentication; hosted pages and control
// endpoints are never faulted. A delay that the client abandons, or that
// Close cuts short, ends with the connection dropped, never an empty answer.
// WithLatency delays every API answer.
//
// OrderCount then proves whether a retried create made a second order.
// Requests lists every request received (API, pages and control alike),
// with the Authorization header and any value holding the secret key
// redacted, and the status answered.
//
// # Mounting
//
// Handler serves the same state from another server; mount it at the root
// of a host (the paths above are absolute). Links in answers follow the
// request's Host, or WithPublicURL.
package sandbox
