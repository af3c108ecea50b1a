package sqlstore

import (
	"strconv"
	"strings"
)

// pgNow is PostgreSQL's clock in Unix ns (microsecond precision):
// clock_timestamp(), the time when the statement reads it, not the start of
// its transaction.
const pgNow = `((EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::BIGINT * 1000)`

// orderColumns are the columns a Lease is made of.
const orderColumns = `order_id, amount_paise, created_ns, state, due_ns, failures`

// queries are the statements in the dialect's placeholders. A "now"
// argument is the store's time in Unix ns: on PostgreSQL NULL stands for
// the database's clock.
type queries struct {
	track, amount          string
	leaseOrder, orderLease string // leaseOrder: PostgreSQL now, id, token, ttl, ttl; SQLite token, now, ttl, id, now; orderLease: id
	extend                 string // now, ttl, id, token
	leaseDue               string // SQLite: a lease's orders due at its end: due, JSON array of rowids
	event                  string
	release                string // SQLite: due, id, token; PostgreSQL: ids, tokens, dues
	commitMany             string // PostgreSQL: now, ids, tokens, states, dues, checked, failures, reasons; SQLite: now, JSON
	nextDue, nextDueWalk   string // now: the first order in due order; up to nextDueRows of them
	untrack                string // now, id
	dropPending            string // id: an untracked order's undelivered deliveries
	// fanOut records an event's pending deliveries: one for every
	// registered consumer but the committing one (the event records that
	// one as delivered). id, result, due, consumer.
	fanOut string
	// hold locks the orders whose lease is held, for CommitMany's
	// transaction, and returns their ids (SQLite: a JSON array of [id,
	// token]).
	hold string
	// commitHold and commitRecord are a batch with events on
	// PostgreSQL: the quiet outcomes and the hold in one statement, the
	// events' outcomes, the events and their deliveries in another.
	commitHold, commitRecord string
	d                        Dialect
}

