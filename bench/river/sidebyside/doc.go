// Package sidebyside measures the ledger's Step store loop against River's
// burn-down, interleaved on one PostgreSQL cluster, in one process.
//
// A pair is three runs over the same number of items, each from empty
// tables: River's burn-down (Bench.River: no-op jobs inserted, then one
// client works them, with River's own benchmark's settings), the step loop
// (Bench.Ledger with events: Lease a batch of LedgerBatch, one order in
// EventEvery paid, one CommitMany per batch whose deliver runs inside its
// transaction, the next batch leased beside it as Step does) and the quiet loop (the same without events). Each run
// reports its wall rate, its CPU per item split into this process, the
// server's backends and the server's other processes (ReadCPU), the WAL
// flushes and, for the ledger, its database round trips (Calls). Interleave
// runs the pairs, Verdict prints the ratios' min, median and max with the
// budgets, Markdown the table BENCHMARKS.md keeps.
//
// Only counts are judged (a job, an order or an event not done exactly
// once fails a run); rates and CPU are printed: they depend on the machine
// and on what else runs on it.
package sidebyside
