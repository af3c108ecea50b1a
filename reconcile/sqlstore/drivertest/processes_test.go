package drivertest_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/reconciletest"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
	"github.com/upicollect/upicollect-go/sandbox"
)

// mixOrders is the size of the mix TestThreeSweeperProcesses runs. CI runs
// it once with the 10,000 (without -race) and with the default in
// the -race run of every test.
var mixOrders = flag.Int("mix-orders", 0, "orders in TestThreeSweeperProcesses' mix (default 1000; 300 under -race)")

// The child's side of TestThreeSweeperProcesses, configured by these
// variables; without them TestSweeperProcess skips.
const (
	envDSN     = "SQLSTORE_CHILD_DSN"
	envURL     = "SQLSTORE_CHILD_BASE_URL"
	envMID     = "SQLSTORE_CHILD_MID"
	envPublic  = "SQLSTORE_CHILD_PUBLIC_KEY"
	envSecret  = "SQLSTORE_CHILD_SECRET_KEY"
	envName    = "SQLSTORE_CHILD_NAME"
	envStallAt = "SQLSTORE_CHILD_STALL_AT" // stall in the handler of this event (1-based)
	// envConsumer is the child's consumer (reconcile.WithConsumer); its
	// credits are then written as "<consumer>/<name>".
	envConsumer = "SQLSTORE_CHILD_CONSUMER"
)

// leaseTTL is the sweeper processes' lease, in sandbox time: the orders
// leased by the killed process wait that long for another.
const leaseTTL = 30 * time.Second

// creditsWithTime is the credits table of the process test: with the
// event's time, to measure how soon payments were reported.
const creditsWithTime = `CREATE TABLE credits (order_id TEXT NOT NULL, result TEXT NOT NULL, sweeper TEXT NOT NULL, at_ns BIGINT NOT NULL)`

// TestThreeSweeperProcesses runs the mix through three sweeper
// processes (this test binary, run again as TestSweeperProcess) on one
// PostgreSQL, in sandbox time the test walks: every round, each process
// steps at the same sandbox time, competing for leases. One process is
// killed with SIGKILL in the middle of a step, inside a handler, with an
// open transaction and a batch of leases. Every order must reach its final
// state, with no event handled twice and none lost: the handlers' credits
// (written through sqlstore.Tx into a table with no unique key) are the
// proof.
func TestThreeSweeperProcesses(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	pl := newProcessLedger(t, ctx)
	n, dsn, db, clk, sb, c, tracker := pl.n, pl.dsn, pl.db, pl.clk, pl.sb, pl.c, pl.tracker
	var err error
	require.NoError(t, err)
	plan := reconciletest.Plan(n, t0, 99)
	require.NoError(t, reconciletest.Create(ctx, c, sb, clk, plan, func(o reconcile.Order) error { return tracker.Track(ctx, o) }))

	creds := sb.Credentials()
	stallAt := max(n/50, 3) // early in the run: the victim holds a batch of leases
	var children []*child
	for i, name := range []string{"a", "b", "victim"} {
		env := []string{envDSN + "=" + dsn, envURL + "=" + sb.URL(), envMID + "=" + creds.MID, envPublic + "=" + creds.PublicKey, envSecret + "=" + creds.SecretKey, envName + "=" + name}
		if i == 2 {
			env = append(env, envStallAt+"="+strconv.Itoa(stallAt))
		}
		children = append(children, startChild(t, name, env))
	}
	var (
		sum      reconcile.Stats
		rounds   int
		killedAt time.Time
		stalled  string
	)
	_, _, err = reconciletest.Walk(ctx, clk, t0.Add(100*time.Hour), func(ctx context.Context, now time.Time) (reconcile.Stats, error) {
		if rounds++; rounds%500 == 0 {
			t.Logf("round %d at sandbox %v: %d checks so far", rounds, now.Sub(t0), sum.Checked)
		}
		var round reconcile.Stats
		for _, ch := range children {
			if !ch.dead {
				ch.send(t, "step "+strconv.FormatInt(now.UnixNano(), 10))
			}
		}
		for _, ch := range children {
			if ch.dead {
				continue
			}
			reply, err := ch.reply(ctx)
			if err != nil {
				return round, err
			}
			if id, ok := strings.CutPrefix(reply, "stalled "); ok {
				// Mid-step, inside a handler, its transaction open: kill it.
				stalled, killedAt = id, now
				ch.kill(t)
				continue
			}
			var s reconcile.Stats
			if err := json.Unmarshal([]byte(strings.TrimPrefix(reply, "done ")), &s); err != nil {
				return round, fmt.Errorf("sweeper %s: %q: %w", ch.name, reply, err)
			}
			reconciletest.Add(&round, s)
			if round.NextDue.IsZero() || (!s.NextDue.IsZero() && s.NextDue.Before(round.NextDue)) {
				round.NextDue = s.NextDue
			}
		}
		reconciletest.Add(&sum, round)
		return round, nil
	})
	require.NoError(t, err)
	for _, ch := range children {
		ch.stop(t)
	}
	require.NotEmpty(t, stalled, "the victim never stalled: no process was killed mid-step")

	deliveries, bySweeper, sweepersOf := readCredits(t, db)
	r := reconciletest.Check(plan, deliveries)
	var eventRows int
	require.NoError(t, db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+sqlstore.EventsTable).Scan(&eventRows))
	var unfinished int
	require.NoError(t, db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+sqlstore.OrdersTable+` WHERE due_ns IS NOT NULL`).Scan(&unfinished))
	assert.Zero(t, sum.Errors, "failed checks or handlers")
	t.Logf("%d orders, 3 sweeper processes on one PostgreSQL, %q killed (SIGKILL) at sandbox %v inside the handler of %s: "+
		"%d rounds, %d checks (%.2f an order), %d events handled (%v), by sweeper %v; twice %d, lost %d, wrong %d; "+
		"%d payments of the first 15 min reported at most %v after",
		n, "victim", killedAt.Sub(t0), stalled, rounds, sum.Checked, float64(sum.Checked)/float64(n), r.Events, r.ByResult, bySweeper,
		r.Twice, r.Lost, r.Wrong, r.EarlyPaid, r.MaxDelay)
	assert.Zero(t, r.Twice, "%v", r.Problems)
	assert.Zero(t, r.Lost, "%v", r.Problems)
	assert.Zero(t, r.Wrong, "%v", r.Problems)
	// A payment is reported within 30 s, or, when its order was leased by
	// the process killed, 30 s after that lease expired.
	assert.LessOrEqual(t, r.MaxDelay, 30*time.Second+leaseTTL)
	assert.Equal(t, r.Events, eventRows, "one event row per credit")
	assert.Zero(t, unfinished, "every order reached its end")
	// The victim's credits before the stalled one committed, but for
	// those of the stalled batch (at most 49 before it: 50 events a
	// transaction), rolled back with it and credited by the others.
	assert.LessOrEqual(t, bySweeper["victim"], stallAt-1, "the victim's stalled batch was rolled back with its transaction")
	assert.Greater(t, bySweeper["victim"], stallAt-1-50, "the victim's earlier batches committed")
	assert.NotContains(t, sweepersOf[stalled], "victim", "the stalled order was credited by another sweeper")
	assert.NotEmpty(t, sweepersOf[stalled])
}

