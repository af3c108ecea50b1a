// Package sqlstore is a reconcile.Store on database/sql, for PostgreSQL and
// SQLite: several sweepers, in several processes, share one database, and a
// merchant's own writes commit with the events they handle.
//
// The store keeps two tables, created by New when missing:
//
//	upicollect_reconcile_orders  one row per tracked order: order_id, amount_paise,
//	                             created_ns, state, due_ns (NULL when done),
//	                             lease_token, lease_until_ns (times in Unix ns)
//	upicollect_reconcile_events  one row per event: order_id, result (the
//	                             primary key: never twice), at_ns, txn_status,
//	                             paid_paise, utr, reason
//
// A step leases due orders with one UPDATE (on PostgreSQL over SELECT … FOR
// UPDATE SKIP LOCKED, so concurrent sweepers take different orders; on
// SQLite under the database's write lock). An event is recorded in one
// transaction with its order's new state, and the Handler runs inside it:
// Tx gives the handler that transaction, so a credit written through it
// commits with the event or not at all. A handler's error rolls both back;
// the event comes again at the next step. A sweeper killed mid-step loses
// nothing: its transaction rolls back, and its leases expire (after
// reconcile.WithLeaseTTL) so that another sweeper takes its orders.
//
// The store opens no database and imports no driver: open the *sql.DB with
// github.com/jackc/pgx/v5/stdlib ("pgx") or modernc.org/sqlite ("sqlite").
// SQLite needs a busy timeout, so that sweepers wait for the write lock
// instead of failing: open it with "file:shop.db?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)".
package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

// Dialect names the SQL database behind a *sql.DB.
type Dialect int

// The dialects New accepts.
const (
	Postgres Dialect = iota + 1 // PostgreSQL 12 or later
	SQLite                      // SQLite 3.35 or later
)

// String names the database: "PostgreSQL" or "SQLite".
func (d Dialect) String() string {
	switch d {
	case Postgres:
		return "PostgreSQL"
	case SQLite:
		return "SQLite"
	}
	return "Dialect(" + strconv.Itoa(int(d)) + ")"
}

// The tables the store keeps.
const (
	OrdersTable = "upicollect_reconcile_orders"
	EventsTable = "upicollect_reconcile_events"
)

// store is the reconcile.Store on db.
type store struct {
	db *sql.DB
	d  Dialect
	q  queries
}

// New returns a store on db, creating its tables when missing. It checks
// the connection, and for SQLite that a busy timeout is set.
func New(ctx context.Context, db *sql.DB, d Dialect) (reconcile.Store, error) {
	if db == nil {
		return nil, errors.New("sqlstore: New: nil *sql.DB")
	}
	if d != Postgres && d != SQLite {
		return nil, fmt.Errorf("sqlstore: New: unknown dialect %v", d)
	}
	s := &store{db: db, d: d, q: newQueries(d)}
	if d == SQLite {
		var ms int
		if err := db.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&ms); err != nil {
			return nil, fmt.Errorf("sqlstore: reading SQLite's busy timeout: %w", err)
		}
		if ms <= 0 {
			return nil, errors.New(`sqlstore: SQLite without a busy timeout: sweepers would fail instead of waiting for the write lock; open it with "?_pragma=busy_timeout(10000)"`)
		}
	}
	if err := s.migrate(ctx); err != nil {
		return nil, fmt.Errorf("sqlstore: creating the tables: %w", err)
	}
	return s, nil
}

