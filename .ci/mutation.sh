#!/usr/bin/env bash
# Mutation testing of the SDK's core packages (.ci/mutants). Slow (about
# 50 minutes for the root package, over an hour for all of them on two
# cores), so .ci/run does not call it; run it by hand after changing the
# call path or the protocol code. A LIVED mutant is a behaviour no test
# pins: add a test, or say in .ci/mutants/equivalent.txt why no test can
# catch it.
#
#   bash .ci/mutation.sh [PKGDIR...]     WORKERS=4 for more mutants at once
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then
	set -- ./internal/retry ./internal/wire ./internal/upi ./internal/redact ./internal/rawhttp ./internal/vocab ./reconcile .
fi
go run ./.ci/mutants -workers "${WORKERS:-2}" "$@"
