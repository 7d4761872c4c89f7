#!/usr/bin/env bash
# Runs the floor of TestFloor (floor_test.go) RUNS times (1 unless given), one after the
# other, and prints each run's figures with the machine's load average before and after
# it. Needs Debian's mosquitto, postgresql and chromium, as the tests do.
#
# Unless the TABLECTL_FLOOR_* variables say otherwise, it runs the whole floor of
# docs/BENCHMARKS.md: 500 tables, 10 of them tablectl processes, a round every 40 s
# each, 24 rounds, the Floor page watched for a minute, then an archive outage of 10
# minutes and a restart of the central broker. It takes about 20 minutes.
#
#   bench/floor/run.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-1}
export TABLECTL_REQUIRE_INTEGRATION=1
export TABLECTL_FLOOR_TABLES=${TABLECTL_FLOOR_TABLES:-500}
export TABLECTL_FLOOR_PROCESSES=${TABLECTL_FLOOR_PROCESSES:-10}
export TABLECTL_FLOOR_ROUNDS=${TABLECTL_FLOOR_ROUNDS:-24}
export TABLECTL_FLOOR_PACE=${TABLECTL_FLOOR_PACE:-15ms}
export TABLECTL_FLOOR_ROUND_PAUSE=${TABLECTL_FLOOR_ROUND_PAUSE:-39910ms}
export TABLECTL_FLOOR_OUTAGE=${TABLECTL_FLOOR_OUTAGE:-10m}
export TABLECTL_FLOOR_WATCH=${TABLECTL_FLOOR_WATCH:-60s}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for i in $(seq "$runs"); do
  before=$(cut -d' ' -f1-3 /proc/loadavg)
  start=$SECONDS
  if ! go test -run '^TestFloor$' -count=1 -v -timeout 60m ./bench/floor >"$out" 2>&1; then
    cat "$out"
    echo "run $i failed"
    exit 1
  fi
  echo "run $i, $((SECONDS - start)) s, load average before $before, after $(cut -d' ' -f1-3 /proc/loadavg):"
  grep -E '^    floor_test\.go:[0-9]+: [0-9A-Za-z]' "$out" | grep -v ' kept ' | sed -E 's/^    floor_test\.go:[0-9]+: /  /'
done
