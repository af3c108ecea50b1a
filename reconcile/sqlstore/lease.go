package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

// maxBatch caps the orders one statement leases, commits or releases.
const maxBatch = 2000

func (s *store) Lease(ctx context.Context, now time.Time, limit int, ttl time.Duration) ([]reconcile.Lease, error) {
	if limit <= 0 {
		return nil, nil
	}
	limit = min(limit, maxBatch)
	tok, err := newToken()
	if err != nil {
		return nil, err
	}
	var out []reconcile.Lease
	if s.d == Postgres {
		bctx, cancel := s.bound(ctx)
		defer cancel()
		rows, qerr := s.db.QueryContext(bctx, s.q.leaseQuery(limit), s.clockArg(), now.UnixNano(), tok, int64(ttl), int64(ttl))
		if qerr != nil {
			return nil, fmt.Errorf("sqlstore: leasing: %w", qerr)
		}
		out, _, err = scanLeases(rows, tok, false)
	} else {
		clock := s.clock().UnixNano()
		out, err = s.sqliteLease(ctx, tok, clock+int64(ttl), s.q.leaseQuery(limit), clock, now.UnixNano(), tok, int64(ttl))
	}
	if err != nil {
		return nil, fmt.Errorf("sqlstore: leasing: %w", err)
	}
	// RETURNING keeps no order: earliest due first, as Lease promises.
	slices.SortFunc(out, func(a, b reconcile.Lease) int {
		if c := a.Due.Compare(b.Due); c != 0 {
			return c
		}
		return strings.Compare(a.Order.ID, b.Order.ID)
	})
	return out, nil
}

// sqliteLease runs a SQLite lease under tok in one transaction: query
// (args) leases the orders, returning rowid and orderColumns; then the
// leased orders are due at until, the lease's end (or their own due time,
// if later).
// SQLite's RETURNING sees the new row, so the lease itself cannot both
// move the due time and return the one the order had.
func (s *store) sqliteLease(ctx context.Context, tok, until int64, query string, args ...any) ([]reconcile.Lease, error) {
	bctx, cancel := s.bound(ctx)
	defer cancel()
	tx, err := s.db.BeginTx(bctx, nil)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }()
	rows, err := tx.QueryContext(bctx, query, args...)
	if err != nil {
		return nil, err
	}
	out, ids, err := scanLeases(rows, tok, true)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, tx.Commit()
	}
	js, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(bctx, s.q.leaseDue, until, string(js)); err != nil {
		return nil, err
	}
	return out, tx.Commit()
}

// scanLeases reads the rows of orderColumns (after a rowid, returned in
// rowids, when withRowid) as leases under tok, and closes rows.
func scanLeases(rows *sql.Rows, tok int64, withRowid bool) (out []reconcile.Lease, rowids []int64, err error) {
	defer rows.Close()
	for rows.Next() {
		scan := rows.Scan
		if withRowid {
			scan = func(dest ...any) error {
				var id int64
				if err := rows.Scan(append([]any{&id}, dest...)...); err != nil {
					return err
				}
				rowids = append(rowids, id)
				return nil
			}
		}
		l, err := scanLease(scan, tok)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, l)
	}
	return out, rowids, rows.Err()
}

func scanLease(scan func(...any) error, tok int64) (reconcile.Lease, error) {
	var (
		l                             reconcile.Lease
		paise, created, due, failures int64
		state                         string
	)
	if err := scan(&l.Order.ID, &paise, &created, &state, &due, &failures); err != nil {
		return l, err
	}
	l.Order.Amount, l.Order.Created = upicollect.Money(paise), time.Unix(0, created).UTC()
	l.State, l.Due, l.Failures, l.Token = reconcile.State(state), time.Unix(0, due).UTC(), int(failures), formatToken(tok)
	return l, nil
}

