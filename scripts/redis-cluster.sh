#!/usr/bin/env bash
# The local three-master Redis Cluster the Redis Cluster tests run against (called by services.sh;
# idempotent, fast when up): starts each node of REDIS_CLUSTER_PORTS (default 7001 7002 7003) on
# 127.0.0.1 that does not answer, then creates the cluster when it is not formed. Nodes keep no data
# (no RDB, no AOF): a node restarted here comes back empty, with its slots (nodes.conf under
# REDIS_CLUSTER_DATA/PORT, default .data/redis-cluster/PORT), which is what the "master restarted
# empty" test does.
# cluster-require-full-coverage no: the other masters keep serving while one is down, as with
# replicas in production (see docs/operating.md, "Redis Cluster").
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
read -r -a PORTS <<< "${REDIS_CLUSTER_PORTS:-7001 7002 7003}"

if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
  echo "redis cluster: installing redis-server with apt-get"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server) >/dev/null
fi
answers() { redis-cli -h 127.0.0.1 -p "$1" ping >/dev/null 2>&1; }
# A node whose directory is gone (the clone that started it was deleted) answers, but could not be
# restarted where it runs: Redis reports an empty dir. It is replaced by one started here.
homeless() { [ -z "$(redis-cli -h 127.0.0.1 -p "$1" config get dir 2>/dev/null | sed -n 2p)" ]; }
started=()
for port in "${PORTS[@]}"; do
  if answers "$port" && homeless "$port"; then
    redis-cli -h 127.0.0.1 -p "$port" shutdown nosave >/dev/null 2>&1 || true
    for _ in $(seq 1 40); do answers "$port" || break; sleep 0.25; done
  fi
  answers "$port" && continue
  dir="${REDIS_CLUSTER_DATA:-$ROOT/.data/redis-cluster}/$port"
  mkdir -p "$dir"
  redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save "" --appendonly no --hz 100 \
    --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 3000 \
    --cluster-require-full-coverage no --dir "$dir" --logfile "$dir/redis.log"
  for _ in $(seq 1 40); do answers "$port" && break; sleep 0.25; done
  answers "$port" || { echo "redis cluster: node $port does not answer; see $dir/redis.log" >&2; exit 1; }
  started+=("$port")
done
[ ${#started[@]} -gt 0 ] && echo "redis cluster: started node(s) ${started[*]}"

first=${PORTS[0]}
formed() { redis-cli -h 127.0.0.1 -p "$first" cluster info 2>/dev/null | grep -q "cluster_known_nodes:${#PORTS[@]}"; }
if ! formed || ! redis-cli -h 127.0.0.1 -p "$first" cluster info | grep -q 'cluster_slots_assigned:16384'; then
  # A half-made cluster (say, a node's nodes.conf was lost) is made again from scratch: it only holds test data.
  for port in "${PORTS[@]}"; do
    redis-cli -h 127.0.0.1 -p "$port" flushall >/dev/null 2>&1 || true
    redis-cli -h 127.0.0.1 -p "$port" cluster reset hard >/dev/null
  done
  nodes=(); for port in "${PORTS[@]}"; do nodes+=("127.0.0.1:$port"); done
  redis-cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes >/dev/null
  echo "redis cluster: created on ${nodes[*]}"
fi
# Nodes learn of each other through gossip: wait until every node sees the cluster as ok.
for port in "${PORTS[@]}"; do
  for _ in $(seq 1 80); do redis-cli -h 127.0.0.1 -p "$port" cluster info | grep -q 'cluster_state:ok' && break; sleep 0.25; done
  redis-cli -h 127.0.0.1 -p "$port" cluster info | grep -q 'cluster_state:ok' || { echo "redis cluster: node $port does not see the cluster ok" >&2; exit 1; }
done
echo "redis cluster: ok on ports ${PORTS[*]}"
