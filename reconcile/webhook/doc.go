// Package webhook delivers a Sweeper's events as signed webhooks, for
// shops whose backend is not written in Go. The Payment Collection Service
// has no webhooks of its own: Sender is a reconcile.Handler that POSTs each
// event to a URL, and any language can receive it with an HMAC-SHA256 check
// (Receive is the receiver in Go; the repository's README shows one in
// PHP, and testdata/webhook_vectors.json holds test vectors for others).
//
// # Delivery
//
// At least once: a 2xx answer means handled; any other answer, no answer
// within the timeout or no connection leaves the event undelivered, and the
// sweeper delivers it again at its next step. Every delivery of one event
// has the same id, so a receiver records the ids it has acted on and
// answers 2xx to a repeat without acting again. Deliveries of different
// events come in no guaranteed order, and a delivery the sender gave up on
// (its timeout) may still be handled by a slow receiver after a later one:
// act on each by its result, not by what came before. Such a delivery
// counts as failed, so the event it carried is delivered again when the
// next check finds it again; when the next check finds more (a payment
// after the failure), that is what comes, and a receiver can then see a
// failed and a paid for one order, rather than a failed and a late_paid.
//
// # Signature
//
// The SignatureHeader is
//
//	Upicollect-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">
//
// with one v1 value per secret the sender signs with (two while a secret
// is replaced: WithPreviousSecret). A receiver computes the HMAC of the
// header's t as written, a full stop and the raw body, with its secret,
// compares it in constant time with each v1 value, accepts the delivery
// when one matches, and then refuses it when t is more than a tolerance
// (DefaultTolerance) away from its clock, which makes a recorded delivery
// useless to replay later.
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
//	at              string  when the sweeper found the event, RFC 3339 in
//	                        UTC ("2026-03-01T10:02:10Z"; fractional
//	                        seconds when it has them)
//
// Amounts are paise (integers), the rupee strings are for reading; a
// decoder that finds both checks that they agree. Later versions may add
// fields: a receiver ignores those it does not know (UnmarshalJSON does).
package webhook
