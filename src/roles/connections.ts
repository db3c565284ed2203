import type { ConnectionOptions } from 'bullmq';
import type { Db, MongoClient } from 'mongodb';
import type { KairosConfig } from '../config.js';
import { errorMessage, type Logger } from '../logger.js';
import type { KairosMetrics } from '../metrics/kairosMetrics.js';
import { createRedisClient, type RedisClient, type RedisTarget } from '../redis/redisClient.js';
import { connectMongo } from '../store/mongo.js';
import type { Closers } from './closers.js';

/** The MongoDB connection of a process: opened by connectDatabase, closed by the composition root last (its closer goes first). */
export interface Database {
  client: MongoClient;
  db: Db;
  /** The server is FerretDB: no range indexes, updates one by one, equality filters only. */
  ferretDb: boolean;
}

/** Connects to MONGO_URL (its database, or `dbName`), logs which server answered and counts its failed heartbeats. */
export async function connectDatabase(
  mongoUrl: string,
  dbName: string | undefined,
  { logger, metrics }: { logger: Logger; metrics: KairosMetrics },
): Promise<Database> {
  const { client, db, ferretDb } = await connectMongo(mongoUrl, dbName);
  logger.info('connected to the database', { server: ferretDb ? 'ferretdb' : 'mongodb', maxPoolSize: client.options.maxPoolSize });
  client.on('serverHeartbeatFailed', () => metrics.mongoError('heartbeat'));
  return { client, db, ferretDb };
}

/** The Redis connections of a process. Every client here is closed by the process's closers, registered as it opens. */
export interface RedisConnections {
  /** The command connection, auto-pipelined: the worker's per-execution commands of many executions share round trips (redisClient.ts). */
  redis: RedisClient;
  /** What the queue producers connect with: options on one Redis, a client of their own (registered in closers) on a cluster. */
  producerConnection: ConnectionOptions;
  /** What every queue consumer duplicates or connects with; on a cluster an unconnected template, so nothing to close. */
  consumerConnection: ConnectionOptions;
}

/** Opens the Redis connections every role uses, each registered in `closers` before it connects. */
export async function openRedisConnections(
  config: Pick<KairosConfig, 'redisUrl' | 'redisCluster'>,
  { logger, metrics, closers }: { logger: Logger; metrics: KairosMetrics; closers: Closers },
): Promise<RedisConnections> {
  const target: RedisTarget = { url: config.redisUrl, cluster: config.redisCluster };
  /** A client of this process, closed with it (registered before connecting: ioredis keeps retrying after a failed connect until told to stop). */
  const openRedis = async (options: Parameters<typeof createRedisClient>[1], onError: (error: Error) => void): Promise<RedisClient> => {
    const client = createRedisClient(target, options);
    client.on('error', onError);
    closers.add(async () => (client.status === 'ready' ? client.quit() : client.disconnect()));
    await client.connect();
    return client;
  };
  const redis = await openRedis({ maxRetriesPerRequest: 3, autoPipelining: true }, (error) => {
    metrics.redisError('main');
    logger.warn('redis connection error', { error: errorMessage(error) });
  });
  // BullMQ opens its own connections from options (one Redis), or shares and duplicates a client
  // (a cluster: BullMQ cannot make a Cluster client from options). Blocking consumers need
  // maxRetriesPerRequest: null; producers fail at once while Redis is unreachable (no offline queue).
  let producerConnection: ConnectionOptions = { url: config.redisUrl, maxRetriesPerRequest: null };
  let consumerConnection: ConnectionOptions = producerConnection;
  if (config.redisCluster) {
    // Its errors reach every queue sharing it, which reports them (sharedServices.ts); ioredis wants a listener of its own too.
    producerConnection = await openRedis({ maxRetriesPerRequest: null, enableOfflineQueue: false }, () => undefined);
    // Only a template: every consumer duplicates it (lazily connected, so this one never connects).
    consumerConnection = createRedisClient(target, { maxRetriesPerRequest: null });
  }
  return { redis, producerConnection, consumerConnection };
}
