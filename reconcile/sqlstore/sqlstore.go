// Package sqlstore is a reconcile.Store on database/sql, for PostgreSQL and
// SQLite: several sweepers, in several processes, share one database as one
// ledger; a merchant's order row and its tracking commit together
// (TrackTx), and a merchant's writes commit with the events they handle
// (Tx).
//
// # Tables
//
// The store keeps these tables, brought to the current schema by New (see
// Migrate):
//
//	upicollect_reconcile_orders      one row per tracked order: order_id, amount_paise,
//	                                 created_ns, state, due_ns (NULL: no further check),
//	                                 lease_token, lease_until_ns, checks, failures,
//	                                 updated_ns, reason
//	upicollect_reconcile_events      one row per event: order_id, result (the primary
//	                                 key: never twice), at_ns, txn_status, paid_paise,
//	                                 utr, reason, delivered_to (the consumers it was
//	                                 delivered to, each name followed by a newline)
//	upicollect_reconcile_consumers   one row per registered consumer
//	upicollect_reconcile_deliveries  one row per pending delivery of an event to a
//	                                 consumer (a delivered one leaves the table)
//	upicollect_reconcile_migrations  one row per schema migration applied
//
// Times are Unix nanoseconds. due_ns and at_ns are the sweepers' times (the
// now given to Step); lease_until_ns and updated_ns are the store's: on
// PostgreSQL the database's clock (clock_timestamp()), on SQLite this
// process's clock, unless New was given WithClock. A lease therefore
// expires at the same moment for every sweeper, whatever their clocks say.
// A leased order is due at its lease's end (due_ns = lease_until_ns, or its
// own due time if later): it leaves the range other sweepers' leases read,
// and an expired lease is simply due.
//
// # Steps
//
// A step leases due orders with one UPDATE (on PostgreSQL over SELECT …
// FOR UPDATE SKIP LOCKED, so concurrent sweepers take different orders; on
// SQLite under the database's write lock), and records a batch's outcomes
// with one CommitMany. A batch without events is one statement (on
// PostgreSQL an UPDATE … FROM unnest(arrays), on SQLite an UPDATE … FROM
// json_each), its own transaction. A batch with events is one transaction
// (up to 50 events each): the quiet outcomes are recorded and the orders
// with events locked first (on PostgreSQL one statement), then each event's
// Handler runs inside it, one at a time, then the delivered events are
// recorded with their orders' new states and pending deliveries (on
// PostgreSQL one statement), and the transaction commits. On PostgreSQL a
// lease does not wait for its WAL flush (a lease a crash loses only means
// one more check, its outcome's commit being fenced by its token), so a
// batch waits for one flush, whatever its events. Tx gives a
// handler that transaction, so a credit written through it commits with
// the event or not at all; a handler's first Tx opens a savepoint, so a
// handler that fails undoes its own writes and event only, and records the
// sweeper's retry time for its order instead (the event comes again). The
// batch's rows are locked until the commit: no other sweeper, Confirm or
// Untrack gets those orders meanwhile, however long the handlers take. A
// sweeper killed mid-step loses nothing: its transaction rolls back, and
// its leases expire on the store's clock so that another sweeper takes its
// orders.
//
// # Schema versions
//
// The schema is versioned: numbered migrations embedded in this module
// (migrations/<dialect>/NNNN_name.sql), applied in order by Migrate and
// recorded in upicollect_reconcile_migrations. New migrates before it
// returns, so the first process of a new release upgrades the database;
// processes starting together take turns (an advisory lock on PostgreSQL,
// the write lock on SQLite). A database of release 0.2.0 (its two tables,
// no version table) is upgraded in place; its leases are dropped, so stop
// 0.2.0 sweepers first. A database a newer release has migrated is refused
// (ErrSchemaTooNew) rather than misread.
//
// # Retention
//
// Orders are kept after their last check, with their events, so that
// Lookup and List can show them. Prune(ctx, before) deletes the orders with
// no further check (final, untracked, or past their late window) whose
// last change, on the store's clock, is before before, with their events,
// 5,000 orders per transaction; an order still checked is never deleted.
// Run it from a daily job, e.g. st.Prune(ctx, time.Now().AddDate(0, 0, -90))
// for 90 days of history. Prune reads the orders table to find them (no
// index on the last change: a daily job does not pay for one on every
// commit).
//
// # Storage
//
// A tracked order takes about 190 bytes on PostgreSQL (row, primary key and
// due index, 28-byte ids) as loaded. Every lease and commit leaves a dead
// row version and index entries on PostgreSQL until autovacuum reclaims
// them (no update of an order is HOT: each moves it in the due index). After
// 72 hours of a shop's mix, with its events, an order takes about 600 bytes
// on PostgreSQL and 265 on SQLite (BENCHMARKS.md has the figures).
//
// Every database call the store makes is bounded by WithStatementTimeout
// (10 s unless set): a connection that stops answering costs one call,
// not minutes.
//
// # SQLite and the write lock
//
// SQLite has one writer at a time. While a Handler runs, its batch's
// transaction holds the database's write lock (for the batch's handlers,
// one after another: keep them short, or the batch small, so that other
// writers do not wait past their busy timeout), so inside a Handler:
//   - writes through Tx(ctx) proceed (they are that transaction's);
//   - reads through the *sql.DB proceed (WAL: they see the data before
//     the event's transaction);
//   - every write through the *sql.DB — INSERT, UPDATE, DELETE, DDL, and
//     the store's own Track, Untrack, Lease, Commit of another sweeper in
//     the process — waits for the handler to return, up to the busy
//     timeout, and then fails with SQLITE_BUSY. A handler that writes
//     through the *sql.DB instead of Tx therefore blocks itself until the
//     busy timeout and fails: write through Tx. (The sweeper's own lease
//     of its next batch, made beside the batch, waits too; when it fails,
//     the sweeper leases again after the batch.)
//
// On PostgreSQL only the batch's order rows are held: writes through the
// *sql.DB to other rows proceed, and a write to one of those orders' store
// rows waits for the batch.
//
// # Drivers
//
// The store opens no database and imports no driver: open the *sql.DB with
// github.com/jackc/pgx/v5/stdlib ("pgx") or modernc.org/sqlite ("sqlite").
// SQLite needs a busy timeout, so that sweepers wait for the write lock
// instead of failing: open it with "file:shop.db?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)".
//
// This module requires no driver either: a module that imports sqlstore
// brings the one it opens (go get github.com/jackc/pgx/v5, or
// modernc.org/sqlite), and its graph carries no other. The tests that need
// a driver, and runnable examples on SQLite, are in the test-only module
// github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest.
package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
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
	// ConsumersTable holds the registered consumers (see
	// reconcile.WithConsumer).
	ConsumersTable = "upicollect_reconcile_consumers"
	// DeliveriesTable holds one row per pending delivery of an event to
	// a consumer, leased like an order; a delivered one leaves it (its
	// event records the consumer).
	DeliveriesTable = "upicollect_reconcile_deliveries"
)

