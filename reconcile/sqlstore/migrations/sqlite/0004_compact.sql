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
