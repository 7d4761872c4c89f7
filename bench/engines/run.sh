#!/usr/bin/env bash
# Deals the same 8-deck shoes with the round controller (round.Step, BenchmarkStep/classic),
# with tablectl's Table of Play alone (tally -bench: the work baccarat-engine does, and no
# more) and with the JavaScript engine baccarat-engine (deal.js), one after the other, RUNS
# times (6 unless given), 2,000,000 rounds each time, and prints every run, the medians
# and their ratios. It does so twice: by the time each benchmark reports, and by the user
# CPU time of each process, every thread counted (Node.js's start, timed apart each run,
# taken out). It first checks that all deal the same rounds: the Banker, Player and Tie
# wins of deal.js over those rounds must be tablectl's (tally/). Needs Go and Node.js
# with npm; installs baccarat-engine at the version package-lock.json pins into this
# folder's node_modules.
#
#   bench/engines/run.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")"
runs=${1:-6}
rounds=2000000
npm ci --no-audit --no-fund --loglevel=error >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd ../.. && go test -c -o "$tmp/round.test" ./round/ && go build -o "$tmp/tally" ./bench/engines/tally)
echo "node $(node --version), $(go version | cut -d' ' -f3), baccarat-engine $(node -p "require('baccarat-engine/package.json').version")"
TABLECTL_BENCH_SHOES="$tmp/shoes.json" "$tmp/round.test" -test.run '^$' -test.bench 'BenchmarkStep/classic$' -test.benchtime 1x >/dev/null
want=$("$tmp/tally" "$tmp/shoes.json" "$rounds")
TIMEFORMAT=%U # the time keyword prints the user CPU seconds of what it ran
# timed FILE CMD...: runs CMD, its output to $tmp/out, and appends its user CPU to FILE.
timed() {
  local file=$1
  shift
  { time "$@" >"$tmp/out" 2>&1; } 2>>"$file"
}
for _ in $(seq "$runs"); do
  TABLECTL_BENCH_SHOES="$tmp/shoes.json" timed "$tmp/go.cpu" "$tmp/round.test" -test.run '^$' -test.bench 'BenchmarkStep/classic$' \
    -test.benchtime "${rounds}x" -test.cpu 1 -test.benchmem
  grep '^BenchmarkStep' "$tmp/out" | tee -a "$tmp/go.txt"
  timed "$tmp/play.cpu" "$tmp/tally" -bench "$tmp/shoes.json" "$rounds"
  tee -a "$tmp/play.txt" <"$tmp/out"
  timed "$tmp/js.cpu" node deal.js "$tmp/shoes.json" "$rounds"
  tee -a "$tmp/js.txt" <"$tmp/out"
  if [ "$(tail -1 "$tmp/js.txt" | grep -o '(banker.*)')" != "$want" ]; then
    echo "baccarat-engine's results differ from tablectl's $want: not the same rounds" >&2
    exit 1
  fi
  timed "$tmp/start.cpu" node -e "require('baccarat-engine')"
done
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
step=$(awk '{print $3}' "$tmp/go.txt" | median)
play=$(awk '{print $3}' "$tmp/play.txt" | median)
js=$(awk '{print $3}' "$tmp/js.txt" | median)
awk -v s="$step" -v p="$play" -v j="$js" -v n="$runs" 'BEGIN {
  printf "median of %d: round.Step %.1f ns a round (%.2f million rounds/s), Table of Play alone %.1f ns (%.2f million/s), baccarat-engine %.1f ns (%.2f million/s)\n",
    n, s, 1000 / s, p, 1000 / p, j, 1000 / j
  printf "Step deals %.2f times as many rounds a second as baccarat-engine; the Table of Play alone, doing what baccarat-engine does, %.2f times\n",
    j / s, j / p }'
stepc=$(median <"$tmp/go.cpu")
playc=$(median <"$tmp/play.cpu")
jsc=$(median <"$tmp/js.cpu")
startc=$(median <"$tmp/start.cpu")
awk -v s="$stepc" -v p="$playc" -v j="$jsc" -v z="$startc" -v r="$rounds" -v n="$runs" 'BEGIN {
  printf "user CPU, median of %d: round.Step %.2f s (%.0f ns a round), Table of Play alone %.2f s (%.0f ns), baccarat-engine %.2f s less %.2f s of Node.js starting (%.0f ns)\n",
    n, s, s * 1e9 / r, p, p * 1e9 / r, j, z, (j - z) * 1e9 / r
  printf "by CPU time, Step deals %.2f times as many rounds a second as baccarat-engine; the Table of Play alone %.2f times\n",
    (j - z) / s, (j - z) / p }'
