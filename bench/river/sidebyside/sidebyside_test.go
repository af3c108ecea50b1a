package sidebyside_test

import (
	"bytes"
	"context"
	"flag"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/bench/river/sidebyside"
)

// -n is the items of TestSideBySide's runs: CI's 2,000; bench/run.sh's
// full mode runs the command instead (100,000 and 1,000,000, 3 pairs).
var items = flag.Int("n", 2000, "items per run in TestSideBySide")

// TestSideBySide runs one interleaved pair (River's burn-down, the step
// loop, the quiet loop) on a PostgreSQL of its own and asserts the counts,
// never the rates: every job completed once and worked once, every order
// committed once, every event (one order in 25) delivered once, and the
// database holding exactly that; and the ledger's calls, which do not
// depend on the machine: two round trips per quiet batch, and a step batch
// whose events commit in its one transaction. It prints the runs and the budgets, as
// bench/run.sh --ci shows them.
func TestSideBySide(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	srv, dsn, err := sidebyside.StartServer(ctx)
	require.NoError(t, err)
	t.Cleanup(srv.Stop)
	var log bytes.Buffer
	b, err := sidebyside.Open(ctx, dsn, srv.PID(), sidebyside.Config{Log: &log})
	require.NoError(t, err)
	t.Cleanup(b.Close)

	var out bytes.Buffer
	series, err := sidebyside.Interleave(ctx, b, []int{*items}, 1, &out)
	require.NoError(t, err, out.String())
	ok := sidebyside.Verdict(series, &out)
	t.Log("\n" + out.String())
	assert.True(t, ok, "a run's counts did not hold")
	assert.Empty(t, log.String(), "River warned")

	require.Len(t, series, 1)
	require.Len(t, series[0].Pairs, 1)
	p := series[0].Pairs[0]
	n := *items
	batches := (n + sidebyside.LedgerBatch - 1) / sidebyside.LedgerBatch
	for _, r := range []sidebyside.Run{p.River, p.Step, p.Quiet} {
		assert.Equal(t, n, r.N, r.Kind)
		assert.Equal(t, n, r.Items, r.Kind)
		assert.Empty(t, r.Failed(), r.Kind)
		assert.NotEmpty(t, r.Checks, r.Kind)
		assert.Positive(t, r.Wall, r.Kind)
		assert.Positive(t, r.CPU.Go, r.Kind)
	}
	assert.Equal(t, "river", p.River.Kind)
	assert.Equal(t, "step", p.Step.Kind)
	assert.Equal(t, "quiet", p.Quiet.Kind)
	assert.Equal(t, n/sidebyside.EventEvery, p.Step.Events)
	assert.Zero(t, p.Quiet.Events)
	assert.Zero(t, p.River.Events)
	assert.Equal(t, batches, p.Step.Batches)
	assert.Equal(t, batches, p.Quiet.Batches)
	// The quiet loop: a Lease and a CommitMany per batch, and after a
	// last batch that was full the Lease that found nothing:
	// deterministic, whatever the machine.
	calls := int64(2 * batches)
	if n%sidebyside.LedgerBatch == 0 {
		calls++
	}
	assert.Equal(t, calls, p.Quiet.Calls.RoundTrips)
	assert.Equal(t, calls, p.Quiet.Calls.Transactions)
	// The step loop: a batch's events are recorded and delivered in the
	// batch's one transaction (CommitMany), so it runs as many
	// transactions as the quiet loop, and its events' round trips are the
	// batch's, not one or more per event.
	assert.Equal(t, p.Quiet.Calls.Transactions, p.Step.Calls.Transactions, "a batch's events commit in its one transaction")
	extra := p.Step.Calls.RoundTrips - p.Quiet.Calls.RoundTrips
	assert.Positive(t, extra)
	assert.Less(t, extra, int64(p.Step.Events), "the events' round trips are per batch, fewer than one per event")
	assert.Zero(t, p.River.Calls, "River's driver is not counted")
	assert.Positive(t, p.Quiet.WALSyncs, "a commit flushes WAL on the durable defaults")
}
