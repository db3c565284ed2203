#!/usr/bin/env bash
# `npm run chaos [-- --short]`: the chaos run (tools/chaos/runChaos.ts). It starts its own Redis and
# FerretDB; FerretDB stores in a fresh PostgreSQL database `kairos_chaos` when PostgreSQL is up
# (SQLite under .data/chaos otherwise, which is slower under many writers).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
bash scripts/services.sh >/dev/null
bash scripts/ferretdb-build.sh   # the run starts FerretDB servers of its own
PG_SERVER=${FERRETDB_POSTGRESQL_SERVER:-postgres://postgres@127.0.0.1:5432}
args=()
if command -v psql >/dev/null && psql "$PG_SERVER/postgres" -qtAc 'select 1' >/dev/null 2>&1; then
  psql "$PG_SERVER/postgres" -qc 'drop database if exists kairos_chaos with (force)' -c 'create database kairos_chaos' >/dev/null
  psql -q "$PG_SERVER/kairos_chaos" -v ON_ERROR_STOP=1 -f scripts/ferretdb-pg-indexes.sql >/dev/null
  source scripts/pg-socket.sh
  args=(--postgres-url "$(pg_via_socket "$PG_SERVER/kairos_chaos?pool_max_conns=50")")
fi
exec node dist/tools/chaos/runChaos.js "${args[@]}" "$@"
