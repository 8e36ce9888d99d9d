#!/bin/sh
# User time of one fixed-depth search (deterministic work: --no-clock), several binaries
# interleaved so that the machine's drift falls on all alike; prints each binary's median
# and every run. Compare binaries whose trees are the same (benchmarks/nodes.sh).
# Usage: benchmarks/fixtime.sh ROUNDS VARIANT DEPTH "MOVES" BINARY...
# e.g.   benchmarks/fixtime.sh 5 standard 14 "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6" old/varia target/release/varia
rounds=$1; variant=$2; depth=$3; moves=$4; shift 4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
i=0
while [ "$i" -lt "$rounds" ]; do
  n=0
  for bin in "$@"; do
    # shellcheck disable=SC2086 # the moves are words
    /usr/bin/time -f "%U" -o "$dir/one" "$bin" move "$variant" --no-clock --set ai.levels.master.depth="$depth" $moves >/dev/null 2>&1
    cat "$dir/one" >> "$dir/$n"
    n=$((n + 1))
  done
  i=$((i + 1))
done
n=0
for bin in "$@"; do
  runs=$(sort -n "$dir/$n" | tr '\n' ' ')
  median=$(sort -n "$dir/$n" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
  echo "$bin: median ${median} s  [${runs}]"
  n=$((n + 1))
done
