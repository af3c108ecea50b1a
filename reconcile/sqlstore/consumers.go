package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

// nowExpr is the store's time in a statement from one argument (NULL on
// PostgreSQL: the database's clock).
func (s *store) nowExpr() string {
	if s.d == Postgres {
		return `COALESCE(CAST(? AS BIGINT), ` + pgNow + `)`
	}
	return `?`
}

func (s *store) RegisterConsumer(ctx context.Context, name string, _ time.Time) error {
	now := s.nowExpr()
	_, err := s.exec(ctx, s.db, s.ph(`INSERT INTO `+ConsumersTable+` (name, registered_ns, last_seen_ns) VALUES (?, `+now+`, `+now+`)
		ON CONFLICT (name) DO UPDATE SET last_seen_ns = excluded.last_seen_ns`), name, s.clockArg(), s.clockArg())
	if err != nil {
		return fmt.Errorf("sqlstore: registering consumer %q: %w", name, err)
	}
	return nil
}

func (s *store) RemoveConsumer(ctx context.Context, name string) error {
	tx, cancel, err := s.begin(ctx)
	if err != nil {
		return fmt.Errorf("sqlstore: removing consumer %q: %w", name, err)
	}
	defer cancel()
	defer func() { _ = tx.Rollback() }()
	res, err := s.exec(ctx, tx, s.ph(`DELETE FROM `+ConsumersTable+` WHERE name = ?`), name)
	if err != nil {
		return fmt.Errorf("sqlstore: removing consumer %q: %w", name, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err == nil {
			err = reconcile.ErrNoConsumer
		}
		return fmt.Errorf("sqlstore: removing consumer %q: %w", name, err)
	}
	// A delivery under way holds its row: the delete waits for it, and
	// then leaves it if it was delivered.
	if _, err := s.exec(ctx, tx, s.ph(`DELETE FROM `+DeliveriesTable+` WHERE consumer = ? AND delivered_ns IS NULL`), name); err != nil {
		return fmt.Errorf("sqlstore: removing consumer %q's deliveries: %w", name, err)
	}
	if err := s.commit(tx, cancel); err != nil {
		return fmt.Errorf("sqlstore: removing consumer %q: %w", name, err)
	}
	return nil
}

// earlierPending holds back a pending delivery (d0) while an earlier event
// of its order is pending for the same consumer, leased or backing off: an
// order's events reach a consumer in the order they were recorded.
const earlierPending = `NOT EXISTS (SELECT 1 FROM ` + DeliveriesTable + ` p
	JOIN ` + EventsTable + ` pe ON pe.order_id = p.order_id AND pe.result = p.result
	JOIN ` + EventsTable + ` me ON me.order_id = d0.order_id AND me.result = d0.result
	WHERE p.consumer = d0.consumer AND p.order_id = d0.order_id AND p.delivered_ns IS NULL AND pe.at_ns < me.at_ns)`

// leaseDeliveriesQuery leases up to limit pending deliveries of one
// consumer. Arguments: now (store), consumer, due (sweeper's now), token,
// ttl, and on PostgreSQL the consumer again.
func (s *store) leaseDeliveriesQuery(limit int) string {
	lim := strconv.Itoa(limit)
	if s.d == Postgres {
		return numbered(`WITH clock AS (SELECT COALESCE(?::BIGINT, ` + pgNow + `) AS ns),
			picked AS (SELECT order_id, result FROM ` + DeliveriesTable + ` d0
				WHERE consumer = ? AND delivered_ns IS NULL AND due_ns <= ? AND (lease_until_ns IS NULL OR lease_until_ns <= (SELECT ns FROM clock))
				AND ` + earlierPending + `
				ORDER BY due_ns LIMIT ` + lim + ` FOR UPDATE SKIP LOCKED)
			UPDATE ` + DeliveriesTable + ` d SET lease_token = ?, lease_until_ns = (SELECT ns FROM clock) + ?
			FROM picked WHERE d.consumer = ? AND d.order_id = picked.order_id AND d.result = picked.result
			RETURNING d.order_id, d.result, d.failures`)
	}
	return `UPDATE ` + DeliveriesTable + ` SET lease_token = ?4, lease_until_ns = ?1 + ?5
		WHERE rowid IN (SELECT rowid FROM ` + DeliveriesTable + ` d0
			WHERE consumer = ?2 AND delivered_ns IS NULL AND due_ns <= ?3 AND (lease_until_ns IS NULL OR lease_until_ns <= ?1)
			AND ` + earlierPending + `
			ORDER BY due_ns LIMIT ` + lim + `)
		RETURNING order_id, result, failures`
}

// eventKey names one event.
type eventKey struct{ id, result string }

func (s *store) LeaseDeliveries(ctx context.Context, consumer string, now time.Time, limit int, ttl time.Duration) ([]reconcile.DeliveryLease, error) {
	if limit <= 0 {
		return nil, nil
	}
	tok, err := newToken()
	if err != nil {
		return nil, err
	}
	args := []any{s.clockArg(), consumer, now.UnixNano(), tok, ttl.Nanoseconds()}
	if s.d == Postgres {
		args = append(args, consumer)
	}
	bctx, cancel := s.bound(ctx)
	defer cancel()
	rows, err := s.db.QueryContext(bctx, s.leaseDeliveriesQuery(min(limit, maxBatch)), args...)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: leasing deliveries of %q: %w", consumer, err)
	}
	var (
		keys     []eventKey
		failures = map[eventKey]int{}
	)
	for rows.Next() {
		var k eventKey
		var f int64
		if err := rows.Scan(&k.id, &k.result, &f); err != nil {
			rows.Close()
			return nil, fmt.Errorf("sqlstore: leasing deliveries of %q: %w", consumer, err)
		}
		keys, failures[k] = append(keys, k), int(f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: leasing deliveries of %q: %w", consumer, err)
	}
	evs, err := s.eventsOf(bctx, keys)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: reading the events of %q's deliveries: %w", consumer, err)
	}
	out := make([]reconcile.DeliveryLease, 0, len(keys))
	for _, k := range keys {
		ev, ok := evs[k]
		if !ok {
			continue // not kept (it cannot be: Prune keeps what is pending)
		}
		out = append(out, reconcile.DeliveryLease{Event: ev, Consumer: consumer, Failures: failures[k], Token: formatToken(tok)})
	}
	return out, nil
}