// readCredits returns the credits as deliveries, how many each sweeper
// wrote, and which sweepers credited each order.
func readCredits(t *testing.T, db *sql.DB) ([]reconciletest.Delivery, map[string]int, map[string][]string) {
	t.Helper()
	rows, err := db.Query(`SELECT order_id, result, sweeper, at_ns FROM credits`)
	require.NoError(t, err)
	defer rows.Close()
	var out []reconciletest.Delivery
	by, of := map[string]int{}, map[string][]string{}
	for rows.Next() {
		var (
			d       reconciletest.Delivery
			sweeper string
			at      int64
		)
		require.NoError(t, rows.Scan(&d.OrderID, &d.Result, &sweeper, &at))
		d.At = time.Unix(0, at).UTC()
		by[sweeper]++
		of[d.OrderID] = append(of[d.OrderID], sweeper)
		out = append(out, d)
	}
	require.NoError(t, rows.Err())
	return out, by, of
}

// child is a sweeper process: this test binary running TestSweeperProcess.
type child struct {
	name    string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan string
	stderr  strings.Builder
	dead    bool
	stopped atomic.Bool
}

func startChild(t *testing.T, name string, env []string) *child {
	t.Helper()
	ch := &child{name: name, lines: make(chan string, 16)}
	ch.cmd = exec.Command(os.Args[0], "-test.run=^TestSweeperProcess$", "-test.count=1")
	ch.cmd.Env = append(os.Environ(), env...)
	ch.cmd.Stderr = &ch.stderr
	var err error
	ch.stdin, err = ch.cmd.StdinPipe()
	require.NoError(t, err)
	out, err := ch.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, ch.cmd.Start())
	go func() {
		defer close(ch.lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), "sweeper: "); ok {
				ch.lines <- line
			}
		}
	}()
	t.Cleanup(func() {
		if !ch.stopped.Load() {
			_ = ch.cmd.Process.Kill()
			_ = ch.cmd.Wait()
		}
	})
	return ch
}

func (ch *child) send(t *testing.T, line string) {
	_, err := io.WriteString(ch.stdin, line+"\n")
	require.NoError(t, err, "sweeper %s", ch.name)
}

// reply returns the child's next line; an error line, or its end, is an
// error.
func (ch *child) reply(ctx context.Context) (string, error) {
	select {
	case line, ok := <-ch.lines:
		switch {
		case !ok:
			return "", fmt.Errorf("sweeper %s ended: %s", ch.name, ch.stderr.String())
		case strings.HasPrefix(line, "error "):
			return "", fmt.Errorf("sweeper %s: %s", ch.name, line)
		}
		return line, nil
	case <-ctx.Done():
		return "", fmt.Errorf("sweeper %s: no reply: %w", ch.name, ctx.Err())
	}
}

