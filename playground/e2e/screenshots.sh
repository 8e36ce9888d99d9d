#!/usr/bin/env bash
# Takes README's screenshots: serves every shipped variant and a Caissan realm made here
# (one round played), runs the browser test that photographs each playable variant and
# the realm's map, and writes the PNGs to docs/screenshots/.
#   bash playground/e2e/screenshots.sh [path/to/varia]   (default: target/release/varia)
set -euo pipefail
cd "$(dirname "$0")"
root="$(cd ../.. && pwd)"
varia="${1:-$root/target/release/varia}"
port="${PORT:-8791}"
out="$root/docs/screenshots"
mkdir -p "$out"
# A realm to photograph (Caissan): alice, bob and carol join; in round 0 alice's queen
# takes bob's king (his knight leaps out of its way) and conquers his board [-1, 0];
# for round 1 she places her new king, moves a knight and drops a rook. The city Caissa,
# beside bob's boards, is two boards: too few for an empire, so the three join the ground.
realm="$(mktemp -d)"
printf 'name = "Testland"\nround_hours = 6\nseed = 1\n\n[[cities]]\nname = "Caissa"\nboards = [[2, -1], [2, 0]]\n' >"$realm/realm.toml"
"$varia" realm new --config "$realm/realm.toml" --db "$realm/realm.db" >/dev/null
token() { "$varia" realm join --db "$realm/realm.db" --player "$1" 2>/dev/null | sed -n 's/^token: //p'; }
alice="$(token alice)"
bob="$(token bob)"
token carol >/dev/null
order() { "$varia" realm order --db "$realm/realm.db" --token "$@" >/dev/null; }
order "$bob" --order '{"type":"move","from":[-3,1],"to":[-1,2]}'
order "$alice" --order '{"type":"move","from":[-3,-2],"to":[-3,2]}'
"$varia" realm advance --db "$realm/realm.db" --now >/dev/null
order "$alice" --order '{"type":"place_king","board":[-1,0],"to":[-5,0]}' \
  --order '{"type":"move","from":[2,1],"to":[4,0]}' --order '{"type":"drop","kind":"R","to":[0,-5]}'
"$varia" serve --port "$port" --realm "$realm/realm.db" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$realm"' EXIT
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
PLAYGROUND_URL="http://127.0.0.1:$port" PLAYGROUND_SHOTS="$out" REALM_ALICE="$alice" \
  node --test --test-name-pattern='photographed' --test-reporter=spec
ls -1 "$out"
