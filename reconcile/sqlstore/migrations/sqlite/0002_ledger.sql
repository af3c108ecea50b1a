-- The ledger: a lease token is a number, lease expiry is kept on the
-- store's clock (leases of 0.2.0 are dropped: stop 0.2.0 sweepers before
-- upgrading), and every order keeps its checks, consecutive failures, the
-- reason tracking ended and the time of its last change (for Prune). The
-- lease index goes: leased rows are found through the due index.
DROP INDEX IF EXISTS upicollect_reconcile_orders_lease;
ALTER TABLE upicollect_reconcile_orders DROP COLUMN lease_token;
ALTER TABLE upicollect_reconcile_orders ADD COLUMN lease_token INTEGER;
ALTER TABLE upicollect_reconcile_orders ADD COLUMN checks INTEGER NOT NULL DEFAULT 0;
ALTER TABLE upicollect_reconcile_orders ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE upicollect_reconcile_orders ADD COLUMN updated_ns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE upicollect_reconcile_orders ADD COLUMN reason TEXT;
UPDATE upicollect_reconcile_orders SET lease_until_ns = NULL,
	updated_ns = MAX(created_ns, COALESCE((SELECT MAX(e.at_ns) FROM upicollect_reconcile_events e WHERE e.order_id = upicollect_reconcile_orders.order_id), 0));
