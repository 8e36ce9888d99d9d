#!/bin/sh
# Fixed-depth node totals over the benchmark openings (deterministic: --no-clock).
# Usage: benchmarks/nodes.sh BINARY VARIANT DEPTH [--set KEY=VALUE ...]
# Prints one line per opening (best move, nodes) and the total.
bin=$1; variant=$2; depth=$3; shift 3
dir=$(dirname "$0")
total=0
grep -v '^#' "$dir/openings/$variant.txt" | sed 's/#.*//; s/[0-9]*\. //g' | while read -r moves; do
  [ -z "$moves" ] && continue
  out=$("$bin" move "$variant" --no-clock --set ai.levels.master.depth="$depth" "$@" $moves 2>&1)
  best=$(echo "$out" | tail -1 | sed 's/master.*//')
  nodes=$(echo "$out" | sed -n 's/.*nodes \([0-9]*\),.*/\1/p' | tail -1)
  score=$(echo "$out" | sed -n 's/.*score \([-+0-9#]*\),.*/\1/p' | tail -1)
  total=$((total + nodes))
  echo "$best $score $nodes $total"
done
