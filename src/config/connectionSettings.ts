import type { RedisClusterTarget } from '../redis/redisClient.js';

/** Where Kairos keeps its state: MongoDB, Redis (one server or a cluster) and the queues on it. */
export interface ConnectionSettings {
  /** MONGO_URL: the MongoDB (or FerretDB) server and database. Default mongodb://127.0.0.1:27017/kairos. */
  mongoUrl: string;
  /** REDIS_URL: the one Redis server, when no cluster is set. Default redis://127.0.0.1:6379. */
  redisUrl: string;
  /**
   * REDIS_CLUSTER_NODES: a Redis Cluster instead of REDIS_URL, given by seed nodes (comma-separated
   * `host:port` or `redis[s]://[user:password@]host:port`; ioredis discovers the rest). The user,
   * password and TLS of the first node apply to every node. Default: none. docs/operating.md, "Redis Cluster".
   */
  redisCluster: RedisClusterTarget | null;
  /**
   * QUEUE_SHARDS: how many queues each workload's executions spread over, by tenant, each with its
   * own hash tag (so on a cluster each lands on one master, and masters share the queues). Default
   * 1 with one Redis (one queue per workload), 6 on a cluster (two per master of three).
   */
  queueShards: number;
  /** Prefix of every Redis key and queue name, so several deployments (or tests) can share a Redis. Default `kairos`. */
  redisPrefix: string;
}