// schema creates the tables and their indexes; types and syntax common to
// both dialects.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS ` + OrdersTable + ` (
		order_id       TEXT PRIMARY KEY,
		amount_paise   BIGINT NOT NULL,
		created_ns     BIGINT NOT NULL,
		state          TEXT NOT NULL,
		due_ns         BIGINT,
		lease_token    TEXT,
		lease_until_ns BIGINT
	)`,
	`CREATE INDEX IF NOT EXISTS ` + OrdersTable + `_due ON ` + OrdersTable + ` (due_ns) WHERE due_ns IS NOT NULL`,
	`CREATE INDEX IF NOT EXISTS ` + OrdersTable + `_lease ON ` + OrdersTable + ` (lease_until_ns) WHERE lease_token IS NOT NULL`,
	`CREATE TABLE IF NOT EXISTS ` + EventsTable + ` (
		order_id   TEXT NOT NULL,
		result     TEXT NOT NULL,
		at_ns      BIGINT NOT NULL,
		txn_status TEXT NOT NULL,
		paid_paise BIGINT NOT NULL,
		utr        TEXT NOT NULL,
		reason     TEXT NOT NULL,
		PRIMARY KEY (order_id, result)
	)`,
}

// migrate creates what is missing. On PostgreSQL, concurrent CREATE ... IF
// NOT EXISTS can still collide, so sweepers starting together take turns
// under an advisory lock.
func (s *store) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if s.d == Postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7312001)`); err != nil {
			return err
		}
	}
	for _, stmt := range schema {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// queries are the statements in the dialect's placeholders.
type queries struct {
	track, lease, commit, release, unlease, event, nextDue, nextLease string
}

func newQueries(d Dialect) queries {
	skipLocked := ""
	if d == Postgres {
		skipLocked = " FOR UPDATE SKIP LOCKED"
	}
	q := queries{
		track: `INSERT INTO ` + OrdersTable + ` (order_id, amount_paise, created_ns, state, due_ns) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (order_id) DO NOTHING`,
		lease: `UPDATE ` + OrdersTable + ` SET lease_token = ?, lease_until_ns = ?
			WHERE order_id IN (SELECT order_id FROM ` + OrdersTable + `
				WHERE due_ns IS NOT NULL AND due_ns <= ? AND (lease_token IS NULL OR lease_until_ns <= ?)
				ORDER BY due_ns LIMIT ?` + skipLocked + `)
			RETURNING order_id, amount_paise, created_ns, state, due_ns`,
		commit: `UPDATE ` + OrdersTable + ` SET state = ?, due_ns = ?, lease_token = NULL, lease_until_ns = NULL
			WHERE order_id = ? AND lease_token = ?`,
		release: `UPDATE ` + OrdersTable + ` SET due_ns = ?, lease_token = NULL, lease_until_ns = NULL
			WHERE order_id = ? AND lease_token = ?`,
		unlease: `UPDATE ` + OrdersTable + ` SET lease_token = NULL, lease_until_ns = NULL
			WHERE order_id = ? AND lease_token = ?`,
		event: `INSERT INTO ` + EventsTable + ` (order_id, result, at_ns, txn_status, paid_paise, utr, reason)
			VALUES (?, ?, ?, ?, ?, ?, ?)`,
		nextDue:   `SELECT MIN(due_ns) FROM ` + OrdersTable + ` WHERE due_ns IS NOT NULL AND lease_token IS NULL`,
		nextLease: `SELECT MIN(lease_until_ns) FROM ` + OrdersTable + ` WHERE lease_token IS NOT NULL AND due_ns IS NOT NULL`,
	}
	if d == Postgres {
		for _, p := range []*string{&q.track, &q.lease, &q.commit, &q.release, &q.unlease, &q.event, &q.nextDue, &q.nextLease} {
			*p = numbered(*p)
		}
	}
	return q
}

// numbered rewrites ? placeholders as PostgreSQL's $1, $2, ... (the
// statements hold no other question mark).
func numbered(q string) string {
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (s *store) Track(ctx context.Context, o reconcile.Order, due time.Time) error {
	_, err := s.db.ExecContext(ctx, s.q.track, o.ID, o.Amount.Paise(), o.Created.UnixNano(), string(reconcile.StatePending), due.UnixNano())
	if err != nil {
		return fmt.Errorf("sqlstore: tracking %q: %w", o.ID, err)
	}
	return nil
}

func (s *store) Lease(ctx context.Context, now time.Time, limit int, until time.Time) ([]reconcile.Lease, error) {
	token, err := newToken()
	if err != nil {
		return nil, err
	}
	n := now.UnixNano()
	rows, err := s.db.QueryContext(ctx, s.q.lease, token, until.UnixNano(), n, n, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: leasing: %w", err)
	}
	defer rows.Close()
	var out []reconcile.Lease
	for rows.Next() {
		var (
			l                     reconcile.Lease
			paise, created, dueNS int64
			state                 string
		)
		if err := rows.Scan(&l.Order.ID, &paise, &created, &state, &dueNS); err != nil {
			return nil, fmt.Errorf("sqlstore: leasing: %w", err)
		}
		l.Order.Amount, l.Order.Created = upicollect.Money(paise), time.Unix(0, created).UTC()
		l.State, l.Due, l.Token = reconcile.State(state), time.Unix(0, dueNS).UTC(), token
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
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

// newToken returns a random lease token.
func newToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("sqlstore: lease token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// nullTime is t in Unix ns, or NULL for the zero time.
func nullTime(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixNano(), Valid: true}
}

// execer is what a statement runs on: the database or a transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// leased runs an UPDATE that holds only under l's lease, and reports
// ErrLeaseLost when it changed nothing.
func leased(ctx context.Context, e execer, query string, args ...any) error {
	res, err := e.ExecContext(ctx, query, args...)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		return reconcile.ErrLeaseLost
	}
	return nil
}

func (s *store) Commit(ctx context.Context, l reconcile.Lease, u reconcile.Update, deliver func(context.Context) error) error {
	args := []any{string(u.State), nullTime(u.Next), l.Order.ID, l.Token}
	if u.Event == nil {
		if err := leased(ctx, s.db, s.q.commit, args...); err != nil {
			return fmt.Errorf("sqlstore: order %q: %w", l.Order.ID, err)
		}
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlstore: order %q: %w", l.Order.ID, err)
	}
	defer func() { _ = tx.Rollback() }() // after Commit, a no-op
	// The lease is checked and the row locked first: from here until the
	// commit no other sweeper can lease the order.
	if err := leased(ctx, tx, s.q.commit, args...); err != nil {
		return fmt.Errorf("sqlstore: order %q: %w", l.Order.ID, err)
	}
	if _, err := tx.ExecContext(ctx, s.q.event, eventArgs(u.Event)...); err != nil {
		return fmt.Errorf("sqlstore: order %q: recording %s: %w", l.Order.ID, u.Event.Result, err)
	}
	if deliver != nil {
		if err := deliver(context.WithValue(ctx, txKey{}, tx)); err != nil {
			_ = tx.Rollback()
			// The order stays due as it was; only the lease ends, so that the
			// next step delivers the event again.
			if uerr := leased(context.WithoutCancel(ctx), s.db, s.q.unlease, l.Order.ID, l.Token); uerr != nil && !errors.Is(uerr, reconcile.ErrLeaseLost) {
				return errors.Join(err, fmt.Errorf("sqlstore: order %q: ending the lease: %w", l.Order.ID, uerr))
			}
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlstore: order %q: committing %s: %w", l.Order.ID, u.Event.Result, err)
	}
	return nil
}

func eventArgs(e *reconcile.Event) []any {
	var txn, utr string
	var paid int64
	if e.Status != nil {
		txn, utr, paid = string(e.Status.TxnStatus), e.Status.UTR, e.Status.Amount.Paise()
	}
	return []any{e.Order.ID, string(e.Result), e.At.UnixNano(), txn, paid, utr, e.Reason}
}

func (s *store) Release(ctx context.Context, l reconcile.Lease, due time.Time) error {
	if err := leased(ctx, s.db, s.q.release, due.UnixNano(), l.Order.ID, l.Token); err != nil {
		return fmt.Errorf("sqlstore: order %q: %w", l.Order.ID, err)
	}
	return nil
}

func (s *store) NextDue(ctx context.Context) (time.Time, bool, error) {
	var due, lease sql.NullInt64
	if err := s.db.QueryRowContext(ctx, s.q.nextDue).Scan(&due); err != nil {
		return time.Time{}, false, fmt.Errorf("sqlstore: next due: %w", err)
	}
	if err := s.db.QueryRowContext(ctx, s.q.nextLease).Scan(&lease); err != nil {
		return time.Time{}, false, fmt.Errorf("sqlstore: next lease expiry: %w", err)
	}
	switch {
	case !due.Valid && !lease.Valid:
		return time.Time{}, false, nil
	case !lease.Valid || (due.Valid && due.Int64 <= lease.Int64):
		return time.Unix(0, due.Int64).UTC(), true, nil
	}
	return time.Unix(0, lease.Int64).UTC(), true, nil
}

// txKey is the context key of the transaction a handler runs in.
type txKey struct{}

// Tx returns, inside a reconcile.Handler called by a sweeper on this
// store, the transaction that records the event: write the merchant's side
// of it (a credit, an order's new status) through it, and it commits with
// the event, once, or not at all. Tx returns nil elsewhere. Do not commit
// or roll it back; and do not write the same rows through the *sql.DB
// while it is open (that waits for the transaction, which waits for the
// handler).
func Tx(ctx context.Context) *sql.Tx {
	tx, _ := ctx.Value(txKey{}).(*sql.Tx)
	return tx
}