// DefaultStatementTimeout bounds each database call of a store not given
// WithStatementTimeout.
const DefaultStatementTimeout = 10 * time.Second

// Option configures New.
type Option func(*config)

type config struct {
	clock   func() time.Time
	timeout time.Duration
}

// WithClock makes now the store's clock: leases expire, and Now and
// updated times read, on it instead of the database's clock (PostgreSQL)
// or the process's (SQLite). For tests in a simulated time, and for
// several processes that share such a clock; a nil now is ignored.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.clock = now
		}
	}
}

// WithStatementTimeout bounds every database call of the store (each
// statement, and a transaction's begin and commit) by d; d <= 0 keeps
// DefaultStatementTimeout. A Handler's own statements are not bounded by
// it.
func WithStatementTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// store is the reconcile.Store on db.
type store struct {
	db      *sql.DB
	d       Dialect
	q       queries
	clock   func() time.Time // nil: the database's clock (PostgreSQL)
	timeout time.Duration
}

// New returns a store on db, after bringing its tables to the current
// schema (Migrate). It checks the connection, and for SQLite that a busy
// timeout is set; a database whose schema is newer than this release
// knows is refused (ErrSchemaTooNew).
func New(ctx context.Context, db *sql.DB, d Dialect, opts ...Option) (reconcile.Store, error) {
	if db == nil {
		return nil, errors.New("sqlstore: New: nil *sql.DB")
	}
	if d != Postgres && d != SQLite {
		return nil, fmt.Errorf("sqlstore: New: unknown dialect %v", d)
	}
	c := config{timeout: DefaultStatementTimeout}
	for _, o := range opts {
		o(&c)
	}
	s := &store{db: db, d: d, q: newQueries(d), clock: c.clock, timeout: c.timeout}
	if d == SQLite {
		if s.clock == nil {
			s.clock = time.Now
		}
		var ms int
		if err := db.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&ms); err != nil {
			return nil, fmt.Errorf("sqlstore: reading SQLite's busy timeout: %w", err)
		}
		if ms <= 0 {
			return nil, errors.New(`sqlstore: SQLite without a busy timeout: sweepers would fail instead of waiting for the write lock; open it with "?_pragma=busy_timeout(10000)"`)
		}
	}
	if _, _, err := Migrate(ctx, db, d); err != nil {
		return nil, err
	}
	return s, nil
}

