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
# Up to a minute: a loaded machine can take longer than ten seconds to start serving.
up=
for _ in $(seq 300); do
  curl -sf "http://127.0.0.1:$port/api/variants" >/dev/null && { up=1; break; }
  sleep 0.2
done
if [ -z "$up" ]; then
  echo "screenshots.sh: $varia serve did not answer on port $port within 60 s" >&2
  exit 1
fi
PLAYGROUND_URL="http://127.0.0.1:$port" PLAYGROUND_SHOTS="$out" \
  node --test --test-name-pattern='photographed' --test-reporter=spec
ls -1 "$out"
