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
	var clockNS any
	if s.clock != nil {
		clockNS = s.clock().UnixNano()
	}
	bctx, cancel := s.bound(ctx)
	defer cancel()
	rows, err := s.db.QueryContext(bctx, s.q.leaseQuery(limit), clockNS, now.UnixNano(), tok, int64(ttl))
	if err != nil {
		return nil, fmt.Errorf("sqlstore: leasing: %w", err)
	}
	out, err := scanLeases(rows, tok)
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

// scanLeases reads the rows of orderColumns as leases under tok, and
// closes rows.
func scanLeases(rows *sql.Rows, tok int64) ([]reconcile.Lease, error) {
	defer rows.Close()
	var out []reconcile.Lease
	for rows.Next() {
		l, err := scanLease(rows.Scan, tok)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
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
func (s *store) LeaseOrder(ctx context.Context, orderID string, _ time.Time, ttl time.Duration) (reconcile.Lease, error) {
	if !reconcile.Trackable(orderID) {
		return reconcile.Lease{}, errNoSuchID
	}
	tok, err := newToken()
	if err != nil {
		return reconcile.Lease{}, err
	}
	bctx, cancel := s.bound(ctx)
	defer cancel()
	var row *sql.Row
	if s.d == Postgres {
		row = s.db.QueryRowContext(bctx, s.q.leaseOrder, s.clockArg(), orderID, tok, int64(ttl))
	} else {
		now := s.clock().UnixNano()
		row = s.db.QueryRowContext(bctx, s.q.leaseOrder, tok, now, int64(ttl), orderID, now)
	}
	l, err := scanLease(row.Scan, tok)
	switch {
	case err == nil:
		return l, nil
	case isLockNotAvailable(err):
		return reconcile.Lease{}, fmt.Errorf("sqlstore: order %q: %w", orderID, reconcile.ErrLeaseHeld)
	case !errors.Is(err, sql.ErrNoRows):
		return reconcile.Lease{}, fmt.Errorf("sqlstore: leasing order %q: %w", orderID, err)
	}
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

// Extend measures the lease on the store's clock; now is not used.
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

// nextDueRows bounds the rows NextDue reads: the leased orders due before
// the first free one (a step's batch or a few) and that one.
const nextDueRows = 512

// NextDue walks the orders in due order (the due index) up to the first
// one not leased: an order can be leased at its due time, or, while
// leased, when its lease expires if that is later: on the store's clock,
// read in the same statement, and answered in the sweeper's time as now
// plus the lease's time left. Orders after the first free one are due
// after it. When nextDueRows orders are all leased, the last one's due
// time stands in for the rest (early, never late).
func (s *store) NextDue(ctx context.Context, now time.Time) (time.Time, bool, error) {
	bctx, cancel := s.bound(ctx)
	defer cancel()
	rows, err := s.db.QueryContext(bctx, s.q.nextDue, s.clockArg())
	if err != nil {
		return time.Time{}, false, fmt.Errorf("sqlstore: next due: %w", err)
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
			return time.Time{}, false, fmt.Errorf("sqlstore: next due: %w", err)
		}
		at := due
		held := until.Valid && until.Int64 > clock
		if held {
			// The lease ends on the store's clock; in the sweeper's time
			// that is now plus the lease's time left.
			at = max(due, now.UnixNano()+(until.Int64-clock))
		}
		if n == 0 || at < best {
			best = at
		}
		n, last = n+1, due
		if free = !held; free {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return time.Time{}, false, fmt.Errorf("sqlstore: next due: %w", err)
	}
	if n == 0 {
		return time.Time{}, false, nil
	}
	if !free && n == nextDueRows && last < best {
		best = last
	}
	return time.Unix(0, best).UTC(), true, nil
}