// bound returns ctx bounded by the statement timeout.
func (s *store) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout)
}

// clockArg is the store's time for a statement: the Go clock's, or NULL
// on PostgreSQL without one (the statement then reads clock_timestamp()).
func (s *store) clockArg() any {
	if s.clock == nil {
		return nil
	}
	return s.clock().UnixNano()
}

// exec runs one bounded statement.
func (s *store) exec(ctx context.Context, e execer, query string, args ...any) (sql.Result, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	return e.ExecContext(ctx, query, args...)
}

// begin starts a transaction whose begin and commit are bounded: cancel
// ends it (database/sql rolls it back, and a COMMIT under way returns).
func (s *store) begin(ctx context.Context) (*sql.Tx, context.CancelFunc, error) {
	txCtx, cancel := context.WithCancel(ctx)
	t := time.AfterFunc(s.timeout, cancel)
	tx, err := s.db.BeginTx(txCtx, nil)
	if !t.Stop() || err != nil {
		cancel()
		if err == nil {
			_ = tx.Rollback()
			err = context.DeadlineExceeded
		}
		return nil, nil, err
	}
	return tx, cancel, nil
}

// commit commits tx within the statement timeout (cancel is begin's).
func (s *store) commit(tx *sql.Tx, cancel context.CancelFunc) error {
	t := time.AfterFunc(s.timeout, cancel)
	defer t.Stop()
	return tx.Commit()
}