// kill ends the child with SIGKILL, at once.
func (ch *child) kill(t *testing.T) {
	require.NoError(t, ch.cmd.Process.Signal(syscall.SIGKILL))
	err := ch.cmd.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	ch.dead = true
	ch.stopped.Store(true)
	for range ch.lines { // drained: the pipe closed with the process
	}
}

// stop ends a live child by closing its input, and checks that it ended
// well.
func (ch *child) stop(t *testing.T) {
	if ch.dead {
		return
	}
	require.NoError(t, ch.stdin.Close())
	for range ch.lines {
	}
	require.NoError(t, ch.cmd.Wait(), "sweeper %s: %s", ch.name, ch.stderr.String())
	ch.stopped.Store(true)
}

// TestSweeperProcess is one sweeper process of TestThreeSweeperProcesses:
// it steps at the sandbox times it reads from stdin ("step <unix ns>") and
// answers each with "sweeper: done <stats as JSON>" on stdout. Its handler
// credits each event through sqlstore.Tx; with envStallAt it announces
// "sweeper: stalled <order id>" in that event's handler and waits there to
// be killed.
func TestSweeperProcess(t *testing.T) {
	dsn := os.Getenv(envDSN)
	if dsn == "" {
		return // runs only as a child process of TestThreeSweeperProcesses
	}
	ctx := context.Background()
	db, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	defer db.Close()
	// The processes share sandbox time: the store's clock (leases) is the
	// time of the step the parent sent, as a database's clock would be.
	clock := reconciletest.NewClock(t0)
	st, err := sqlstore.New(ctx, db, sqlstore.Postgres, sqlstore.WithClock(clock.Now))
	require.NoError(t, err)
	creds := upicollect.Credentials{MID: os.Getenv(envMID), PublicKey: os.Getenv(envPublic), SecretKey: os.Getenv(envSecret)}
	c, err := upicollect.NewClient(creds, upicollect.WithBaseURL(os.Getenv(envURL)))
	require.NoError(t, err)
	name := os.Getenv(envName)
	var opts []reconcile.Option
	if consumer := os.Getenv(envConsumer); consumer != "" {
		name = consumer + "/" + name
		opts = append(opts, reconcile.WithConsumer(consumer))
	}
	stallAt, _ := strconv.Atoi(os.Getenv(envStallAt))
	handled := 0
	sw, err := reconcile.New(c, st, func(ctx context.Context, e reconcile.Event) error {
		_, err := sqlstore.Tx(ctx).ExecContext(ctx, `INSERT INTO credits (order_id, result, sweeper, at_ns) VALUES ($1, $2, $3, $4)`,
			e.Order.ID, string(e.Result), name, e.At.UnixNano())
		if err != nil {
			return err
		}
		if handled++; handled == stallAt {
			fmt.Printf("sweeper: stalled %s\n", e.Order.ID)
			select {} // until SIGKILL
		}
		return nil
	}, append(opts, reconcile.WithConcurrency(8), reconcile.WithBatchSize(64), reconcile.WithLeaseTTL(leaseTTL))...)
	require.NoError(t, err)
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		ns, ok := strings.CutPrefix(sc.Text(), "step ")
		at, err := strconv.ParseInt(ns, 10, 64)
		if !ok || err != nil {
			fmt.Printf("sweeper: error bad command %q\n", sc.Text())
			continue
		}
		clock.Set(time.Unix(0, at).UTC())
		stats, err := sw.Step(ctx, time.Unix(0, at).UTC())
		if err != nil {
			fmt.Printf("sweeper: error %s\n", strings.ReplaceAll(err.Error(), "\n", "; "))
			continue
		}
		b, _ := json.Marshal(stats)
		fmt.Printf("sweeper: done %s\n", b)
	}
}

// processLedger is what a test of sweeper processes starts from: the mix's
// size (-mix-orders, else 1,000, 300 under the race detector), a
// PostgreSQL ledger with the credits table, a sandbox on a manual clock,
// its client, and a sweeper that only tracks (its handler refuses all).
type processLedger struct {
	n       int
	dsn     string
	db      *sql.DB
	st      reconcile.Store
	clk     *reconciletest.Clock
	sb      *sandbox.Server
	c       *upicollect.Client
	tracker *reconcile.Sweeper
}

func newProcessLedger(t *testing.T, ctx context.Context) processLedger {
	t.Helper()
	pl := processLedger{n: *mixOrders}
	if pl.n == 0 {
		pl.n = 1000
		if raceEnabled {
			pl.n = 300
		}
	}
	pl.dsn, pl.db = newPostgresDB(t)
	pl.st = newStore(t, sqlstore.Postgres, pl.db)
	_, err := pl.db.ExecContext(ctx, creditsWithTime)
	require.NoError(t, err)
	pl.clk = reconciletest.NewClock(t0)
	pl.sb = sandbox.Start(t, sandbox.WithClock(pl.clk.Now))
	pl.c = pl.sb.Client()
	t.Cleanup(pl.c.CloseIdleConnections)
	pl.tracker, err = reconcile.New(pl.c, pl.st, func(context.Context, reconcile.Event) error {
		return errors.New("the tracking process handles nothing")
	}) // it only tracks: Track registers no consumer
	require.NoError(t, err)
	return pl
}
