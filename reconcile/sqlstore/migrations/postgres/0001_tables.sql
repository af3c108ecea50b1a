-- The tables of release 0.2.0, as it created them (a database of 0.2.0 has
-- them already, without a version table: this step changes nothing there).
CREATE TABLE IF NOT EXISTS upicollect_reconcile_orders (
	order_id       TEXT PRIMARY KEY,
	amount_paise   BIGINT NOT NULL,
	created_ns     BIGINT NOT NULL,
	state          TEXT NOT NULL,
	due_ns         BIGINT,
	lease_token    TEXT,
	lease_until_ns BIGINT
);
CREATE INDEX IF NOT EXISTS upicollect_reconcile_orders_due ON upicollect_reconcile_orders (due_ns) WHERE due_ns IS NOT NULL;
CREATE INDEX IF NOT EXISTS upicollect_reconcile_orders_lease ON upicollect_reconcile_orders (lease_until_ns) WHERE lease_token IS NOT NULL;
CREATE TABLE IF NOT EXISTS upicollect_reconcile_events (
	order_id   TEXT NOT NULL,
	result     TEXT NOT NULL,
	at_ns      BIGINT NOT NULL,
	txn_status TEXT NOT NULL,
	paid_paise BIGINT NOT NULL,
	utr        TEXT NOT NULL,
	reason     TEXT NOT NULL,
	PRIMARY KEY (order_id, result)
);