func (s *store) Now(ctx context.Context) (time.Time, bool, error) {
	if s.clock != nil {
		return s.clock().UTC(), true, nil
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	var ns int64
	if err := s.db.QueryRowContext(ctx, `SELECT `+pgNow).Scan(&ns); err != nil {
		return time.Time{}, false, fmt.Errorf("sqlstore: reading the database's clock: %w", err)
	}
	return time.Unix(0, ns).UTC(), true, nil
}

// errNoSuchID answers an id no order can have (reconcile.Trackable refuses
// it: a NUL byte, invalid UTF-8, too long), before any I/O: PostgreSQL
// would refuse the first two as text, and nothing holds the others. The id
// is not quoted: it may be a megabyte long.
var errNoSuchID = fmt.Errorf("sqlstore: an id no order can have: %w", reconcile.ErrNotTracked)

func (s *store) Track(ctx context.Context, o reconcile.Order, due time.Time) error {
	return s.track(ctx, s.db, o, due)
}

func (s *store) TrackTx(ctx context.Context, tx *sql.Tx, o reconcile.Order, due time.Time) error {
	if tx == nil {
		return errors.New("sqlstore: TrackTx: nil *sql.Tx")
	}
	return s.track(ctx, tx, o, due)
}

// querier is what a statement runs on: the database or a transaction.
type querier interface {
	execer
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (s *store) track(ctx context.Context, q querier, o reconcile.Order, due time.Time) error {
	if !reconcile.Trackable(o.ID) {
		return upicollect.ValidateOrderID("sqlstore.Track", o.ID)
	}
	res, err := s.exec(ctx, q, s.q.track, o.ID, o.Amount.Paise(), o.Created.UnixNano(), string(reconcile.Pending), due.UnixNano(), s.clockArg())
	if err != nil {
		return fmt.Errorf("sqlstore: tracking %q: %w", o.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	// Tracked already: the same amount is the same order.
	bctx, cancel := s.bound(ctx)
	defer cancel()
	var paise int64
	if err := q.QueryRowContext(bctx, s.q.amount, o.ID).Scan(&paise); err != nil {
		return fmt.Errorf("sqlstore: tracking %q: %w", o.ID, err)
	}
	if paise != o.Amount.Paise() {
		return fmt.Errorf("sqlstore: tracking %q for %v: %w", o.ID, o.Amount, reconcile.ErrTrackedDifferently)
	}
	return nil
}

// newToken returns a random positive lease token.
func newToken() (int64, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, fmt.Errorf("sqlstore: lease token: %w", err)
	}
	return int64(binary.LittleEndian.Uint64(b[:])>>1) | 1, nil
}

// token reads a lease's token back; a token no lease of this store has
// carried is 0 (it matches no row: the lease is lost).
func token(l reconcile.Lease) int64 {
	t, err := strconv.ParseInt(l.Token, 36, 64)
	if err != nil {
		return 0
	}
	return t
}

// formatToken is a token as a Lease carries it.
func formatToken(t int64) string { return strconv.FormatInt(t, 36) }

// fromNS is a time in Unix ns as a UTC time; zero for NULL.
func fromNS(ns sql.NullInt64) time.Time {
	if !ns.Valid {
		return time.Time{}
	}
	return time.Unix(0, ns.Int64).UTC()
}

// execer runs a statement: the database or a transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// leased runs an UPDATE that holds only under a lease, and reports
// ErrLeaseLost when it changed nothing.
func (s *store) leased(ctx context.Context, e execer, query string, args ...any) error {
	res, err := s.exec(ctx, e, query, args...)
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

// txKey is the context key of the transaction a handler runs in: its
// *handlerTx.
type txKey struct{}

// handlerTx is the transaction one handler runs in. With savepoint set
// (several handlers in one transaction), Tx opens a savepoint on its first
// call, so that a handler that fails undoes its own writes only; a handler
// that never calls Tx costs no statement.
type handlerTx struct {
	tx        *sql.Tx
	savepoint bool
	once      sync.Once
	used      bool  // the savepoint was opened
	err       error // opening it failed: the transaction is not the handler's to use
}

// Tx returns, inside a reconcile.Handler called by a sweeper (Step or
// Confirm) on this store, the transaction that records the event: write
// the merchant's side of it (a credit, an order's new status) through it,
// and it commits with the event, once, or not at all. Tx returns nil
// anywhere else: outside a Handler, and inside a Handler of a sweeper on
// another store (the memory store has no transaction). Do not commit or
// roll it back, and do not keep it after the Handler returns; on SQLite,
// do not write through the *sql.DB while it is open (see the package doc:
// that waits for the transaction, which waits for the handler).
//
// The transaction records a whole batch's events: what a handler writes
// through it is under a savepoint of its own, undone when the handler
// returns an error (or panics) and kept otherwise. A statement of the
// handler's that fails on PostgreSQL fails the transaction: return its
// error, so that only this event is retried.
func Tx(ctx context.Context) *sql.Tx {
	h, _ := ctx.Value(txKey{}).(*handlerTx)
	if h == nil {
		return nil
	}
	h.once.Do(func() {
		if h.savepoint {
			_, h.err = h.tx.ExecContext(ctx, `SAVEPOINT `+savepoint)
			h.used = h.err == nil
		}
	})
	return h.tx
}
