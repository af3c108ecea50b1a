package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

// stateColumns are the columns of an OrderState.
const stateColumns = `order_id, amount_paise, created_ns, state, due_ns, checks, failures, reason, updated_ns`

// maxList caps one page of List.
const maxList = 1000

func (s *store) ph(q string) string {
	if s.d == Postgres {
		return numbered(q)
	}
	return q
}

func scanState(scan func(...any) error) (reconcile.OrderState, error) {
	var (
		st                      reconcile.OrderState
		paise, created, updated int64
		checks, failures        int64
		state                   string
		due                     sql.NullInt64
		reason                  sql.NullString
	)
	if err := scan(&st.Order.ID, &paise, &created, &state, &due, &checks, &failures, &reason, &updated); err != nil {
		return st, err
	}
	st.Order.Amount, st.Order.Created = upicollect.Money(paise), time.Unix(0, created).UTC()
	st.State, st.Next, st.Checks, st.Failures = reconcile.State(state), fromNS(due), int(checks), int(failures)
	st.Reason, st.Updated = reason.String, time.Unix(0, updated).UTC()
	return st, nil
}

func (s *store) Lookup(ctx context.Context, orderID string) (*reconcile.OrderState, error) {
	if !reconcile.Trackable(orderID) {
		return nil, errNoSuchID
	}
	bctx, cancel := s.bound(ctx)
	defer cancel()
	st, err := scanState(s.db.QueryRowContext(bctx, s.ph(`SELECT `+stateColumns+` FROM `+OrdersTable+` WHERE order_id = ?`), orderID).Scan)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlstore: order %q: %w", orderID, reconcile.ErrNotTracked)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlstore: looking up %q: %w", orderID, err)
	}
	sts := []reconcile.OrderState{st}
	if err := s.events(bctx, sts); err != nil {
		return nil, fmt.Errorf("sqlstore: looking up %q: %w", orderID, err)
	}
	return &sts[0], nil
}

// events fills in the events of sts, oldest first.
func (s *store) events(ctx context.Context, sts []reconcile.OrderState) error {
	if len(sts) == 0 {
		return nil
	}
	at := make(map[string]int, len(sts))
	args := make([]any, len(sts))
	for i, st := range sts {
		at[st.Order.ID], args[i] = i, st.Order.ID
	}
	rows, err := s.db.QueryContext(ctx, s.ph(`SELECT order_id, result, at_ns, txn_status, paid_paise, utr, reason, delivered_to FROM `+EventsTable+
		` WHERE order_id IN `+inList(len(sts))+` ORDER BY at_ns, result`), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id, result, txn, utr, reason, to string
			atNS, paid                       int64
		)
		if err := rows.Scan(&id, &result, &atNS, &txn, &paid, &utr, &reason, &to); err != nil {
			return err
		}
		st := &sts[at[id]]
		var status *upicollect.PaymentStatus
		if txn != "" {
			status = &upicollect.PaymentStatus{OrderID: id, TxnStatus: upicollect.TxnStatus(txn), Amount: upicollect.Money(paid), UTR: utr}
		}
		ev := reconcile.NewEvent(st.Order, reconcile.Result(result), status, time.Unix(0, atNS).UTC(), reason)
		ev.DeliveredTo = deliveredTo(to)
		st.Events = append(st.Events, ev)
	}
	return rows.Err()
}

// deliveredTo reads an event's delivered_to: each consumer's name followed
// by a newline; sorted by name.
func deliveredTo(s string) []string {
	names := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if s == "" {
		return nil
	}
	slices.Sort(names)
	return names
}

func (s *store) List(ctx context.Context, q reconcile.ListQuery) ([]reconcile.OrderState, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = reconcile.DefaultListLimit
	}
	limit = min(limit, maxList)
	if q.Before != "" && !reconcile.Trackable(q.Before) {
		return nil, nil // after an order no store holds: an empty page
	}
	where, args := "", []any{}
	if len(q.States) > 0 {
		where = ` WHERE state IN ` + inList(len(q.States))
		for _, st := range q.States {
			args = append(args, string(st))
		}
	}
	if q.Before != "" {
		if where == "" {
			where = ` WHERE `
		} else {
			where += ` AND `
		}
		// After the cursor's order in (created_ns DESC, order_id DESC).
		where += `(created_ns < (SELECT created_ns FROM ` + OrdersTable + ` WHERE order_id = ?)
			OR (created_ns = (SELECT created_ns FROM ` + OrdersTable + ` WHERE order_id = ?) AND order_id < ?))`
		args = append(args, q.Before, q.Before, q.Before)
	}
	bctx, cancel := s.bound(ctx)
	defer cancel()
	rows, err := s.db.QueryContext(bctx, s.ph(`SELECT `+stateColumns+` FROM `+OrdersTable+where+
		` ORDER BY created_ns DESC, order_id DESC LIMIT `+fmt.Sprint(limit)), args...)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: listing: %w", err)
	}
	var out []reconcile.OrderState
	for rows.Next() {
		st, err := scanState(rows.Scan)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("sqlstore: listing: %w", err)
		}
		out = append(out, st)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: listing: %w", err)
	}
	if err := s.events(bctx, out); err != nil {
		return nil, fmt.Errorf("sqlstore: listing: %w", err)
	}
	return out, nil
}

