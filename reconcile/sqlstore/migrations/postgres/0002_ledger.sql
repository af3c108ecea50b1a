-- The ledger: a lease token is a number (8 bytes, not 33), lease expiry is
-- kept on the database's clock (leases of 0.2.0 were on the sweepers'
-- clocks: they are dropped, so stop 0.2.0 sweepers before upgrading), and
-- every order keeps its checks, consecutive failures, the reason tracking
-- ended and the time of its last change (store time, for Prune). The lease
-- index goes: leased rows are found through the due index, and a commit
-- through the primary key.
DROP INDEX IF EXISTS upicollect_reconcile_orders_lease;
ALTER TABLE upicollect_reconcile_orders
	ALTER COLUMN lease_token TYPE BIGINT USING NULL,
	ADD COLUMN checks INTEGER NOT NULL DEFAULT 0,
	ADD COLUMN failures SMALLINT NOT NULL DEFAULT 0,
	ADD COLUMN updated_ns BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN reason TEXT;
UPDATE upicollect_reconcile_orders o SET lease_until_ns = NULL,
	updated_ns = GREATEST(o.created_ns, COALESCE((SELECT MAX(e.at_ns) FROM upicollect_reconcile_events e WHERE e.order_id = o.order_id), 0));
