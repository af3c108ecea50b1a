// Package webhook delivers a Sweeper's events as signed webhooks, for
// shops whose backend is not written in Go. The Payment Collection Service
// has no webhooks of its own: Sender is a reconcile.Handler that POSTs each
// event to a URL, and any language can receive it with an HMAC-SHA256 check
// (Receive is the receiver in Go). This documentation is the whole
// contract: the signature, the JSON and the delivery rules below are what
// a receiver in any language implements, and testdata/webhook_vectors.json
// in this package's directory holds test vectors to check one against
// (the repository's guide docs/webhooks.md has receivers in PHP and Python
// that pass them).
//
// # Sending
//
// A sweeper whose Handler is a Sender delivers every event it finds:
//
//	send, err := webhook.Sender("https://shop.example.com/upicollect-webhook", secret)
//	sweeper, err := reconcile.New(client, store, send)
//	err = sweeper.Run(ctx)
//
// The endpoint is https, or http on a loopback address only. The secret is
// shared with the shop alone (32 random bytes: openssl rand -hex 32); to
// replace it, give the new one and WithPreviousSecret(old) until every
// receiver holds the new one. The command line does the same without Go:
// upicollect reconcile run --deliver https://URL, its secret from
// UPICOLLECT_WEBHOOK_SECRET.
//
// # Receiving
//
// In Go, Receive checks the signature and age, reads at most 64 KiB, and
// decodes the delivery; every error it returns (ErrNoSignature,
// ErrMalformedSignature, ErrBadSignature, ErrTooOld, ErrTooLarge,
// ErrBadDelivery) deserves a 400:
//
//	d, err := webhook.Receive(r, secret, webhook.DefaultTolerance)
//	if err != nil {
//		http.Error(w, "bad delivery", http.StatusBadRequest)
//		return
//	}
//	// act once per d.ID (a unique key in the shop's database), then answer 2xx
//
// In another language, a receiver checks the signature as the Signature
// section below says, refuses a body over 64 KiB, decodes the JSON, acts
// once per id, and answers 2xx once what it did is committed.
//
// # Delivery
//
// At least once: a 2xx answer means handled; any other answer (a redirect
// is never followed), no answer within the timeout (DefaultTimeout, or
// WithTimeout) or no connection leaves the event undelivered, and the
// sweeper delivers it again at its next step, after a backoff. Sender
// reads at most 64 KiB of an answer's headers (its own client's limit, as
// the SDK's; a client given with WithHTTPClient is used as given) and
// 4 KiB of its body, and puts the secret in no error and no log.
//
// Every delivery of one event has the same id, so a receiver records the
// ids it has acted on and answers 2xx to a repeat without acting again. A
// redelivery is the first delivery's body byte for byte, signed again at
// its own time (only the header's t and v1 change), though the sweeper's
// next check, which makes it, finds the event at a later time: the Sender
// remembers the body of each event it has not delivered yet (the last
// 10,000 of them), in memory. A redelivery by another process, or after a
// restart, is the same event (id, result and amounts) as that process's
// check finds it, its at included.
//
// Deliveries of different events come in no guaranteed order, and a
// delivery the sender gave up on (its timeout) may still be handled by a
// slow receiver after a later one: act on each by its result, not by what
// came before. Such a delivery counts as failed, so the event it carried
// is delivered again when the next check finds it again; when the next
// check finds more (a payment after the failure), that is what comes, and
// a receiver can then see a failed and a paid for one order, rather than a
// failed and a late_paid.
//
// # Signature
//
// The SignatureHeader is
//
//	Upicollect-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">
//
// with one v1 value per secret the sender signs with (two while a secret
// is replaced: WithPreviousSecret). Sender writes one such field, in lower
// case hex. A receiver follows these steps; Receive does, and so do the
// receivers in PHP and Python of docs/webhooks.md, and the test vectors
// hold a case of each:
//
//  1. The header is every field named Upicollect-Signature, the name
//     compared without case and with "_" the same as "-", the values
//     joined with ",". A CGI gateway (PHP's $_SERVER, WSGI's environ) maps
//     Upicollect_Signature and Upicollect-Signature to one variable and
//     joins repeated fields, so no receiver could tell them apart: two
//     signatures, in two fields of either spelling, are one header with
//     two t items, and refused. (A server that drops fields whose name
//     has "_", as nginx and gunicorn do by default, leaves fewer fields:
//     Sender never writes that spelling.)
//  2. Refuse a header over 1024 bytes. Split it on ","; trim spaces and
//     tabs around each item and skip an empty one, as in any HTTP list (a
//     proxy that joins fields writes ", "); split each item on its first
//     "=", and refuse an item that has none. Keep t and every v1, and
//     ignore other keys (a later scheme's).
//  3. Refuse when t is missing, appears twice or is not 1 to 12 ASCII
//     digits; when no v1 is there, or one is not 64 hex digits; when the
//     secret is empty.
//  4. Compute the HMAC-SHA256 of t as written, a full stop and the raw
//     body (before any JSON decoding), keyed with the secret, and compare
//     it in constant time with each v1, hex digits in either case: "AB"
//     and "ab" are the same byte, so an upper-case v1 is the same MAC (a
//     library such as .NET's Convert.ToHexString writes upper case).
//     Accept when one v1 matches: another that does not (a second secret's,
//     while one is replaced) changes nothing.
//  5. Then refuse when t is more than a tolerance (DefaultTolerance, five
//     minutes) away from the receiver's clock, either way, which makes a
//     recorded delivery useless to replay later.
//
// # JSON
//
// The body is one JSON object (Delivery's MarshalJSON and UnmarshalJSON),
// every field always present:
//
//	id              string  "evt_" and 32 hex digits, the same for every
//	                        delivery of one event (DeliveryID)
//	order_id        string  the order id given to the service
//	result          string  paid, failed, late_paid, expired or mismatch
//	                        (reconcile.Result)
//	expected_paise  number  the tracked amount, in paise (49900)
//	expected        string  the same in rupees, two decimals ("499.00")
//	paid_paise      number  what the status check reported paid, in paise:
//	                        its amount for paid, late_paid and mismatch,
//	                        0 for the others
//	paid            string  the same in rupees ("0.00")
//	utr             string  the bank's reference; "" when none was given
//	reason          string  why an order expired; "" for other results
//	at              string  when the sweeper found the event (a
//	                        redelivery keeps the first delivery's), RFC
//	                        3339 in UTC ("2026-03-01T10:02:10Z";
//	                        fractional seconds when it has them)
//
// Amounts are paise (integers), the rupee strings are for reading; a
// decoder that finds both checks that they agree. Later versions may add
// fields: a receiver ignores those it does not know (UnmarshalJSON does).
//
// What each result asks of the shop: paid, fulfil the order; failed, tell
// the payer (a late_paid may follow); expired, release what was held (a
// late_paid may follow); late_paid, fulfil it, or return the money where
// the service makes refunds (its API has none); mismatch, another amount
// was paid: hold it for a person. An order gets at most two events: one of
// paid, failed, expired or mismatch, and after failed or expired possibly
// late_paid or mismatch.
package webhook
