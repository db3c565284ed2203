#!/usr/bin/env bash
# Makes sure the services Kairos needs answer, starting what is missing (idempotent, fast when up):
#   Redis at REDIS_URL: the running one; else redis-server on 127.0.0.1 (installed with apt-get if missing).
#   A MongoDB-wire server at MONGO_URL: the running one; else mongod if on PATH; else FerretDB 1.24.2,
#   built from its Go module (tools/ferretdb) into .cache/ (git-ignored), storing in the local PostgreSQL
#   (FERRETDB_POSTGRESQL_URL, database created if missing) or, without one, in SQLite under .data/.
#   FERRETDB_HANDLER=sqlite|postgresql forces a backend.
#   Only with KAIROS_REDIS_CLUSTER=1 (scripts/test.sh and scripts/test-file.sh set it; `npm start` does not):
#   a three-master Redis Cluster on 127.0.0.1:7001-7003 for the Redis Cluster tests (scripts/redis-cluster.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379}
MONGO_URL=${MONGO_URL:-mongodb://127.0.0.1:27017/kairos}

[ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error

# host and port of a URL like scheme://[user:pass@]host[:port][/...]
hostport() {
  local rest=${1#*://}; rest=${rest##*@}; rest=${rest%%/*}; rest=${rest%%\?*}
  local host=${rest%%:*} port=${rest##*:}
  [ "$port" = "$rest" ] && port=$2
  echo "$host $port"
}
is_local() { [[ "$1" == 127.* || "$1" == localhost || "$1" == ::1 ]]; }
wait_for() { # kind url seconds
  for _ in $(seq 1 $(( $3 * 4 ))); do node scripts/service.mjs ping "$1" "$2" && return 0; sleep 0.25; done
  return 1
}

# --- Redis ---
if node scripts/service.mjs ping redis "$REDIS_URL"; then
  echo "redis: using the running server at $REDIS_URL"
else
  read -r rhost rport < <(hostport "$REDIS_URL" 6379)
  is_local "$rhost" || { echo "redis: $REDIS_URL does not answer and is not local; start it yourself" >&2; exit 1; }
  if ! command -v redis-server >/dev/null; then
    echo "redis: installing redis-server with apt-get"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server) >/dev/null
  fi
  mkdir -p .data/redis
  redis-server --daemonize yes --bind 127.0.0.1 --port "$rport" --save "" --appendonly no --hz 100 \
    --dir "$ROOT/.data/redis" --logfile "$ROOT/.data/redis/redis.log"
  wait_for redis "$REDIS_URL" 10 || { echo "redis: started but does not answer; see .data/redis/redis.log" >&2; exit 1; }
  echo "redis: started redis-server on $rhost:$rport"
fi
# BullMQ wakes for a delayed entry through a blocking-command timeout, which Redis checks `hz` times
# a second: at the default 10 a due execution can start up to 100 ms late, at 100 about 10 ms. A Redis
# started here runs with hz 100; one that was already running is changed only when asked
# (KAIROS_REDIS_HZ=100 npm run services), since its settings belong to whoever runs it.
read -r rhost _ < <(hostport "$REDIS_URL" 6379)
if [ -n "${KAIROS_REDIS_HZ:-}" ] && is_local "$rhost" && node scripts/service.mjs redis-hz "$REDIS_URL" "$KAIROS_REDIS_HZ"; then
  echo "redis: hz is at least $KAIROS_REDIS_HZ"
fi

# --- Redis Cluster (only the tests use it: tests/integration/redisCluster.test.ts and waitingIndex.test.ts) ---
if [ "${KAIROS_REDIS_CLUSTER:-0}" = 1 ]; then bash scripts/redis-cluster.sh; fi

FERRET=.cache/ferretdb/ferretdb

# --- MongoDB-wire server ---
if node scripts/service.mjs ping mongo "$MONGO_URL"; then
  echo "mongo: using the running server at ${MONGO_URL%%\?*}"
  exit 0
fi
read -r mhost mport < <(hostport "$MONGO_URL" 27017)
is_local "$mhost" || { echo "mongo: $MONGO_URL does not answer and is not local; start it yourself" >&2; exit 1; }
mkdir -p .data
if command -v mongod >/dev/null; then
  mkdir -p .data/mongod
  mongod --bind_ip "$mhost" --port "$mport" --dbpath .data/mongod --fork --logpath .data/mongod.log >/dev/null
  wait_for mongo "$MONGO_URL" 30 || { echo "mongo: mongod does not answer; see .data/mongod.log" >&2; exit 1; }
  echo "mongo: started mongod on $mhost:$mport"
  exit 0
fi

# Built only now that it will be used (scripts/ferretdb-build.sh; a no-op when up to date).
bash scripts/ferretdb-build.sh
# The PostgreSQL backend is preferred: FerretDB's SQLite backend serialises writers and answers
# SQLITE_BUSY under the concurrent updates of a worker pool. SQLite is the fallback without PostgreSQL.
# One FerretDB operation can hold two pooled PostgreSQL connections (a read cursor, then a write
# transaction), so a full pool deadlocks it: the pool is raised to 80 of PostgreSQL's default 100,
# and scripts/dev-env.sh caps each Kairos process at 20 concurrent operations.
PG_URL=${FERRETDB_POSTGRESQL_URL:-postgres://postgres@127.0.0.1:5432/kairos_ferretdb?pool_max_conns=80}
PG_SERVER=${PG_URL%/*}
pg_up() { command -v pg_isready >/dev/null && pg_isready -q -d "$PG_SERVER/postgres"; }
HANDLER=${FERRETDB_HANDLER:-}
if [ -z "$HANDLER" ]; then
  if ! pg_up && command -v pg_ctlcluster >/dev/null; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | tail -1)" main start >/dev/null 2>&1 || true
  fi
  if pg_up; then HANDLER=postgresql; else HANDLER=sqlite; fi
fi
if [ "$HANDLER" = postgresql ]; then
  PG_DB=${PG_URL##*/}; PG_DB=${PG_DB%%\?*}
  if [ -z "$(psql "$PG_SERVER/postgres" -tAc "select 1 from pg_database where datname = '$PG_DB'")" ]; then
    psql "$PG_SERVER/postgres" -qc "create database \"$PG_DB\"" >/dev/null
  fi
  psql -q "$PG_SERVER/$PG_DB" -v ON_ERROR_STOP=1 -f scripts/ferretdb-pg-indexes.sql >/dev/null
  source scripts/pg-socket.sh
  BACKEND=(--handler=postgresql "--postgresql-url=$(pg_via_socket "$PG_URL")")
else
  mkdir -p .data/ferretdb
  BACKEND=(--handler=sqlite "--sqlite-url=file:$ROOT/.data/ferretdb/")
fi
setsid nohup "$FERRET" --listen-addr="$mhost:$mport" "${BACKEND[@]}" >>.data/ferretdb.log 2>&1 </dev/null &
wait_for mongo "$MONGO_URL" 30 || { echo "mongo: FerretDB does not answer; see .data/ferretdb.log" >&2; exit 1; }
echo "mongo: started FerretDB 1.24.2 ($HANDLER) on $mhost:$mport"
