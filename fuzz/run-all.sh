#!/usr/bin/env bash
# Runs every fuzz target in turn, SECONDS each (default 600), one process at a time, niced;
# logs in fuzz/logs/<target>.log, crash inputs in fuzz/artifacts/<target>/.
# Usage: bash fuzz/run-all.sh [SECONDS] [TARGET…]
set -u
cd "$(dirname "$0")"
secs=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(fen move_text snapshot_json variant_toml fixture_toml lua_hooks)
mkdir -p logs
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t"
  echo "== $t: $(date -u +%H:%M:%S)"
  nice cargo +nightly fuzz run "$t" "corpus/$t" -- -max_total_time="$secs" -fork=1 \
    -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 -timeout=20 -rss_limit_mb=2048 \
    -artifact_prefix="artifacts/$t/" >"logs/$t.log" 2>&1
  echo "   exit $?: $(grep -E '^#[0-9]+' "logs/$t.log" | tail -1)"
  echo "   artifacts: $(ls "artifacts/$t" | wc -l)"
done