func newQueries(d Dialect) queries {
	now := `?`
	if d == Postgres {
		now = `COALESCE(?::BIGINT, ` + pgNow + `)`
	}
	q := queries{d: d}
	q.track = `INSERT INTO ` + OrdersTable + ` (order_id, amount_paise, created_ns, state, due_ns, updated_ns) VALUES (?, ?, ?, ?, ?, ` + now + `)
		ON CONFLICT (order_id) DO NOTHING`
	q.amount = `SELECT amount_paise FROM ` + OrdersTable + ` WHERE order_id = ?`
	// A leased order is due at its lease's end (or later, at its own due
	// time, when LeaseOrder took it early): it leaves the range of orders
	// due now, so that another sweeper's lease does not walk past it, and
	// NextDue reads it as due then. Arguments: now, ttl, id, token.
	if d == Postgres {
		q.extend = `WITH clock AS (SELECT COALESCE($1::BIGINT, ` + pgNow + `) AS ns)
		UPDATE ` + OrdersTable + ` o SET lease_until_ns = clock.ns + $2, due_ns = GREATEST(o.due_ns, clock.ns + $2)
		FROM clock WHERE o.order_id = $3 AND o.lease_token = $4`
	} else {
		q.extend = `UPDATE ` + OrdersTable + ` SET lease_until_ns = ?1 + ?2, due_ns = MAX(due_ns, ?1 + ?2)
		WHERE order_id = ?3 AND lease_token = ?4`
	}
	// An event records the consumers it was delivered to (delivered_to:
	// each name followed by a newline, which no name holds): the one that
	// commits it at once; a delivery row is kept only while pending, for
	// every other registered consumer.
	q.event = `INSERT INTO ` + EventsTable + ` (order_id, result, at_ns, txn_status, paid_paise, utr, reason, delivered_to) VALUES (?, ?, ?, ?, ?, ?, ?, ? || ` + newline(d) + `)`
	q.fanOut = `INSERT INTO ` + DeliveriesTable + ` (order_id, result, consumer, due_ns)
		SELECT CAST(? AS TEXT), CAST(? AS TEXT), c.name, CAST(? AS BIGINT)
		FROM ` + ConsumersTable + ` c WHERE c.name <> CAST(? AS TEXT)`
	q.untrack = `UPDATE ` + OrdersTable + ` SET updated_ns = ` + now + `, state = 'untracked', due_ns = NULL, lease_token = NULL, lease_until_ns = NULL
		WHERE order_id = ? AND state NOT IN ('paid', 'late_paid', 'mismatch')`
	q.dropPending = `DELETE FROM ` + DeliveriesTable + ` WHERE order_id = ? AND delivered_ns IS NULL`
	// The first order in due order, and (nextDueWalk) the first
	// nextDueRows of them, with the store's clock: NextDue reads the first,
	// and walks on only when it is held by a lease whose end is past now in
	// the time of the sweeper that took it.
	nextDue := `SELECT due_ns, lease_until_ns, ` + now + ` FROM ` + OrdersTable + ` WHERE due_ns IS NOT NULL ORDER BY due_ns LIMIT `
	q.nextDue, q.nextDueWalk = nextDue+`1`, nextDue+strconv.Itoa(nextDueRows)
	if d == Postgres {
		q.leaseOrder = `WITH clock AS (SELECT ` + now + ` AS ns),
			held AS (SELECT order_id, due_ns FROM ` + OrdersTable + ` WHERE order_id = ? FOR UPDATE NOWAIT)
			UPDATE ` + OrdersTable + ` o SET lease_token = ?, lease_until_ns = clock.ns + ?, due_ns = GREATEST(o.due_ns, clock.ns + ?)
			FROM held, clock
			WHERE o.order_id = held.order_id AND o.due_ns IS NOT NULL AND (o.lease_until_ns IS NULL OR o.lease_until_ns <= clock.ns)
			RETURNING o.order_id, o.amount_paise, o.created_ns, o.state, held.due_ns, o.failures`
		q.release = `UPDATE ` + OrdersTable + ` o SET due_ns = u.due, lease_token = NULL, lease_until_ns = NULL
			FROM unnest(?::TEXT[], ?::BIGINT[], ?::BIGINT[]) AS u(order_id, token, due)
			WHERE o.order_id = u.order_id AND o.lease_token = u.token`
		// The outcomes' update: now, then ids, tokens, states, dues,
		// checked, failures, reasons.
		update := `UPDATE ` + OrdersTable + ` o SET updated_ns = clock.ns, state = u.state, due_ns = NULLIF(u.due, 0),
				checks = o.checks + u.checked, failures = u.failures, reason = NULLIF(u.reason, ''),
				lease_token = NULL, lease_until_ns = NULL
			FROM clock, unnest(?::TEXT[], ?::BIGINT[], ?::TEXT[], ?::BIGINT[], ?::INTEGER[], ?::INTEGER[], ?::TEXT[])
				AS u(order_id, token, state, due, checked, failures, reason)
			WHERE o.order_id = u.order_id AND o.lease_token = u.token
			RETURNING o.order_id`
		clock := `WITH clock AS (SELECT ` + now + ` AS ns)`
		q.commitMany = clock + `
			` + update
		// A batch with events, in two statements around its handlers:
		// the quiet outcomes recorded and the orders with events locked
		// (ids, tokens), returning which; then the delivered events'
		// outcomes (and the failed ones' retries) recorded with their
		// events (ids, results, ats, txn statuses, paid, UTRs, reasons,
		// consumers) and their pending deliveries (ids, results, ats,
		// consumers).
		hold := `SELECT o.order_id FROM ` + OrdersTable + ` o
			JOIN unnest(?::TEXT[], ?::BIGINT[]) AS h(order_id, token) ON o.order_id = h.order_id AND o.lease_token = h.token
			FOR UPDATE OF o`
		q.commitHold = clock + `, quiet AS (` + update + `), held AS (` + hold + `)
			SELECT order_id, FALSE FROM quiet UNION ALL SELECT order_id, TRUE FROM held`
		q.commitRecord = clock + `, done AS (` + update + `),
			ev AS (INSERT INTO ` + EventsTable + ` (order_id, result, at_ns, txn_status, paid_paise, utr, reason, delivered_to)
				SELECT order_id, result, at_ns, txn_status, paid_paise, utr, reason, consumer || chr(10)
				FROM unnest(?::TEXT[], ?::TEXT[], ?::BIGINT[], ?::TEXT[], ?::BIGINT[], ?::TEXT[], ?::TEXT[], ?::TEXT[])
					AS e(order_id, result, at_ns, txn_status, paid_paise, utr, reason, consumer)),
			dl AS (INSERT INTO ` + DeliveriesTable + ` (order_id, result, consumer, due_ns)
				SELECT e.order_id, e.result, c.name, e.at
				FROM unnest(?::TEXT[], ?::TEXT[], ?::BIGINT[], ?::TEXT[]) AS e(order_id, result, at, consumer)
				JOIN ` + ConsumersTable + ` c ON c.name <> e.consumer)
			SELECT order_id FROM done`
	} else {
		// SQLite's RETURNING sees the new row: the lease returns the due
		// time, and leaseDue then moves it to the lease's end, in the same
		// transaction.
		q.leaseOrder = `UPDATE ` + OrdersTable + ` SET lease_token = ?, lease_until_ns = ? + ?
			WHERE order_id = ? AND due_ns IS NOT NULL AND (lease_until_ns IS NULL OR lease_until_ns <= ?)
			RETURNING rowid, ` + orderColumns
		q.leaseDue = `UPDATE ` + OrdersTable + ` SET due_ns = MAX(due_ns, ?) WHERE rowid IN (SELECT value FROM json_each(?))`
		q.release = `UPDATE ` + OrdersTable + ` SET due_ns = ?, lease_token = NULL, lease_until_ns = NULL
			WHERE order_id = ? AND lease_token = ?`
		// A write (of nothing): it takes the database's write lock at
		// once, where a SELECT in a deferred transaction would not.
		q.hold = `UPDATE ` + OrdersTable + ` SET lease_token = u.token
			FROM (SELECT value ->> 0 AS order_id, value ->> 1 AS token FROM json_each(?)) AS u
			WHERE ` + OrdersTable + `.order_id = u.order_id AND ` + OrdersTable + `.lease_token = u.token
			RETURNING ` + OrdersTable + `.order_id`
		// One statement for the batch: the outcomes as one JSON array of
		// [id, token, state, due, checked, failures, reason] arrays.
		q.commitMany = `UPDATE ` + OrdersTable + ` SET updated_ns = ?, state = u.state, due_ns = u.due,
				checks = checks + u.checked, failures = u.failures, reason = u.reason,
				lease_token = NULL, lease_until_ns = NULL
			FROM (SELECT value ->> 0 AS order_id, value ->> 1 AS token, value ->> 2 AS state, value ->> 3 AS due,
				value ->> 4 AS checked, value ->> 5 AS failures, value ->> 6 AS reason FROM json_each(?)) AS u
			WHERE ` + OrdersTable + `.order_id = u.order_id AND ` + OrdersTable + `.lease_token = u.token
			RETURNING ` + OrdersTable + `.order_id`
	}
	q.orderLease = `SELECT due_ns, lease_until_ns FROM ` + OrdersTable + ` WHERE order_id = ?`
	if d == Postgres {
		for _, p := range []*string{&q.track, &q.amount, &q.event, &q.untrack, &q.dropPending, &q.nextDue, &q.nextDueWalk,
			&q.leaseOrder, &q.release, &q.commitMany, &q.orderLease, &q.fanOut, &q.hold, &q.commitHold, &q.commitRecord} {
			*p = numbered(*p)
		}
	}
	return q
}

