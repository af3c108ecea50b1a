// Package reconcile knows the final state of every order, late ones
// included, and reports each change once.
//
// The status check is the service's only confirmation, and one answer is
// not the end of an order's story: payers close the checkout before the
// redirect, intents and collect requests expire, and banks report some
// payments successful hours after they were reported failed (a late
// authorisation). A Sweeper checks each tracked order on a schedule that
// fits UPI, dense while the payer may be at the checkout and sparse up to
// the end of a late window (72 hours by default), and calls a Handler once
// per event:
//
//	Paid      SUCCESS for the expected amount: fulfil the order.
//	Failed    FAIL or REJECT: the payer may try again. The order is still
//	          checked, sparsely, for a late SUCCESS.
//	Expired   no final state within the payer's window (15 min by default).
//	          Also an order the service never knew (a create that never
//	          arrived, a wrong id): Event.Reason says so. Still checked.
//	LatePaid  SUCCESS after Failed or Expired: money arrived for an order
//	          you gave up on. Fulfil it, or refund it.
//	Mismatch  SUCCESS for another amount than the order's: neither fulfil
//	          nor ignore it; hold it for a person (refund or collect the rest).
//
// The schedule (DefaultSchedule, replaced with WithSchedule):
//
//	order's age       checked every
//	0 – 1 min         10 s
//	1 – 15 min        30 s     (end of the payer's window: Expired)
//	15 min – 1 h      15 min
//	1 h – 6 h         1 h
//	6 h – 24 h        3 h
//	24 h – 72 h       8 h      (end of the late window: no more checks)
//
// An order reported Failed before the payer's window ended is checked on
// the sparse part at once. An order never paid costs 54 checks; the mix of a
// real shop (60 % paid within 10 minutes, 15 % failed, 5 % failed then paid
// hours later, 5 % paid after expiry, 15 % never paid) about 26 on average.
//
// Exactly once: an event and the order's new state are recorded together,
// and the handler runs before that record is committed. A handler error or
// panic undoes it: the order stays due and the event comes again at the
// next step. With a database Store (the reconcile/sqlstore module), the
// handler runs inside the transaction that records the event, so writes it
// makes to that database through the transaction commit with the event, or
// not at all, and several sweepers in several processes can share the
// database: each due order is leased to one of them, and the orders of a
// sweeper that dies are taken by another when their leases expire. What a
// handler does outside that transaction (an e-mail, a call to another
// service) can happen twice if the process dies between the handler's
// return and the commit: make such effects idempotent, keyed by order id and
// Result.
package reconcile
