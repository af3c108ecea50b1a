package drivertest_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
	"github.com/upicollect/upicollect-go/sandbox"
)

// holeProxy forwards loopback TCP connections to a server until it is
// switched to swallow: then every byte either way is read and dropped,
// and connections stay open, as behind a dead route.
type holeProxy struct {
	ln      net.Listener
	target  string
	swallow atomic.Bool
	mu      sync.Mutex
	conns   []net.Conn
}

func startHoleProxy(t *testing.T, target string) *holeProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &holeProxy{ln: ln, target: target}
	go p.serve()
	t.Cleanup(p.close)
	return p
}

func (p *holeProxy) addr() string { return p.ln.Addr().String() }

func (p *holeProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go p.pipe(up, c)
		go p.pipe(c, up)
	}
}

// pipe copies from src to dst, dropping what it reads while swallowing.
func (p *holeProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.swallow.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return
			}
			dst.Close()
			return
		}
	}
}

func (p *holeProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// holeStore is a PostgreSQL store on a database of its own reached through a
// hole proxy, with the statement timeout given: the store, its *sql.DB, a
// direct connection to the same database, and the proxy.
func holeStore(t *testing.T, timeout time.Duration) (reconcile.Store, *sql.DB, *sql.DB, *holeProxy) {
	t.Helper()
	srv := needPostgres(t)
	dsn, direct := newPostgresDB(t)
	name := dsn[strings.LastIndex(dsn, "/")+1 : strings.Index(dsn, "?")]
	p := startHoleProxy(t, srv.Addr())
	db, err := sql.Open("pgx", "postgres://postgres@"+p.addr()+"/"+name+"?sslmode=disable")
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	st, err := sqlstore.New(testCtx(t), db, sqlstore.Postgres, sqlstore.WithStatementTimeout(timeout))
	require.NoError(t, err)
	return st, db, direct, p
}

// TestBlackHoledDatabaseCostsOneCall runs a PostgreSQL store through a
// proxy that the test switches to swallow all traffic, with a statement
// timeout of 300 ms: every store call a step makes, started before or
// during the black hole (a lease, a commit whose COMMIT is swallowed after
// the handler ran, a batch commit, the clock, next due), ends with the
// deadline's error instead of waiting for TCP; when the route comes back
// the store works again on fresh connections. It prints the longest call.
func TestBlackHoledDatabaseCostsOneCall(t *testing.T) {
	ctx := testCtx(t)
	st, db, direct, p := holeStore(t, 300*time.Millisecond)
	for i := range 10 {
		require.NoError(t, st.Track(ctx, ord(i), t0))
	}
	ls, err := st.Lease(ctx, t0, 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, ls, 10)

	// Idle connections open before the black hole: the first calls in it
	// run on them (their statement is swallowed), the later ones dial
	// (their connection's handshake is swallowed).
	db.SetMaxIdleConns(8)
	var open []*sql.Conn
	for range 4 {
		c, err := db.Conn(ctx)
		require.NoError(t, err)
		require.NoError(t, c.PingContext(ctx))
		open = append(open, c)
	}
	for _, c := range open {
		require.NoError(t, c.Close())
	}

	var longest time.Duration
	calls := 0
	timed := func(what string, fn func() error) {
		t.Helper()
		start := time.Now()
		err := fn()
		d := time.Since(start)
		longest = max(longest, d)
		calls++
		require.Error(t, err, what)
		assert.True(t, errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "timeout"),
			"%s: %v", what, err)
		t.Logf("black hole: %s returned after %v: %v", what, d.Round(time.Millisecond), err)
	}

	// The COMMIT of an event's transaction is swallowed: the handler ran,
	// its transaction's end is bounded.
	timed("Commit with an event", func() error {
		return st.Commit(ctx, ls[0], reconcile.Update{State: reconcile.Paid, Checked: true,
			Event: &reconcile.Event{Order: ls[0].Order, Result: reconcile.Paid, At: t0}}, func(context.Context) error {
			p.swallow.Store(true)
			return nil
		})
	})
	timed("Lease", func() error { _, err := st.Lease(ctx, t0, 10, time.Minute); return err })
	timed("CommitMany", func() error {
		_, err := st.CommitMany(ctx, []reconcile.LeasedUpdate{{Lease: ls[1], Update: reconcile.Update{State: reconcile.Pending, Next: t0.Add(time.Hour)}}}, nil)
		return err
	})
	timed("Commit", func() error {
		return st.Commit(ctx, ls[2], reconcile.Update{State: reconcile.Pending, Next: t0.Add(time.Hour)}, nil)
	})
	timed("Release", func() error { return st.Release(ctx, ls[3:]...) })
	timed("NextDue", func() error { _, _, err := st.NextDue(ctx, t0); return err })
	timed("Now", func() error { _, _, err := st.Now(ctx); return err })
	timed("LeaseOrder", func() error { _, err := st.LeaseOrder(ctx, ord(4).ID, t0, time.Minute); return err })
	timed("Track", func() error { return st.Track(ctx, ord(99), t0) })
	timed("Lookup", func() error { _, err := st.Lookup(ctx, ord(4).ID); return err })
	// A sweeper's step on the store: its first database call fails, and so
	// does the step, at once.
	sb := sandbox.Start(t)
	c := sb.Client()
	defer c.CloseIdleConnections()
	sw, err := reconcile.New(c, st, func(context.Context, reconcile.Event) error { return nil })
	require.NoError(t, err)
	var longestStep time.Duration
	for range 3 {
		timed("Step", func() error {
			start := time.Now()
			_, err := sw.Step(ctx, t0.Add(time.Hour))
			longestStep = max(longestStep, time.Since(start))
			return err
		})
	}

	// The route comes back: the broken connections are dropped, new ones
	// work, and the leases held are still the store's to give back.
	p.swallow.Store(false)
	require.NoError(t, st.Release(ctx, ls[3:]...))
	var events int
	require.NoError(t, direct.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+sqlstore.EventsTable).Scan(&events))
	t.Logf("black hole: %d store calls and sweeper steps, each ended by the 300 ms statement timeout; longest call %v, longest step %v; the swallowed COMMIT left %d event rows",
		calls, longest.Round(time.Millisecond), longestStep.Round(time.Millisecond), events)
	assert.Equal(t, 13, calls)
	assert.Zero(t, events, "the COMMIT never arrived")
}

