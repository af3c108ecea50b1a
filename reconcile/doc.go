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
//	          you gave up on. Fulfil it, or return the money where the
//	          service makes refunds (its API has no refund). Never ignore it.
//	Mismatch  SUCCESS for another amount than the order's: neither fulfil
//	          nor ignore it; hold it for a person, who collects the rest or
//	          returns the money.
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
// Consumers: a ledger delivers every event to every consumer once. A
// Sweeper delivers as WithConsumer's name ("default" without it): a shop
// whose Go handler credits orders and whose accounting side gets webhooks
// runs two consumers on one ledger, and each gets every event; sweepers
// with the same name (several processes of one target) share its
// deliveries. An event is still checked and recorded once, by whichever
// sweeper finds it, and delivered to the other consumers at their next
// step without another check (see WithConsumer, Sweeper.Consumers).
//
// Exactly once: an event and the order's new state are recorded together,
// and the handler runs before that record is committed. A handler error or
// panic undoes it: the order keeps its state and the event comes again
// after a backoff. With a database Store (the reconcile/sqlstore module), the
// handler runs inside the transaction that records the event (one
// transaction per batch of a step's events, each handler's writes under a
// savepoint of its own: a handler that fails undoes its own event only), so
// writes it makes to that database through the transaction commit with the
// event, or not at all, and several sweepers in several processes can share the
// database: each due order is leased to one of them, and the orders of a
// sweeper that dies are taken by another when their leases expire. What a
// handler does outside that transaction (an e-mail, a call to another
// service) can happen twice if the process dies between the handler's
// return and the commit: make such effects idempotent, keyed by order id and
// Result.
//
// # A shop's path
//
// Track each order before it is created at the service, confirm it on the
// payer's return page, and run a sweeper beside the shop for the payers who
// never come back; credit only in the Handler (Example wires the whole path
// against the sandbox):
//
//	sweeper, err := reconcile.New(client, store, credit)
//
//	// The checkout: track, then create at the service.
//	err = sweeper.Track(ctx, reconcile.Order{ID: orderID, Amount: amount, Created: time.Now()})
//	or, err := client.CreateOrderRequest(ctx, &upicollect.OrderRequestParams{OrderID: orderID, Amount: amount, ...})
//
//	// The return page: check now; a payment found reaches credit once.
//	st, err := sweeper.Confirm(ctx, orderID)
//
//	// Beside the shop, until shutdown.
//	err = sweeper.Run(ctx)
//
// With a database store, TrackTx tracks the order in the transaction that
// writes the merchant's own order row, so that the order is tracked if and
// only if the row commits; the order is created at the service after the
// commit (the reconcile/sqlstore module's trackTx example runs it):
//
//	tx, err := db.BeginTx(ctx, nil)
//	_, err = tx.ExecContext(ctx, `INSERT INTO orders (id, amount_paise) VALUES ($1, $2)`, orderID, amount.Paise())
//	err = sweeper.TrackTx(ctx, tx, reconcile.Order{ID: orderID, Amount: amount, Created: time.Now()})
//	err = tx.Commit()
//	or, err := client.CreateOrderRequest(ctx, ...)
//
// Track of an order already tracked with the same amount changes nothing
// (a retried checkout may track again); with another amount it is
// ErrTrackedDifferently. The memory store has no transactions: TrackTx on
// it is ErrNoTransactions, and Track before the create serves instead.
//
// # One ledger
//
// Every path that learns an outcome goes through the Store's lease and
// record: Step (the sweepers, Run), Confirm (the payer's return page, a
// script) and any other sweeper sharing the store. An order is leased to one
// of them at a time, a check's outcome is recorded only under the lease it
// was made under (a fencing token), and an event is recorded with the state
// change it follows, so each event reaches the Handler once, whoever learns
// it first. Confirm waits for a lease another sweeper holds instead of
// checking beside it. Track before the order is created at the service
// (with a database store, TrackTx in the transaction that writes the
// merchant's order row), so that no created order goes unreconciled.
//
// # Failures and time
//
// A failed check, a SUCCESS that does not name its order, and a failed
// handler are tried again after a backoff: the step interval doubled with
// every failure in a row, at most WithMaxBackoff, or the order's next
// scheduled check when that is sooner. An order in backoff is not due, so
// due orders are never crowded out by failing ones. The last check of the
// late window is made five times when it fails, then tracking ends with
// ReasonChecksFailed and a warning. The windows are judged on the time a
// Step is given, or on the store's clock when it keeps one and that is
// earlier (Store.Now), so a sweeper whose clock runs ahead expires and ends
// nothing early; Run and Confirm step on the store's clock. An order whose
// check at a time past its late window was not its last scheduled check
// gets that last check before its tracking ends. A handler's context ends
// after WithHandlerTimeout (half the lease TTL); the store holds the order
// from the start of its batch's record to its commit, whatever the lease's
// time, so a handler slower than the lease still delivers once.
//
// # An outage costs probes
//
// When checks of distinct orders fail one after another the way a failing
// service fails every order (no answer, a 5xx, a body that is not the
// service's, a 429, refused credentials), the sweeper holds every check and
// probes instead: one check at a time, 30 s apart at first, then at most
// two minutes apart, until the service answers; then every held order is
// checked in the same step. Held orders keep their due times and count no
// failure, so nothing waits out a backoff after the service's return. A
// 429 or 503 with Retry-After holds every check until then. An order whose
// own answers fail while others' succeed keeps its own backoff. Confirm
// during an outage returns the ledger's state with ErrServiceFailing and
// makes no check of its own beyond the probe.
//
// No Step or Confirm outlives its context. What a call whose context ended
// still has to do (record the checks it made, give its leases back) goes on
// in the background, bounded, and the sweeper's next call waits for it; a
// step that fails on a store's error gives its unchecked leases back at
// once. Only a process that dies leaves leases behind: the lease TTL
// (WithLeaseTTL) bounds how long their orders wait.
//
// # Transactions
//
// Only a database Store gives the handler a transaction (sqlstore.Tx(ctx) in
// the reconcile/sqlstore module; it is nil under the memory store, which has
// none). On SQLite the batch's transaction holds the database's only write
// lock while its handlers run: a write the handler makes through the
// *sql.DB itself, or through another connection to the same file, instead
// of through sqlstore.Tx(ctx), waits for that lock, which is released only
// when the batch's transaction ends, after the handler returns, so it
// blocks until SQLite's busy timeout and fails. Reads through the *sql.DB do not block in WAL mode; writes to
// another database do not block. On PostgreSQL only writes to the batch's
// rows (the ledger's own tables) from outside the transaction block.
package reconcile
