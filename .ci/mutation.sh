#!/usr/bin/env bash
# Mutation testing of the SDK's core packages (.ci/mutants). Slow (about
# 50 minutes for the root package, over an hour for all of them on two
# cores), so .ci/run does not call it; run it by hand after changing the
# call path or the protocol code. A LIVED mutant is a behaviour no test
# pins: add a test, or say in .ci/mutants/equivalent.txt why no test can
# catch it.
#
#   bash .ci/mutation.sh [PKGDIR...]     WORKERS=4 for more mutants at once
#   bash .ci/mutation.sh -C MODDIR [-run REGEXP] [-file REGEXP] PKGDIR...
#                                        a nested module's package
#
# Without arguments it runs the root module's packages, then the nested
# modules reconcile and reconcile/sqlstore (judged by the tests of the
# test-only module reconcile/sqlstore/drivertest, which start PostgreSQL
# and SQLite themselves), the Redis starter and the ledger's dashboard, and fails when
# any has a survivor.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then
	exec go run ./.ci/mutants -workers "${WORKERS:-2}" "$@"
fi
status=0
go run ./.ci/mutants -workers "${WORKERS:-2}" ./internal/retry ./internal/wire ./internal/upi ./internal/redact ./internal/testkit/rawhttp ./internal/vocab . || status=$?
go run ./.ci/mutants -workers "${WORKERS:-2}" -C reconcile . ./reconciletest ./webhook || status=$?
go run ./.ci/mutants -workers "${WORKERS:-2}" -C reconcile/sqlstore -tests reconcile/sqlstore/drivertest . || status=$?
go run ./.ci/mutants -workers "${WORKERS:-2}" -C redisrate ./redistest || status=$?
go run ./.ci/mutants -workers "${WORKERS:-2}" -C cmd/upicollect ./dashboard || status=$?
exit "$status"
