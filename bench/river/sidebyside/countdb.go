package sidebyside

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/jackc/pgx/v5/stdlib"
)

// Calls counts what a database handle sent to the server: every call of
// the driver that is a round trip (a statement, a prepare, a BEGIN, a
// COMMIT or a ROLLBACK), and the transactions (BEGINs, and statements run
// outside one, each its own transaction).
type Calls struct {
	roundTrips, transactions atomic.Int64
}

// Counts is a snapshot of Calls.
type Counts struct {
	RoundTrips, Transactions int64
}

// Load returns the counts so far.
func (c *Calls) Load() Counts {
	return Counts{RoundTrips: c.roundTrips.Load(), Transactions: c.transactions.Load()}
}

// Sub is c − o.
func (c Counts) Sub(o Counts) Counts {
	return Counts{RoundTrips: c.RoundTrips - o.RoundTrips, Transactions: c.Transactions - o.Transactions}
}

// OpenCounted opens dsn with pgx's database/sql driver, counting its calls
// in calls. The count is the driver's calls, not the wire's messages: pgx
// sends a statement with arguments as one round trip (parse, bind and
// execute together).
func OpenCounted(dsn string, calls *Calls) *sql.DB {
	return sql.OpenDB(countingConnector{dsn: dsn, calls: calls})
}

type countingConnector struct {
	dsn   string
	calls *Calls
}

func (c countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := stdlib.GetDefaultDriver().(driver.DriverContext).OpenConnector(c.dsn)
	if err != nil {
		return nil, err
	}
	dc, err := conn.Connect(ctx)
	if err != nil {
		return nil, err
	}
	inner, ok := dc.(pgxConn)
	if !ok {
		_ = dc.Close()
		return nil, fmt.Errorf("sidebyside: pgx's connection %T lacks a method this wrapper passes on", dc)
	}
	return &countingConn{inner: inner, calls: c.calls}, nil
}

func (c countingConnector) Driver() driver.Driver { return stdlib.GetDefaultDriver() }

// pgxConn is what pgx's database/sql connection implements and
// countingConn passes on.
type pgxConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.NamedValueChecker
	driver.SessionResetter
}

// countingConn is a pgx connection whose round trips are counted.
type countingConn struct {
	inner pgxConn
	calls *Calls
	inTx  bool
}

func (c *countingConn) trip() {
	c.calls.roundTrips.Add(1)
	if !c.inTx {
		c.calls.transactions.Add(1)
	}
}

func (c *countingConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *countingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	c.calls.roundTrips.Add(1)
	s, err := c.inner.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return &countingStmt{inner: s, conn: c}, nil
}

func (c *countingConn) Close() error { return c.inner.Close() }

func (c *countingConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	c.trip()
	tx, err := c.inner.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	c.inTx = true
	return &countingTx{inner: tx, conn: c}, nil
}

func (c *countingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	c.trip()
	return c.inner.ExecContext(ctx, query, args)
}

func (c *countingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	c.trip()
	return c.inner.QueryContext(ctx, query, args)
}

func (c *countingConn) Ping(ctx context.Context) error { return c.inner.Ping(ctx) }

func (c *countingConn) CheckNamedValue(v *driver.NamedValue) error { return c.inner.CheckNamedValue(v) }

func (c *countingConn) ResetSession(ctx context.Context) error { return c.inner.ResetSession(ctx) }

func (c *countingConn) IsValid() bool {
	v, ok := c.inner.(driver.Validator)
	return !ok || v.IsValid()
}

type countingTx struct {
	inner driver.Tx
	conn  *countingConn
}

func (t *countingTx) Commit() error {
	t.conn.calls.roundTrips.Add(1)
	t.conn.inTx = false
	return t.inner.Commit()
}

func (t *countingTx) Rollback() error {
	t.conn.calls.roundTrips.Add(1)
	t.conn.inTx = false
	return t.inner.Rollback()
}

type countingStmt struct {
	inner driver.Stmt
	conn  *countingConn
}

func (s *countingStmt) Close() error  { return s.inner.Close() }
func (s *countingStmt) NumInput() int { return s.inner.NumInput() }

func (s *countingStmt) Exec(args []driver.Value) (driver.Result, error) {
	return nil, errors.New("sidebyside: Stmt.Exec without a context")
}

func (s *countingStmt) Query(args []driver.Value) (driver.Rows, error) {
	return nil, errors.New("sidebyside: Stmt.Query without a context")
}

func (s *countingStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.conn.trip()
	return s.inner.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (s *countingStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.conn.trip()
	return s.inner.(driver.StmtQueryContext).QueryContext(ctx, args)
}
