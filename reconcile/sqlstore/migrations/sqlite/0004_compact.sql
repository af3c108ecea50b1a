-- A delivered delivery is recorded on its event, not as a row of its own:
-- delivered_to holds the consumers the event was delivered to, each name
-- followed by a newline (no consumer name holds one). A delivery row is
-- kept only while it is pending; the one delivered to the committing
-- consumer is never written. The per-consumer index goes: the pending
-- index (consumer, due_ns) answers every question by consumer.
ALTER TABLE upicollect_reconcile_events ADD COLUMN delivered_to TEXT NOT NULL DEFAULT '';
UPDATE upicollect_reconcile_events SET delivered_to = COALESCE((SELECT group_concat(consumer || char(10), '')
	FROM (SELECT d.consumer FROM upicollect_reconcile_deliveries d
		WHERE d.order_id = upicollect_reconcile_events.order_id AND d.result = upicollect_reconcile_events.result AND d.delivered_ns IS NOT NULL
		ORDER BY d.consumer)), '');
DELETE FROM upicollect_reconcile_deliveries WHERE delivered_ns IS NOT NULL;
DROP INDEX IF EXISTS upicollect_reconcile_deliveries_consumer;
-- Leases taken before this upgrade leave their orders due now: they are
-- moved to their leases' ends, as a lease now does.
UPDATE upicollect_reconcile_orders SET due_ns = MAX(due_ns, lease_until_ns)
	WHERE due_ns IS NOT NULL AND lease_until_ns IS NOT NULL AND lease_until_ns > due_ns;
-- An event's row is kept in its primary key's order (WITHOUT ROWID): the
-- order id and the result are stored once, in the table's own b-tree,
-- instead of in the table and again in the key's index (about 40 bytes an
-- event). Lookups, the delivery joins and Prune find events by that key.
CREATE TABLE upicollect_reconcile_events_by_key (
	order_id     TEXT NOT NULL,
	result       TEXT NOT NULL,
	at_ns        BIGINT NOT NULL,
	txn_status   TEXT NOT NULL,
	paid_paise   BIGINT NOT NULL,
	utr          TEXT NOT NULL,
	reason       TEXT NOT NULL,
	delivered_to TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (order_id, result)
) WITHOUT ROWID;
INSERT INTO upicollect_reconcile_events_by_key (order_id, result, at_ns, txn_status, paid_paise, utr, reason, delivered_to)
	SELECT order_id, result, at_ns, txn_status, paid_paise, utr, reason, delivered_to FROM upicollect_reconcile_events;
DROP TABLE upicollect_reconcile_events;
ALTER TABLE upicollect_reconcile_events_by_key RENAME TO upicollect_reconcile_events;