// TestStepEndsWithItsContextInABlackHole: a step whose context has a
// deadline, on a store whose statement timeout is longer than the black
// hole, returns with the context while the hole still swallows everything:
// it never waits for the database beyond its context (the leases it held
// are given back once the route is back, or expire after their TTL), and
// the sweeper works again after it.
func TestStepEndsWithItsContextInABlackHole(t *testing.T) {
	ctx := testCtx(t)
	st, _, _, p := holeStore(t, time.Hour)
	sb := sandbox.Start(t)
	c := sb.Client()
	defer c.CloseIdleConnections()
	var delivered atomic.Int32
	sw, err := reconcile.New(c, st, func(context.Context, reconcile.Event) error { delivered.Add(1); return nil })
	require.NoError(t, err)
	for i := range 5 {
		require.NoError(t, st.Track(ctx, ord(i), t0))
	}

	p.swallow.Store(true)
	for _, tc := range []struct {
		name string
		call func(context.Context) error
	}{
		{"Step", func(ctx context.Context) error { _, err := sw.Step(ctx, t0.Add(time.Hour)); return err }},
		{"Confirm", func(ctx context.Context) error { _, err := sw.Confirm(ctx, ord(1).ID); return err }},
		{"Lookup", func(ctx context.Context) error { _, err := sw.Lookup(ctx, ord(1).ID); return err }},
	} {
		dctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		start := time.Now()
		err := tc.call(dctx)
		took := time.Since(start)
		cancel()
		require.ErrorIs(t, err, context.DeadlineExceeded, tc.name)
		assert.True(t, p.swallow.Load(), "%s returned while the database still swallowed everything", tc.name)
		t.Logf("black hole: %s with a 500 ms deadline returned after %v", tc.name, took.Round(time.Millisecond))
	}
	p.swallow.Store(false)
	stats, err := sw.Step(ctx, t0.Add(time.Hour))
	require.NoError(t, err)
	t.Logf("after the black hole: %+v", stats)
	assert.Equal(t, 5, stats.Checked+stats.Errors, "every order checked once the route is back")
}