// eventsOf reads the events keys name, with their orders.
func (s *store) eventsOf(ctx context.Context, keys []eventKey) (map[eventKey]reconcile.Event, error) {
	out := make(map[eventKey]reconcile.Event, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	ids := make([]any, 0, len(keys))
	seen := map[string]bool{}
	for _, k := range keys {
		if !seen[k.id] {
			seen[k.id] = true
			ids = append(ids, k.id)
		}
	}
	rows, err := s.db.QueryContext(ctx, s.ph(`SELECT e.order_id, e.result, e.at_ns, e.txn_status, e.paid_paise, e.utr, e.reason, o.amount_paise, o.created_ns
		FROM `+EventsTable+` e JOIN `+OrdersTable+` o ON o.order_id = e.order_id WHERE e.order_id IN `+inList(len(ids))), ids...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			k                        eventKey
			txn, utr, reason         string
			atNS, paid, amt, created int64
		)
		if err := rows.Scan(&k.id, &k.result, &atNS, &txn, &paid, &utr, &reason, &amt, &created); err != nil {
			return nil, err
		}
		o := reconcile.Order{ID: k.id, Amount: upicollect.Money(amt), Created: time.Unix(0, created).UTC()}
		var status *upicollect.PaymentStatus
		if txn != "" {
			status = &upicollect.PaymentStatus{OrderID: k.id, TxnStatus: upicollect.TxnStatus(txn), Amount: upicollect.Money(paid), UTR: utr}
		}
		out[k] = reconcile.NewEvent(o, reconcile.Result(k.result), status, time.Unix(0, atNS).UTC(), reason)
	}
	return out, rows.Err()
}

func (s *store) CommitDeliveries(ctx context.Context, ds []reconcile.LeasedDelivery, deliver func(context.Context, int) error) ([]error, error) {
	errs := make([]error, len(ds))
	for start := 0; start < len(ds); start += maxEvents {
		part := ds[start:min(len(ds), start+maxEvents)]
		err := s.commitDeliveries(ctx, part, errs[start:start+len(part)], func(ctx context.Context, i int) error {
			if deliver == nil {
				return nil
			}
			return deliver(ctx, start+i)
		})
		if err != nil {
			err = fmt.Errorf("sqlstore: delivering %d events: %w", len(part), err)
			if start == 0 {
				return errs, err // nothing recorded
			}
			return partFailed(errs, start, err), nil
		}
	}
	return errs, nil
}