func (s *store) Counts(ctx context.Context) (map[reconcile.State]int, error) {
	bctx, cancel := s.bound(ctx)
	defer cancel()
	rows, err := s.db.QueryContext(bctx, `SELECT state, COUNT(*) FROM `+OrdersTable+` GROUP BY state`)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: counting: %w", err)
	}
	defer rows.Close()
	out := map[reconcile.State]int{}
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, fmt.Errorf("sqlstore: counting: %w", err)
		}
		out[reconcile.State(st)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: counting: %w", err)
	}
	return out, nil
}

// Untrack ends tracking of an order not final yet; a final one (paid,
// late paid, mismatch) is left as it is. On PostgreSQL it waits for a
// delivery of the order under way (its row lock); on SQLite for the write
// lock.
func (s *store) Untrack(ctx context.Context, orderID string) error {
	if !reconcile.Trackable(orderID) {
		return errNoSuchID
	}
	res, err := s.exec(ctx, s.db, s.q.untrack, s.clockArg(), orderID)
	if err != nil {
		return fmt.Errorf("sqlstore: untracking %q: %w", orderID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqlstore: untracking %q: %w", orderID, err)
	}
	if n == 1 {
		// Nothing more is delivered for it: its pending deliveries go (one
		// under way holds its row until it commits, then stays delivered).
		if _, err := s.exec(ctx, s.db, s.q.dropPending, orderID); err != nil {
			return fmt.Errorf("sqlstore: untracking %q: dropping its pending deliveries: %w", orderID, err)
		}
		return nil
	}
	bctx, cancel := s.bound(ctx)
	defer cancel()
	var paise int64
	err = s.db.QueryRowContext(bctx, s.q.amount, orderID).Scan(&paise)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("sqlstore: untracking %q: %w", orderID, reconcile.ErrNotTracked)
	}
	if err != nil {
		return fmt.Errorf("sqlstore: untracking %q: %w", orderID, err)
	}
	return nil // final: nothing to stop
}

// pruneBatch is how many orders one Prune transaction deletes.
const pruneBatch = 5000

// Prune deletes, pruneBatch orders per transaction (each within the
// statement timeout), the orders with no further check last changed
// before before, with their events. It finds them by reading the orders
// table (there is no index on updated_ns: a daily Prune does not pay for
// one on every commit).
func (s *store) Prune(ctx context.Context, before time.Time) (int, error) {
	total := 0
	for {
		n, err := s.pruneBatch(ctx, before.UnixNano())
		total += n
		if err != nil {
			return total, fmt.Errorf("sqlstore: pruning: %w", err)
		}
		if n < pruneBatch {
			return total, nil
		}
	}
}

func (s *store) pruneBatch(ctx context.Context, before int64) (int, error) {
	bctx, cancel := s.bound(ctx)
	defer cancel()
	tx, err := s.db.BeginTx(bctx, nil)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback() }()
	// An order with a delivery still pending is kept.
	pick := `SELECT order_id FROM ` + OrdersTable + ` WHERE due_ns IS NULL AND updated_ns < ?
		AND NOT EXISTS (SELECT 1 FROM ` + DeliveriesTable + ` p WHERE p.order_id = ` + OrdersTable + `.order_id AND p.delivered_ns IS NULL)`
	if s.d == Postgres {
		pick += ` LIMIT ` + fmt.Sprint(pruneBatch) + ` FOR UPDATE SKIP LOCKED`
	} else {
		pick += ` ORDER BY order_id LIMIT ` + fmt.Sprint(pruneBatch)
	}
	// Events first, then their orders: both of the same picked ids.
	if s.d == Postgres {
		var n int
		err := tx.QueryRowContext(bctx, numbered(`WITH picked AS (`+pick+`),
			ev AS (DELETE FROM `+EventsTable+` e USING picked WHERE e.order_id = picked.order_id),
			dv AS (DELETE FROM `+DeliveriesTable+` d USING picked WHERE d.order_id = picked.order_id),
			gone AS (DELETE FROM `+OrdersTable+` o USING picked WHERE o.order_id = picked.order_id RETURNING 1)
			SELECT COUNT(*) FROM gone`), before).Scan(&n)
		if err != nil {
			return 0, err
		}
		return n, tx.Commit()
	}
	// On SQLite the first statement takes the write lock, so the second
	// picks the same orders (ordered: the same first pruneBatch).
	if _, err := tx.ExecContext(bctx, `DELETE FROM `+DeliveriesTable+` WHERE order_id IN (`+pick+`)`, before); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(bctx, `DELETE FROM `+EventsTable+` WHERE order_id IN (`+pick+`)`, before); err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(bctx, `DELETE FROM `+OrdersTable+` WHERE order_id IN (`+pick+`)`, before)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, err
	}
	return int(n), tx.Commit()
}
