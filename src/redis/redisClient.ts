import { Cluster, Redis } from 'ioredis';

/**
 * A Redis connection of Kairos: one server, or a Redis Cluster through ioredis' Cluster client.
 * Both take the same commands; on a cluster, every multi-key command and script names keys of one
 * hash slot (the `{...}` hash tags in the key names, docs/architecture.md "Redis keys").
 */
export type RedisClient = Redis | Cluster;

/** The seed nodes of a Redis Cluster and the credentials every node takes (config REDIS_CLUSTER_NODES). */
export interface RedisClusterTarget {
  nodes: { host: string; port: number }[];
  username?: string;
  password?: string;
  tls: boolean;
}

/** Where Redis is: the cluster when one is set, else the one server at `url`. */
export interface RedisTarget {
  url: string;
  cluster: RedisClusterTarget | null;
}

export interface RedisClientOptions {
  /** ioredis' retries of a command over reconnects; null (wait for ever) is what BullMQ's blocking connections need. */
  maxRetriesPerRequest: number | null;
  /** false: a command fails at once while disconnected instead of waiting for the connection. Default true. */
  enableOfflineQueue?: boolean;
  /**
   * ioredis' auto-pipelining: commands issued in the same event-loop turn, or while the previous
   * batch is in flight, go out as one pipeline. Many executions' slot, claim and event commands then
   * share round trips in a burst, one command costs the same as before when idle. Not for
   * connections that BullMQ blocks on. Default false.
   */
  autoPipelining?: boolean;
}

/** A new, not yet connected client (`lazyConnect`): the caller registers its listeners, connects, and owns it. */
export function createRedisClient(target: RedisTarget, options: RedisClientOptions): RedisClient {
  const { maxRetriesPerRequest, enableOfflineQueue = true, autoPipelining = false } = options;
  if (!target.cluster)
    return new Redis(target.url, { lazyConnect: true, maxRetriesPerRequest, enableOfflineQueue, enableAutoPipelining: autoPipelining });
  const { nodes, username, password, tls } = target.cluster;
  return new Cluster(nodes, {
    lazyConnect: true,
    enableOfflineQueue,
    enableAutoPipelining: autoPipelining,
    // A master that just came back (or a replica promoted) is found again by a slots refresh; keep it quick.
    slotsRefreshTimeout: 2000,
    redisOptions: { maxRetriesPerRequest, username, password, ...(tls ? { tls: {} } : {}) },
  });
}

/** True when the client is a Redis Cluster client. */
export function isCluster(client: RedisClient): client is Cluster {
  return client instanceof Cluster;
}
