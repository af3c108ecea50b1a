-- A delivered delivery is recorded on its event, not as a row of its own:
-- delivered_to holds the consumers the event was delivered to, each name
-- followed by a newline (no consumer name holds one). A delivery row is
-- kept only while it is pending; the one delivered to the committing
-- consumer is never written. The per-consumer index goes: the pending
-- index (consumer, due_ns) answers every question by consumer.
ALTER TABLE upicollect_reconcile_events ADD COLUMN delivered_to TEXT NOT NULL DEFAULT '';
UPDATE upicollect_reconcile_events e SET delivered_to = d.names
	FROM (SELECT order_id, result, string_agg(consumer || chr(10), '' ORDER BY consumer) AS names
		FROM upicollect_reconcile_deliveries WHERE delivered_ns IS NOT NULL GROUP BY order_id, result) d
	WHERE e.order_id = d.order_id AND e.result = d.result;
DELETE FROM upicollect_reconcile_deliveries WHERE delivered_ns IS NOT NULL;
DROP INDEX IF EXISTS upicollect_reconcile_deliveries_consumer;
-- A lease moves its order's due time (to the lease's end), so no update
-- of an order is HOT: the free tenth of each page kept for HOT leases
-- since 0.3.0 is given back (to new pages; VACUUM FULL compacts old ones).
ALTER TABLE upicollect_reconcile_orders SET (fillfactor = 100);
-- Leases taken before this upgrade leave their orders due now: they are
-- moved to their leases' ends, as a lease now does.
UPDATE upicollect_reconcile_orders SET due_ns = GREATEST(due_ns, lease_until_ns)
	WHERE due_ns IS NOT NULL AND lease_until_ns IS NOT NULL AND lease_until_ns > due_ns;
