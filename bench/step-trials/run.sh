#!/usr/bin/env bash
# Builds the round controller's trial builds and times them against the code they change,
# as docs/BENCHMARKS.md ("On the AMD EPYC machine") gives them. Each trial is one patch to
# the round or baccarat package at commit 2281d92, the code the figures were measured on; most are
# wrong on purpose, to find a floor, and none is part of tablectl. The builds alternate,
# PASSES times (7 unless given), each running BenchmarkStep/classic for 4,000,000 rounds
# on one CPU. It prints each build's median and range in ns a round.
#
#   bench/step-trials/run.sh [PASSES]
set -euo pipefail
cd "$(dirname "$0")"
passes=${1:-7}
base=2281d92
here=$(pwd)
root=$(cd ../.. && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# build NAME PATCH [ENV...]: the round package's test binary of the base commit, with
# PATCH ("" for none) applied, built with the environment ENV added.
build() {
  local name=$1 patch=$2
  shift 2
  mkdir "$tmp/src-$name"
  git -C "$root" archive "$base" | tar -x -C "$tmp/src-$name"
  if [ -n "$patch" ]; then
    (cd "$tmp/src-$name" && git apply "$here/$patch")
  fi
  (cd "$tmp/src-$name" && env "$@" go test -c -o "$tmp/$name.test" ./round/)
}
build base ""
names=(base)
for p in null stripped notime noclear fieldclear placetable eventlayout; do
  build "$p" "$p.patch"
  names+=("$p")
done
build amd64v3 "" GOAMD64=v3
names+=(amd64v3)
for _ in $(seq "$passes"); do
  for t in "${names[@]}"; do
    "$tmp/$t.test" -test.run '^$' -test.bench 'BenchmarkStep/classic$' -test.benchtime 4000000x -test.cpu 1 |
      awk -v t="$t" '/^BenchmarkStep/ {print t, $3}' >>"$tmp/out"
  done
done
for t in "${names[@]}"; do
  awk -v t="$t" '$1 == t {print $2}' "$tmp/out" | sort -g |
    awk -v t="$t" '{a[NR] = $1} END {m = (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)
      printf "%-12s median %.1f ns a round (%.1f to %.1f), %d runs\n", t, m, a[1], a[NR], NR}'
done