// leaseQuery is the lease statement for up to limit orders. The limit is
// part of the text, not a parameter, so that a generic plan knows it and
// walks the due index (with LIMIT $n PostgreSQL's generic plan guesses a
// tenth of the table and may scan it all). The rows picked are updated
// through the primary key (order_id = ANY of their ids): a join with the
// CTE was planned as a hash join over a scan of the whole table.
//
// A leased order is due at the lease's end (the store's clock + ttl): it
// leaves the range the others' leases read, so that none walks past it,
// and an expired lease is simply due. The lease returns the due
// time the order had (the picked rows' on PostgreSQL; on SQLite, whose
// RETURNING sees the new row, leaseDue moves it afterwards, in the same
// transaction).
//
// On PostgreSQL the lease commits without waiting for its WAL flush
// (synchronous_commit off for its own transaction, set in the statement):
// a lease a crash loses only means one more check, since the outcome's
// commit, which does wait, is fenced by the lost lease's token and records
// nothing; and that commit's flush makes the lease durable with it. A
// batch then waits for one flush, not two.
func (q queries) leaseQuery(limit int) string {
	lim := strconv.Itoa(limit)
	if q.d == Postgres {
		return numbered(`WITH clock AS (SELECT COALESCE(?::BIGINT, ` + pgNow + `) AS ns, set_config('synchronous_commit', 'off', true) AS durability),
			picked AS (SELECT order_id, due_ns FROM ` + OrdersTable + `
				WHERE due_ns IS NOT NULL AND due_ns <= ? AND (lease_until_ns IS NULL OR lease_until_ns <= (SELECT ns FROM clock))
				ORDER BY due_ns LIMIT ` + lim + ` FOR UPDATE SKIP LOCKED),
			leased AS (UPDATE ` + OrdersTable + ` o SET lease_token = ?, lease_until_ns = (SELECT ns FROM clock) + ?, due_ns = GREATEST(o.due_ns, (SELECT ns FROM clock) + ?)
				WHERE o.order_id = ANY (ARRAY(SELECT order_id FROM picked))
				RETURNING o.order_id, o.amount_paise, o.created_ns, o.state, o.failures)
			SELECT l.order_id, l.amount_paise, l.created_ns, l.state, p.due_ns, l.failures FROM leased l JOIN picked p ON p.order_id = l.order_id`)
	}
	return `UPDATE ` + OrdersTable + ` SET lease_token = ?3, lease_until_ns = ?1 + ?4
		WHERE rowid IN (SELECT rowid FROM ` + OrdersTable + `
			WHERE due_ns IS NOT NULL AND due_ns <= ?2 AND (lease_until_ns IS NULL OR lease_until_ns <= ?1)
			ORDER BY due_ns LIMIT ` + lim + `)
		RETURNING rowid, ` + orderColumns
}

// newline is the dialect's newline character in SQL: the end of each
// consumer name in an event's delivered_to.
func newline(d Dialect) string {
	if d == Postgres {
		return `chr(10)`
	}
	return `char(10)`
}

// inList is "(?, ?, …)" with n placeholders.
func inList(n int) string {
	return "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
}
