-- Consumers: every delivery target gets every event once. A consumer is
-- registered by its sweepers (registered_ns, last_seen_ns: store time); a
-- delivery is one event for one consumer, pending (delivered_ns NULL,
-- leased like an order, fenced by lease_token) or delivered.
CREATE TABLE upicollect_reconcile_consumers (
	name          TEXT PRIMARY KEY,
	registered_ns INTEGER NOT NULL,
	last_seen_ns  INTEGER
);
CREATE TABLE upicollect_reconcile_deliveries (
	order_id       TEXT NOT NULL,
	result         TEXT NOT NULL,
	consumer       TEXT NOT NULL,
	due_ns         INTEGER NOT NULL,
	delivered_ns   INTEGER,
	lease_token    INTEGER,
	lease_until_ns INTEGER,
	failures       INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (order_id, result, consumer)
);
CREATE INDEX upicollect_reconcile_deliveries_pending ON upicollect_reconcile_deliveries (consumer, due_ns) WHERE delivered_ns IS NULL;
CREATE INDEX upicollect_reconcile_deliveries_consumer ON upicollect_reconcile_deliveries (consumer);
-- A ledger of 0.3.0 had one consumer: it is "default" (a sweeper without
-- WithConsumer), registered now, and every event it holds was delivered
-- to it, so nothing is delivered again.
INSERT INTO upicollect_reconcile_consumers (name, registered_ns, last_seen_ns)
	SELECT 'default', CAST(strftime('%s', 'now') AS INTEGER) * 1000000000, NULL
	WHERE EXISTS (SELECT 1 FROM upicollect_reconcile_orders);
INSERT INTO upicollect_reconcile_deliveries (order_id, result, consumer, due_ns, delivered_ns)
	SELECT order_id, result, 'default', at_ns, at_ns FROM upicollect_reconcile_events;
