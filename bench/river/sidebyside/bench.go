package sidebyside

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
)

// Config sets a Bench.
type Config struct {
	// RiverWorkers is the River queue's MaxWorkers; 0: RiverMaxWorkers.
	RiverWorkers int
	// Log receives River's warnings and errors; nil: discarded.
	Log io.Writer
}

// Bench runs River's burn-down and the ledger's loops on one PostgreSQL
// database: River's tables and the ledger's side by side.
type Bench struct {
	cfg        Config
	postmaster int
	pool       *pgxpool.Pool // River's, and the runs' housekeeping
	db         *sql.DB       // the ledger's, its calls counted
	calls      *Calls
	store      reconcile.Store
	logw       io.Writer
	mark       mark // the run under way's start
}

// Open connects to the database dsn (a superuser's: runs CHECKPOINT)
// whose server's postmaster is postmaster (for ReadCPU), and migrates
// River's schema and the ledger's.
func Open(ctx context.Context, dsn string, postmaster int, cfg Config) (*Bench, error) {
	if cfg.RiverWorkers == 0 {
		cfg.RiverWorkers = RiverMaxWorkers
	}
	b := &Bench{cfg: cfg, postmaster: postmaster, calls: &Calls{}, logw: cfg.Log}
	if b.logw == nil {
		b.logw = io.Discard
	}
	var err error
	if b.pool, err = pgxpool.New(ctx, dsn); err != nil {
		return nil, err
	}
	migrator, err := rivermigrate.New(riverpgxv5.New(b.pool), nil)
	if err != nil {
		b.Close()
		return nil, err
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		b.Close()
		return nil, fmt.Errorf("river's migrations: %w", err)
	}
	b.db = OpenCounted(dsn, b.calls)
	b.db.SetMaxOpenConns(8)
	b.db.SetMaxIdleConns(8)
	if b.store, err = sqlstore.New(ctx, b.db, sqlstore.Postgres, sqlstore.WithStatementTimeout(2*time.Minute)); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// Close closes the connections.
func (b *Bench) Close() {
	if b.db != nil {
		_ = b.db.Close()
	}
	if b.pool != nil {
		b.pool.Close()
	}
}

// Run is one measured run.
type Run struct {
	Kind    string        // "river", "step" (the ledger with events) or "quiet"
	N       int           // the items loaded
	Items   int           // the items done: jobs completed, orders committed
	Events  int           // the events delivered (step)
	Batches int           // the ledger's batches
	Wall    time.Duration // from the first call to the n-th item done
	CPU     CPU           // used meanwhile
	// WALSyncs is the server's WAL flushes meanwhile (pg_stat_wal's
	// wal_sync: every process's, the WAL writer's included).
	WALSyncs int64
	// Calls is the ledger's database calls meanwhile (zero for River,
	// whose driver is not counted).
	Calls  Counts
	Load   string  // the load average at the end
	Checks []Check // the counts that must hold
}

// Check is a count that must hold: ok false fails the run.
type Check struct {
	Name   string
	OK     bool
	Detail string
}

// Rate is items per second of wall time.
func (r Run) Rate() float64 { return float64(r.Items) / r.Wall.Seconds() }

// PerItem is d per item done.
func (r Run) PerItem(d time.Duration) time.Duration { return d / time.Duration(max(r.Items, 1)) }

// Failed lists the checks that failed.
func (r Run) Failed() []Check {
	var f []Check
	for _, c := range r.Checks {
		if !c.OK {
			f = append(f, c)
		}
	}
	return f
}

// mark is a run's starting point.
type mark struct {
	start time.Time
	cpu   CPU
	wal   int64
	calls Counts
}

// begin starts measuring a run of kind over n items.
func (b *Bench) begin(ctx context.Context, kind string, n int) Run {
	r := Run{Kind: kind, N: n}
	b.flushStats(ctx)
	b.mark = mark{wal: b.walSyncs(ctx), calls: b.calls.Load(), cpu: ReadCPU(b.postmaster)}
	b.mark.start = time.Now()
	return r
}

// end ends measuring r.
func (b *Bench) end(ctx context.Context, r *Run) {
	r.Wall = time.Since(b.mark.start)
	r.CPU = ReadCPU(b.postmaster).Sub(b.mark.cpu)
	r.Calls = b.calls.Load().Sub(b.mark.calls)
	r.Load = LoadAverage()
	b.flushStats(ctx)
	r.WALSyncs = b.walSyncs(ctx) - b.mark.wal
}

// settle VACUUM ANALYZEs a table just loaded and checkpoints, so that the
// run measured next starts on a table the planner knows, with every page
// visible and nothing of the load left for the checkpointer or
// autovacuum to do during the run.
func (b *Bench) settle(ctx context.Context, table string) error {
	if err := b.exec(ctx, `VACUUM ANALYZE `+table); err != nil {
		return err
	}
	return b.exec(ctx, `CHECKPOINT`)
}

func (b *Bench) exec(ctx context.Context, q string) error {
	if _, err := b.pool.Exec(ctx, q); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return nil
}

// flushStats makes the ledger's idle connections report their statistics
// (the server's backends report them at most once a second otherwise), so
// that pg_stat_wal counts what they did.
func (b *Bench) flushStats(ctx context.Context) {
	conns := make([]*sql.Conn, 0, 8)
	for range 8 {
		c, err := b.db.Conn(ctx)
		if err != nil {
			break
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		_, _ = c.ExecContext(ctx, `SELECT pg_stat_force_next_flush()`)
		_, _ = c.ExecContext(ctx, `SELECT 1`)
		_ = c.Close()
	}
	idle := b.pool.AcquireAllIdle(ctx)
	for _, c := range idle {
		_, _ = c.Exec(ctx, `SELECT pg_stat_force_next_flush()`)
		_, _ = c.Exec(ctx, `SELECT 1`)
		c.Release()
	}
}

// walSyncs is the server's WAL flushes so far: pg_stat_wal's wal_sync up
// to PostgreSQL 17, pg_stat_io's WAL fsyncs from 18; -1 when neither can
// be read.
func (b *Bench) walSyncs(ctx context.Context) int64 {
	var n int64
	err := b.pool.QueryRow(ctx, `SELECT wal_sync FROM pg_stat_wal`).Scan(&n)
	if err == nil {
		return n
	}
	if err := b.pool.QueryRow(ctx, `SELECT coalesce(sum(fsyncs), 0)::BIGINT FROM pg_stat_io WHERE object = 'wal'`).Scan(&n); err == nil {
		return n
	}
	return -1
}
