import { execFile } from 'node:child_process';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { Cluster, Redis } from 'ioredis';
import { REDIS_CLUSTER_NODES } from './env.js';

const run = promisify(execFile);

/** The test cluster's seed nodes. */
export const CLUSTER_NODES = REDIS_CLUSTER_NODES.split(',').map((n) => ({ host: n.split(':')[0], port: Number(n.split(':')[1]) }));

/** A Cluster client to the test cluster; the caller quits it. */
export function clusterClient(): Cluster {
  return new Cluster(CLUSTER_NODES, { redisOptions: { maxRetriesPerRequest: 3 } });
}

/** A plain connection to one node of the cluster (for commands about that node itself); the caller quits it. */
export function nodeClient(port: number): Redis {
  return new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 });
}

/** The port of the master that serves `key`'s hash slot. */
export async function masterPortOf(cluster: Cluster, key: string): Promise<number> {
  const slot = Number(await cluster.cluster('KEYSLOT', key));
  const ranges = await cluster.cluster('SLOTS');
  const owner = ranges.find(([from, to]) => slot >= from && slot <= to);
  if (!owner?.[2]) throw new Error(`no master serves slot ${slot}`);
  return owner[2][1];
}

/** Deletes every key under `prefix` on every master (one key at a time: keys of one command must share a slot). */
export async function dropClusterKeys(prefix: string): Promise<void> {
  for (const { port } of CLUSTER_NODES) {
    const node = nodeClient(port);
    try {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = next;
        for (const key of keys) await node.unlink(key);
      } while (cursor !== '0');
    } finally {
      node.disconnect();
    }
  }
}

/**
 * Stops one master without saving and starts it again through scripts/redis-cluster.sh: it comes
 * back empty (the nodes keep no data) but with its slots, as after a crash of a master without persistence.
 */
export async function restartEmpty(port: number): Promise<void> {
  // The node comes back from the same directory (its nodes.conf holds its id and slots), wherever it was started from.
  const node = nodeClient(port);
  const [, dir] = (await node.config('GET', 'dir')) as [string, string];
  node.disconnect();
  await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'shutdown', 'nosave']).catch(() => undefined);
  await run('bash', ['scripts/redis-cluster.sh'], { timeout: 60_000, env: { ...process.env, REDIS_CLUSTER_DATA: dirname(dir) } });
}
