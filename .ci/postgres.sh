#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the realm store tests (issue 13) and prints
# the `export VARIA_PG_URL=…` line to eval. Installs Debian's `postgresql` package
# when no server binaries are found. The cluster lives in a temp dir, listens on
# 127.0.0.1 only, trusts local connections, and is owned by the `postgres` user
# (initdb refuses to run as root).
set -euo pipefail
pgbin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
if [ -z "$(pgbin)" ]; then
  echo "== installing PostgreSQL (Debian's postgresql)" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
fi
BIN="$(pgbin)"
[ -n "$BIN" ] || { echo "no PostgreSQL server binaries" >&2; exit 1; }
PORT="${VARIA_PG_PORT:-$((54000 + $$ % 1000))}"   # varied, so two runs on one machine do not collide
DIR="$(mktemp -d /tmp/varia-pg.XXXXXX)"
as_pg=()
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
  chown postgres "$DIR"
  as_pg=(runuser -u postgres --)
fi
"${as_pg[@]}" "$BIN/initdb" -D "$DIR/data" -U varia --auth=trust -E UTF8 >&2
"${as_pg[@]}" "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $PORT -k $DIR -c fsync=on" start >&2
"${as_pg[@]}" "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U varia varia_test >&2
echo "export VARIA_PG_URL=postgres://varia@127.0.0.1:$PORT/varia_test VARIA_PG_DATA=$DIR/data VARIA_PG_BIN=$BIN"
