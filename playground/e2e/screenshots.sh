#!/usr/bin/env bash
# Takes README's screenshots: serves every shipped variant, runs the browser test that
# photographs each playable one, and writes the PNGs to docs/screenshots/.
#   bash playground/e2e/screenshots.sh [path/to/varia]   (default: target/release/varia)
set -euo pipefail
cd "$(dirname "$0")"
root="$(cd ../.. && pwd)"
varia="${1:-$root/target/release/varia}"
port="${PORT:-8791}"
out="$root/docs/screenshots"
mkdir -p "$out"
"$varia" serve --port "$port" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  curl -sf "http://127.0.0.1:$port/api/variants" >/dev/null && break
  sleep 0.2
done
PLAYGROUND_URL="http://127.0.0.1:$port" PLAYGROUND_SHOTS="$out" \
  node --test --test-name-pattern='photographed' --test-reporter=spec
ls -1 "$out"