// LeaseOrder measures the lease on the store's clock; now is not used.
// The order is due at the lease's end (or its own due time, if later)
// until a commit or a release says when.
func (s *store) LeaseOrder(ctx context.Context, orderID string, _ time.Time, ttl time.Duration) (reconcile.Lease, error) {
	if !reconcile.Trackable(orderID) {
		return reconcile.Lease{}, errNoSuchID
	}
	tok, err := newToken()
	if err != nil {
		return reconcile.Lease{}, err
	}
	var l reconcile.Lease
	if s.d == Postgres {
		bctx, cancel := s.bound(ctx)
		defer cancel()
		row := s.db.QueryRowContext(bctx, s.q.leaseOrder, s.clockArg(), orderID, tok, int64(ttl), int64(ttl))
		l, err = scanLease(row.Scan, tok)
	} else {
		clock := s.clock().UnixNano()
		var ls []reconcile.Lease
		ls, err = s.sqliteLease(ctx, tok, clock+int64(ttl), s.q.leaseOrder, tok, clock, int64(ttl), orderID, clock)
		if err == nil && len(ls) == 0 {
			err = sql.ErrNoRows
		} else if err == nil {
			l = ls[0]
		}
	}
	switch {
	case err == nil:
		return l, nil
	case isLockNotAvailable(err):
		return reconcile.Lease{}, fmt.Errorf("sqlstore: order %q: %w", orderID, reconcile.ErrLeaseHeld)
	case !errors.Is(err, sql.ErrNoRows):
		return reconcile.Lease{}, fmt.Errorf("sqlstore: leasing order %q: %w", orderID, err)
	}
	bctx, cancel := s.bound(ctx)
	defer cancel()
	// Not leased: say why.
	var due, until sql.NullInt64
	if err := s.db.QueryRowContext(bctx, s.q.orderLease, orderID).Scan(&due, &until); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return reconcile.Lease{}, fmt.Errorf("sqlstore: order %q: %w", orderID, reconcile.ErrNotTracked)
		}
		return reconcile.Lease{}, fmt.Errorf("sqlstore: leasing order %q: %w", orderID, err)
	}
	if !due.Valid {
		return reconcile.Lease{}, fmt.Errorf("sqlstore: order %q: %w", orderID, reconcile.ErrOrderDone)
	}
	return reconcile.Lease{}, fmt.Errorf("sqlstore: order %q: %w", orderID, reconcile.ErrLeaseHeld)
}

// isLockNotAvailable reports PostgreSQL's lock_not_available (55P03), the
// answer of FOR UPDATE NOWAIT on a row another transaction holds.
func isLockNotAvailable(err error) bool {
	var st interface{ SQLState() string }
	return errors.As(err, &st) && st.SQLState() == "55P03"
}

// Extend measures the lease on the store's clock; now is not used. The
// order is due at the lease's new end (or its own due time, if later).
func (s *store) Extend(ctx context.Context, l reconcile.Lease, _ time.Time, ttl time.Duration) error {
	if err := s.leased(ctx, s.db, s.q.extend, s.clockArg(), int64(ttl), l.Order.ID, token(l)); err != nil {
		return fmt.Errorf("sqlstore: extending the lease of %q: %w", l.Order.ID, err)
	}
	return nil
}

// Release gives leases back, maxBatch per statement; a lease no longer
// held is skipped.
func (s *store) Release(ctx context.Context, ls ...reconcile.Lease) error {
	for len(ls) > 0 {
		batch := ls[:min(len(ls), maxBatch)]
		ls = ls[len(batch):]
		if err := s.release(ctx, batch); err != nil {
			return fmt.Errorf("sqlstore: releasing %d leases: %w", len(batch), err)
		}
	}
	return nil
}

