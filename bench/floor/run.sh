#!/usr/bin/env bash
# Runs the floor of TestFloor (floor_test.go) RUNS times (3 unless given), one after the
# other, with the size and pace the TABLECTL_FLOOR_* variables set, and prints each run's
# figures with the machine's load average before and after it. Needs Debian's mosquitto
# and postgresql, as the tests do.
#
#   TABLECTL_FLOOR_TABLES=100 TABLECTL_FLOOR_PROCESSES=10 bench/floor/run.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-3}
export TABLECTL_REQUIRE_INTEGRATION=1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for i in $(seq "$runs"); do
  before=$(cut -d' ' -f1-3 /proc/loadavg)
  if ! go test -run '^TestFloor$' -count=1 -v -timeout 120m ./bench/floor >"$out" 2>&1; then
    cat "$out"
    echo "run $i failed"
    exit 1
  fi
  echo "run $i, load average before $before, after $(cut -d' ' -f1-3 /proc/loadavg):"
  grep -E '^    floor_test\.go:[0-9]+: ' "$out" | sed -E 's/^    floor_test\.go:[0-9]+: /  /'
done
