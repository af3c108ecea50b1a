#!/usr/bin/env bash
# Reproduces every benchmark figure of BENCHMARKS.md and checks the budgets.
#
#   bench/run.sh        full run (about 20 minutes on 2 cores, with the sweep
#                       end to end at 100,000 orders; and about 30 more for
#                       River beside the ledger at 100k and 1M, 3 pairs each):
#                       7 interleaved rounds of 1s per benchmark;
#                       writes bench/results/snapshot/ and bench/charts/
#   bench/run.sh --ci   fast run for CI (under 4 minutes on 2 cores): 3 rounds
#                       of fixed iterations, 1s load runs, the sweep at 2,000
#                       orders, one pair of 2,000 items beside River; writes
#                       bench/results/ci/
#
# Exits 1 when a deterministic budget (allocations, connections, errors,
# bytes per waiting call, the fleet's 429s and shared rate, reconciliation's
# memory, checks, events and 429s, the end-to-end sweep's counts) fails; timing
# budgets are printed as INFO only.
set -euo pipefail
cd "$(dirname "$0")"

mode=full
case "${1:-}" in
  "") ;;
  --ci) mode=ci ;;
  *) echo "usage: $0 [--ci]" >&2; exit 2 ;;
esac

if [ "$mode" = ci ]; then
  out=results/ci charts=results/ci/charts
  count=3 benchtime=2000x duration=1s poll=4s fleet=5s mix=2000 backlog=2000 sweep=2000 sweep_rounds=1
  river_n=2000 river_pairs=1
else
  out=results/snapshot charts=charts
  count=7 benchtime=1s duration=2s poll=4s fleet=10s mix=10000 backlog=10000 sweep=100000 sweep_rounds=3
  river_n=100000,1000000 river_pairs=3
fi
mkdir -p "$out" "$charts"

step() { printf '\n== %s\n' "$*"; }

step "machine"
{
  echo "nproc: $(nproc)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "go: $(go version)"
  echo "mode: $mode (count=$count, benchtime=$benchtime, load runs $duration, poll $poll)"
} | tee "$out/machine.txt"

step "per-call benchmarks: SDK, floor, naive, resty; encode+decode without network"
# One test binary, run once per round: each round runs every benchmark in
# turn, so the rounds interleave the implementations (go test -count would
# repeat each benchmark back to back).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/bench.test" .
: > "$out/bench.txt"
for round in $(seq "$count"); do
  echo "-- round $round of $count"
  "$tmp/bench.test" -test.run='^$' -test.bench='^Benchmark(Call|EncodeDecode)$' -test.benchmem \
    -test.benchtime="$benchtime" -test.timeout=30m | tee -a "$out/bench.txt"
done

step "envelope decoders (root module, internal/wire)"
(cd .. && go test -run='^$' -bench='^BenchmarkEnvelopeDecoders$' -benchmem \
  -count="$count" ./internal/wire) | tee "$out/decoder.txt"

step "concurrency and WaitForPayment waiters"
go run ./cmd/load -duration="$duration" -poll="$poll" -out="$out/concurrency.json"

step "fleet: 4 processes x 64 callers sharing a quota, through redisrate and through WithRateLimit"
# Starts a redis-server of its own (installed by .ci/run).
go run ./cmd/fleet -duration="$fleet" -cost-rounds="$count" -out="$out/fleet.json"

step "reconcile: memory per tracked order, status checks over the mix (memory store and PostgreSQL), a due backlog under a rate limit, the sweep end to end (memory store and PostgreSQL, by 1 sweeper and by 4 at once, interleaved)"
# Starts a PostgreSQL of its own (reconcile/sqlstore/drivertest/pgtest; installed by .ci/run).
go run ./cmd/reconcile -orders="$mix" -mix-stores=postgres -backlog="$backlog" \
  -sweep="$sweep" -sweep-stores=memory,postgres -sweep-sweepers=1,4 -sweep-rounds="$sweep_rounds" -out="$out/reconcile.json"

step "River beside the ledger: burn-down, step loop and quiet loop interleaved on one PostgreSQL ($river_n items, $river_pairs pair(s) each)"
# A module of its own outside the workspace (River declares go 1.26.0); it
# starts a PostgreSQL of its own on the durable defaults. Exits 1 only when
# a count fails (a job, order or event not done exactly once); the ratios
# and the budgets are printed (PASS/INFO), never judged.
(cd river && GOWORK=off go run ./cmd/sidebyside -n "$river_n" -pairs "$river_pairs" -md "../$out/river.md") | tee "$out/river.txt"

step "charts"
go run ./cmd/charts -bench="$out/bench.txt" -load="$out/concurrency.json" -fleet="$out/fleet.json" -out="$charts" -tables="$out/tables.md"
ls "$charts"

step "budgets"
set +e
go run ./cmd/budget -bench="$out/bench.txt" -load="$out/concurrency.json" -fleet="$out/fleet.json" -reconcile="$out/reconcile.json" | tee "$out/budget.txt"
rc=${PIPESTATUS[0]}
set -e
exit "$rc"