// release ends a batch of leases; one no longer held is left as it is.
func (s *store) release(ctx context.Context, ls []reconcile.Lease) error {
	if s.d == Postgres {
		ids, toks, dues := make([]string, len(ls)), make([]int64, len(ls)), make([]int64, len(ls))
		for i, l := range ls {
			ids[i], toks[i], dues[i] = l.Order.ID, token(l), l.Due.UnixNano()
		}
		bctx, cancel := s.bound(ctx)
		defer cancel()
		_, err := s.db.ExecContext(bctx, s.q.release, ids, toks, dues)
		return err
	}
	return s.inTx(ctx, s.q.release, func(stmt *sql.Stmt, sctx context.Context) error {
		for _, l := range ls {
			if _, err := stmt.ExecContext(sctx, l.Due.UnixNano(), l.Order.ID, token(l)); err != nil {
				return err
			}
		}
		return nil
	})
}

// inTx runs fn with query prepared in one transaction, and commits; all
// of it within the statement timeout (SQLite's batches: a transaction of
// prepared statements is its fastest way to many writes).
func (s *store) inTx(ctx context.Context, query string, fn func(*sql.Stmt, context.Context) error) error {
	bctx, cancel := s.bound(ctx)
	defer cancel()
	tx, err := s.db.BeginTx(bctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	stmt, err := tx.PrepareContext(bctx, query)
	if err != nil {
		return err
	}
	defer stmt.Close()
	if err := fn(stmt, bctx); err != nil {
		return err
	}
	return tx.Commit()
}

// nextDueRows bounds the rows NextDue walks when the first order in due
// order is held and due at now (a sweeper whose clock is ahead of the
// store's).
const nextDueRows = 512

// NextDue reads the first order in due order. A leased order is due at its
// lease's end on the store's clock (Lease, LeaseOrder and Extend move its
// due time there), so the first order's due time is the answer when it is
// free, or held and due after now; held, it is answered as now plus the
// lease's time left, as the store's clock measures it, when that is later.
// Only when the first order is held and due at now (this sweeper's clock
// is ahead of the store's) does NextDue walk the orders in due order up
// to the first one not leased. When nextDueRows orders are all leased, the
// last one's due time stands in for the rest (early, never late).
func (s *store) NextDue(ctx context.Context, now time.Time) (time.Time, bool, error) {
	next, ok, walk, err := s.nextDue(ctx, s.q.nextDue, now)
	if err == nil && walk {
		next, ok, _, err = s.nextDue(ctx, s.q.nextDueWalk, now)
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("sqlstore: next due: %w", err)
	}
	return next, ok, nil
}

// nextDue reads the orders query returns (due_ns, lease_until_ns, the
// store's clock) up to the first one not leased. walk reports that the
// first is held by a lease past its due time at now: the orders after it
// may be due sooner.
func (s *store) nextDue(ctx context.Context, query string, now time.Time) (next time.Time, ok, walk bool, err error) {
	bctx, cancel := s.bound(ctx)
	defer cancel()
	rows, err := s.db.QueryContext(bctx, query, s.clockArg())
	if err != nil {
		return time.Time{}, false, false, err
	}
	defer rows.Close()
	var (
		best, last int64
		n          int
		free       bool
	)
	for rows.Next() {
		var due, clock int64
		var until sql.NullInt64
		if err := rows.Scan(&due, &until, &clock); err != nil {
			return time.Time{}, false, false, err
		}
		at := due
		held := until.Valid && until.Int64 > clock
		if held {
			// The lease ends on the store's clock; in the sweeper's time
			// that is now plus the lease's time left.
			at = max(due, now.UnixNano()+(until.Int64-clock))
			if n == 0 {
				walk = due <= now.UnixNano()
			}
		}
		if n == 0 || at < best {
			best = at
		}
		n, last = n+1, due
		if free = !held; free || !walk {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return time.Time{}, false, false, err
	}
	if n == 0 {
		return time.Time{}, false, false, nil
	}
	if !free && n == nextDueRows && last < best {
		best = last
	}
	return time.Unix(0, best).UTC(), true, walk, nil
}