// commitDeliveries records ds in one transaction, as commitEvents does
// events: the deliveries still held are locked, each handler runs in turn
// (under a savepoint its first Tx opens), then the delivered ones and the
// retries of the failed ones are recorded, and the transaction commits.
func (s *store) commitDeliveries(ctx context.Context, ds []reconcile.LeasedDelivery, errs []error, deliver func(context.Context, int) error) error {
	tx, cancel, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	defer func() { _ = tx.Rollback() }() // after Commit, a no-op
	held, err := s.holdDeliveries(ctx, tx, ds)
	if err != nil {
		return fmt.Errorf("holding the deliveries: %w", err)
	}
	var done, retried []int
	for i, d := range ds {
		if !held[i] {
			errs[i] = fmt.Errorf("sqlstore: order %q: delivering to %q: %w", d.Lease.Event.Order.ID, d.Lease.Consumer, reconcile.ErrLeaseLost)
			continue
		}
		h := &handlerTx{tx: tx, savepoint: true}
		err := deliver(context.WithValue(ctx, txKey{}, h), i)
		if h.err != nil {
			return fmt.Errorf("order %q: the handler's savepoint: %w", d.Lease.Event.Order.ID, h.err)
		}
		if err != nil {
			if h.used {
				if _, rerr := s.exec(ctx, tx, `ROLLBACK TO SAVEPOINT `+savepoint); rerr != nil {
					return fmt.Errorf("order %q: rolling the handler back: %w", d.Lease.Event.Order.ID, rerr)
				}
			}
			errs[i] = err
			retried = append(retried, i)
			continue
		}
		done = append(done, i)
	}
	// A delivered delivery leaves its table; its event records the
	// consumer.
	for _, i := range done {
		d := ds[i].Lease
		if err := s.leased(ctx, tx, s.ph(`DELETE FROM `+DeliveriesTable+` WHERE order_id = ? AND result = ? AND consumer = ? AND lease_token = ?`),
			d.Event.Order.ID, string(d.Event.Result), d.Consumer, deliveryToken(d)); err != nil {
			return fmt.Errorf("order %q: recording the delivery to %q: %w", d.Event.Order.ID, d.Consumer, err)
		}
		if _, err := s.exec(ctx, tx, s.ph(`UPDATE `+EventsTable+` SET delivered_to = delivered_to || ? || `+newline(s.d)+` WHERE order_id = ? AND result = ?`),
			d.Consumer, d.Event.Order.ID, string(d.Event.Result)); err != nil {
			return fmt.Errorf("order %q: recording the delivery to %q: %w", d.Event.Order.ID, d.Consumer, err)
		}
	}
	for _, i := range retried {
		d, retry := ds[i].Lease, ds[i].Retry
		if err := s.leased(ctx, tx, s.ph(`UPDATE `+DeliveriesTable+` SET due_ns = ?, failures = ?, lease_token = NULL, lease_until_ns = NULL
			WHERE order_id = ? AND result = ? AND consumer = ? AND lease_token = ?`),
			retry.Next.UnixNano(), int64(retry.Failures), d.Event.Order.ID, string(d.Event.Result), d.Consumer, deliveryToken(d)); err != nil {
			return fmt.Errorf("order %q: recording the delivery's retry: %w", d.Event.Order.ID, err)
		}
	}
	return s.commit(tx, cancel)
}

// holdDeliveries locks the deliveries of ds whose lease is still held, in
// tx (PostgreSQL: SELECT … FOR UPDATE; SQLite: a write, which takes the
// write lock), and says which (by index into ds).
func (s *store) holdDeliveries(ctx context.Context, tx *sql.Tx, ds []reconcile.LeasedDelivery) (map[int]bool, error) {
	held := make(map[int]bool, len(ds))
	q := `SELECT order_id FROM ` + DeliveriesTable + `
		WHERE order_id = ? AND result = ? AND consumer = ? AND lease_token = ? AND delivered_ns IS NULL FOR UPDATE`
	if s.d == SQLite {
		q = `UPDATE ` + DeliveriesTable + ` SET lease_token = lease_token
			WHERE order_id = ? AND result = ? AND consumer = ? AND lease_token = ? AND delivered_ns IS NULL RETURNING order_id`
	}
	q = s.ph(q)
	for i, ld := range ds {
		d := ld.Lease
		found := false
		err := s.returning(ctx, tx, q, func(string) { found = true }, d.Event.Order.ID, string(d.Event.Result), d.Consumer, deliveryToken(d))
		if err != nil {
			return nil, err
		}
		held[i] = found
	}
	return held, nil
}

// deliveryToken reads a delivery lease's token back (0, matching no row,
// for one this store did not grant).
func deliveryToken(d reconcile.DeliveryLease) int64 {
	return token(reconcile.Lease{Token: d.Token})
}

func (s *store) Consumers(ctx context.Context) ([]reconcile.Consumer, error) {
	bctx, cancel := s.bound(ctx)
	defer cancel()
	// Delivered: the events whose delivered_to holds the name, between
	// newlines (a scan of the events: Consumers is an operator's call).
	nl := newline(s.d)
	contains := `strpos(` + nl + ` || e.delivered_to, ` + nl + ` || c.name || ` + nl + `) > 0`
	if s.d == SQLite {
		contains = `instr(` + nl + ` || e.delivered_to, ` + nl + ` || c.name || ` + nl + `) > 0`
	}
	rows, err := s.db.QueryContext(bctx, `SELECT c.name, c.last_seen_ns,
		(SELECT COUNT(*) FROM `+DeliveriesTable+` d WHERE d.consumer = c.name AND d.delivered_ns IS NULL),
		(SELECT COUNT(*) FROM `+EventsTable+` e WHERE `+contains+`)
		FROM `+ConsumersTable+` c ORDER BY c.name`)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: listing consumers: %w", err)
	}
	defer rows.Close()
	var out []reconcile.Consumer
	for rows.Next() {
		var (
			c                  reconcile.Consumer
			seen               sql.NullInt64
			pending, delivered int64
		)
		if err := rows.Scan(&c.Name, &seen, &pending, &delivered); err != nil {
			return nil, fmt.Errorf("sqlstore: listing consumers: %w", err)
		}
		c.LastSeen, c.Pending, c.Delivered = fromNS(seen), int(pending), int(delivered)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: listing consumers: %w", err)
	}
	return out, nil
}
