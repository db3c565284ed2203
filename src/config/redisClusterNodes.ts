import type { RedisClusterTarget } from '../redis/redisClient.js';
import { ConfigError } from './configError.js';

/** REDIS_CLUSTER_NODES: a comma-separated list of `host:port` or redis(s) URLs. */
export function clusterNodes(raw: string): RedisClusterTarget {
  const nodes: { host: string; port: number }[] = [];
  let first: URL | undefined;
  for (const item of raw
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean)) {
    let parsed: URL;
    try {
      parsed = new URL(/^[a-z]+:\/\//i.test(item) ? item : `redis://${item}`);
    } catch {
      throw new ConfigError(
        `REDIS_CLUSTER_NODES has an entry that is not host:port or a redis URL: "${item.replace(/\/\/[^@]*@/, '//***@')}"`,
      );
    }
    if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
      throw new ConfigError('REDIS_CLUSTER_NODES entries must be host:port or start with redis:// or rediss://');
    if (!parsed.hostname) throw new ConfigError('REDIS_CLUSTER_NODES has an entry without a host');
    first ??= parsed;
    nodes.push({ host: parsed.hostname.replace(/^\[|\]$/g, ''), port: parsed.port ? Number(parsed.port) : 6379 });
  }
  if (!first) throw new ConfigError('REDIS_CLUSTER_NODES must name at least one node');
  return {
    nodes,
    ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
    ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
    tls: first.protocol === 'rediss:',
  };
}
