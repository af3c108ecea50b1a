#!/usr/bin/env bash
# Mutation testing of the SDK's core packages with a pinned gremlins. Slow
# (minutes per package on two cores), so .ci/run does not call it; run it
# by hand after changing the call path or the protocol code. A LIVED mutant
# is a behaviour no test pins: add a test, or say why it is equivalent.
set -euo pipefail
cd "$(dirname "$0")/.."
GREMLINS_VERSION=v0.6.0
export PATH="$(go env GOPATH)/bin:$PATH"
if ! gremlins --version 2>/dev/null | grep -q "${GREMLINS_VERSION#v}"; then
  go install "github.com/go-gremlins/gremlins/cmd/gremlins@$GREMLINS_VERSION"
fi
for pkg in "${@:-./internal/retry ./internal/wire ./internal/ratelimit .}"; do
  for p in $pkg; do
    echo "== $p"
    gremlins unleash --workers "${WORKERS:-1}" --timeout-coefficient 5 "$p" | grep -E 'LIVED|Killed|efficacy|coverage'
  done
done
